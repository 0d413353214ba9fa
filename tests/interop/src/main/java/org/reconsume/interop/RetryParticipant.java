package org.reconsume.interop;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.ConsumerBuilder;
import org.apache.pulsar.client.api.DeadLetterPolicy;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.impl.ConsumerBuilderImpl;

/**
 * retry-participant: a consumer with enableRetry(true) and a DeadLetterPolicy, receiving K
 * messages (from the topic and its retry topic) and doing --then with each: reconsume:<delayMs>
 * (reconsumeLater), ack or none.
 */
final class RetryParticipant {
  static final Set<String> OPTIONS = Set.of("topic", "subscription", "max-redeliver", "receive",
      "then", "type", "initial-position", "retry-topic", "dead-letter-topic",
      "initial-subscription");

  private RetryParticipant() {}

  static void run(PulsarClient client, Options options, Deadline deadline) throws Exception {
    int maxRedeliver = options.integer("max-redeliver", 16);
    int receive = options.integer("receive", 1);
    String then = options.required("then");
    long reconsumeDelayMs = -1;
    if (then.startsWith("reconsume:")) {
      try {
        reconsumeDelayMs = Long.parseLong(then.substring("reconsume:".length()));
      } catch (NumberFormatException e) {
        throw new UsageError("--then '" + then + "': the delay is not an integer");
      }
    } else if (!then.equals("ack") && !then.equals("none")) {
      throw new UsageError("--then '" + then + "' is not reconsume:<delayMs>, ack or none");
    }

    DeadLetterPolicy.DeadLetterPolicyBuilder policy =
        DeadLetterPolicy.builder().maxRedeliverCount(maxRedeliver);
    if (options.has("retry-topic")) policy.retryLetterTopic(options.required("retry-topic"));
    if (options.has("dead-letter-topic")) {
      policy.deadLetterTopic(options.required("dead-letter-topic"));
    }
    if (options.has("initial-subscription")) {
      policy.initialSubscriptionName(options.required("initial-subscription"));
    }
    ConsumerBuilder<byte[]> builder = client.newConsumer()
        .topic(options.required("topic"))
        .subscriptionName(options.required("subscription"))
        .subscriptionType(Subscriptions.type(options))
        .subscriptionInitialPosition(Subscriptions.initialPosition(options))
        .enableRetry(true)
        // Java's reconsumeLater returns once its acknowledgement is queued; with receipts it
        // returns once the broker has it, so that the next participant in a test does not get
        // the message again (a queued acknowledgement is sent at close, and was seen lost).
        .isAckReceiptEnabled(true)
        .deadLetterPolicy(policy.build());
    try (Consumer<byte[]> consumer = builder.subscribe()) {
      // subscribe() filled in the retry and dead-letter topic names the client derived.
      DeadLetterPolicy used = ((ConsumerBuilderImpl<byte[]>) builder).getConf().getDeadLetterPolicy();
      Output.print(Json.event("subscribed")
          .put("topics", new HashSet<>(((ConsumerBuilderImpl<byte[]>) builder).getConf()
              .getTopicNames()))
          .put("subscriptionType", Subscriptions.type(options).toString())
          .put("retryTopic", used.getRetryLetterTopic())
          .put("deadLetterTopic", used.getDeadLetterTopic())
          .put("maxRedeliverCount", used.getMaxRedeliverCount())
          .put("initialSubscriptionName", used.getInitialSubscriptionName()));
      for (int i = 0; i < receive; i++) {
        Message<byte[]> message = consumer.receive((int) deadline.remainingMs(), TimeUnit.MILLISECONDS);
        if (message == null) {
          throw new TimeoutError("received " + i + " of " + receive + " messages within "
              + deadline.timeoutMs() + " ms");
        }
        Output.print(MessageJson.received(i, message));
        if (reconsumeDelayMs >= 0) {
          consumer.reconsumeLater(message, reconsumeDelayMs, TimeUnit.MILLISECONDS);
        } else if (then.equals("ack")) {
          consumer.acknowledge(message);
        }
        Output.print(MessageJson.putId(Json.event("action").put("index", i).put("action", then),
            message.getMessageId()));
      }
    }
  }
}
