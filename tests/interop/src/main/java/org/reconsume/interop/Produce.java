package org.reconsume.interop;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.TypedMessageBuilder;

/**
 * produce: N unbatched sends, payload "<prefix><i>" (default prefix "message-"), each with every
 * --property k=v, and the --key, --ordering-key, --event-time (epoch ms) and --deliver-after-ms
 * if given.
 */
final class Produce {
  static final Set<String> OPTIONS =
      Set.of("topic", "count", "property", "key", "ordering-key", "event-time", "payload-prefix",
          "deliver-after-ms");

  private Produce() {}

  static void run(PulsarClient client, Options options, Deadline deadline) throws Exception {
    int count = options.integer("count", 1);
    String prefix = options.optional("payload-prefix", "message-");
    String key = options.optional("key", null);
    String orderingKey = options.optional("ordering-key", null);
    long eventTime = options.number("event-time", 0);
    long deliverAfterMs = options.number("deliver-after-ms", -1);
    Map<String, String> properties = new LinkedHashMap<>();
    for (String pair : options.all("property")) {
      int eq = pair.indexOf('=');
      if (eq <= 0) throw new UsageError("--property '" + pair + "' is not key=value");
      properties.put(pair.substring(0, eq), pair.substring(eq + 1));
    }
    try (Producer<byte[]> producer = client.newProducer()
             .topic(options.required("topic"))
             .enableBatching(false)
             .sendTimeout((int) Math.max(1, deadline.remainingMs()), TimeUnit.MILLISECONDS)
             .create()) {
      for (int i = 0; i < count; i++) {
        String payload = prefix + i;
        TypedMessageBuilder<byte[]> message = producer.newMessage()
            .value(payload.getBytes(StandardCharsets.UTF_8))
            .properties(properties);
        if (key != null) message.key(key);
        if (orderingKey != null) message.orderingKey(orderingKey.getBytes(StandardCharsets.UTF_8));
        if (eventTime > 0) message.eventTime(eventTime);
        if (deliverAfterMs >= 0) message.deliverAfter(deliverAfterMs, TimeUnit.MILLISECONDS);
        MessageId id = message.send();
        Output.print(MessageJson.putId(
            Json.event("sent").put("index", i).put("key", key).put("payload", payload), id));
      }
    }
  }
}
