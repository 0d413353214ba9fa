package org.reconsume.interop;

import java.util.Locale;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;
import org.apache.pulsar.client.api.SubscriptionType;

/** --type and --initial-position values. */
final class Subscriptions {
  private Subscriptions() {}

  static SubscriptionType type(Options options) throws UsageError {
    String text = options.optional("type", "shared");
    return switch (text.toLowerCase(Locale.ROOT).replace("-", "").replace("_", "")) {
      case "shared" -> SubscriptionType.Shared;
      case "exclusive" -> SubscriptionType.Exclusive;
      case "failover" -> SubscriptionType.Failover;
      case "keyshared" -> SubscriptionType.Key_Shared;
      default -> throw new UsageError(
          "--type '" + text + "' is not one of shared, exclusive, failover, key_shared");
    };
  }

  static SubscriptionInitialPosition initialPosition(Options options) throws UsageError {
    String text = options.optional("initial-position", "earliest");
    return switch (text) {
      case "earliest" -> SubscriptionInitialPosition.Earliest;
      case "latest" -> SubscriptionInitialPosition.Latest;
      default -> throw new UsageError(
          "--initial-position '" + text + "' is not 'earliest' or 'latest'");
    };
  }
}
