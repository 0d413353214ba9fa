package org.reconsume.interop;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.TreeMap;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.MessageIdAdv;

/** How a received or sent message is printed: everything a C++ test compares. */
final class MessageJson {
  private MessageJson() {}

  static Json received(int index, Message<byte[]> message) {
    Json line = Json.event("message")
        .put("index", index)
        .put("topic", message.getTopicName());
    putId(line, message.getMessageId());
    byte[] data = message.getData();
    return line.put("key", message.hasKey() ? message.getKey() : null)
        .put("orderingKey", message.hasOrderingKey()
            ? new String(message.getOrderingKey(), StandardCharsets.UTF_8) : null)
        .put("payload", new String(data, StandardCharsets.UTF_8))
        .put("payloadBase64", Base64.getEncoder().encodeToString(data))
        .put("properties", new TreeMap<>(message.getProperties()))
        .put("redeliveryCount", message.getRedeliveryCount())
        .put("publishTime", message.getPublishTime())
        .put("eventTime", message.getEventTime());
  }

  /** Adds "messageId" (Java's text form) and its parts; batchIndex is -1 outside a batch. */
  static Json putId(Json line, MessageId id) {
    line.put("messageId", id.toString());
    if (id instanceof MessageIdAdv adv) {
      line.put("ledgerId", adv.getLedgerId())
          .put("entryId", adv.getEntryId())
          .put("partition", adv.getPartitionIndex())
          .put("batchIndex", adv.getBatchIndex())
          .put("batchSize", adv.getBatchSize());
    }
    return line;
  }
}
