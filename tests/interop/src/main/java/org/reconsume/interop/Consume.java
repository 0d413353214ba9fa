package org.reconsume.interop;

import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.PulsarClient;

/**
 * consume: receives and acknowledges N messages (N = 0 only creates the subscription). With
 * --ack false the messages are left unacknowledged. Each acknowledgement is sent at once and waited
 * for (receipts, no grouping): when the command exits, the broker has applied every one. With Java's
 * defaults they are queued and sent as the consumer closes, and a multi-topics consumer was seen
 * closing with some of them never applied (a partitioned topic's backlog stayed too high).
 */
final class Consume {
  static final Set<String> OPTIONS =
      Set.of("topic", "subscription", "count", "type", "initial-position", "ack");

  private Consume() {}

  static void run(PulsarClient client, Options options, Deadline deadline) throws Exception {
    int count = options.integer("count", 1);
    String ackText = options.optional("ack", "true");
    if (!ackText.equals("true") && !ackText.equals("false")) {
      throw new UsageError("--ack '" + ackText + "' is not true or false");
    }
    boolean ack = ackText.equals("true");
    try (Consumer<byte[]> consumer = client.newConsumer()
             .topic(options.required("topic"))
             .subscriptionName(options.required("subscription"))
             .subscriptionType(Subscriptions.type(options))
             .subscriptionInitialPosition(Subscriptions.initialPosition(options))
             .acknowledgmentGroupTime(0, TimeUnit.MILLISECONDS)
             .isAckReceiptEnabled(true)
             .subscribe()) {
      Output.print(Json.event("subscribed").put("topic", consumer.getTopic())
          .put("subscription", consumer.getSubscription()));
      for (int i = 0; i < count; i++) {
        Message<byte[]> message = consumer.receive((int) deadline.remainingMs(), TimeUnit.MILLISECONDS);
        if (message == null) {
          throw new TimeoutError("received " + i + " of " + count + " messages within "
              + deadline.timeoutMs() + " ms");
        }
        Output.print(MessageJson.received(i, message));
        if (ack) consumer.acknowledge(message);
      }
    }
  }
}
