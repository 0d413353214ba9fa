package org.reconsume.interop;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;

/**
 * batch-producer: N keyed messages ("key-<i % K>", "message-<i>") sent asynchronously through a
 * producer with the Java defaults (batching on), then flushed; prints the id of each.
 */
final class BatchProducer {
  static final Set<String> OPTIONS = Set.of("topic", "count", "keys");

  private BatchProducer() {}

  static void run(PulsarClient client, Options options, Deadline deadline) throws Exception {
    int count = options.integer("count", 10);
    int keys = options.integer("keys", 1);
    if (keys < 1) throw new UsageError("--keys '" + keys + "' must be at least 1");
    try (Producer<byte[]> producer = client.newProducer()
             .topic(options.required("topic"))
             .enableBatching(true)
             .sendTimeout((int) Math.max(1, deadline.remainingMs()), TimeUnit.MILLISECONDS)
             .create()) {
      List<CompletableFuture<MessageId>> sends = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        sends.add(producer.newMessage()
            .key("key-" + (i % keys))
            .value(("message-" + i).getBytes(StandardCharsets.UTF_8))
            .sendAsync());
      }
      producer.flush();
      for (int i = 0; i < count; i++) {
        MessageId id = sends.get(i).get(deadline.remainingMs(), TimeUnit.MILLISECONDS);
        Output.print(MessageJson.putId(Json.event("sent")
            .put("index", i)
            .put("key", "key-" + (i % keys))
            .put("payload", "message-" + i), id));
      }
    }
  }
}
