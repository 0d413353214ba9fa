// ConsumerOptions and ReconsumeOptions: how a Consumer subscribes, retries and gives messages
// back (Client::subscribe checks them; loadConsumerOptions reads them from a JSON file).
//
// Thread safety: plain values.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "reconsume/error_routing.hpp"
#include "reconsume/redelivery_backoff.hpp"
#include "reconsume/retry_policy.hpp"

namespace reconsume {

enum class SubscriptionType { exclusive, shared, failover, keyShared };
enum class InitialPosition { latest, earliest };

struct ConsumerOptions {
  std::vector<std::string> topics;
  std::string subscription;
  SubscriptionType subscriptionType{SubscriptionType::shared};
  // Where a new subscription starts. The retry topic's subscription always starts at the
  // earliest message, so no retry published before the first subscribe is missed.
  InitialPosition initialPosition{InitialPosition::latest};
  // Empty: ten random hexadecimal digits. Failover picks its active consumer by name (SPEC.md
  // section 14).
  std::string consumerName;
  // Messages the broker may push ahead of receive(), per topic or partition (flow permits).
  int receiverQueueSize{1000};
  // For a consumer of several topics or partitions (a partitioned topic, several topics, the
  // retry topic beside the main one): the permits of each are reduced to
  // min(receiverQueueSize, max(1, this / number of topics and partitions)), so that all
  // together hold at most about this many messages. The Java client's option of the same name.
  int maxTotalReceiverQueueSizeAcrossPartitions{50'000};

  std::optional<RetryPolicy> retry;  // set: reconsumeLater and deadLetter are enabled
  // Routing by error (error_routing.hpp, SPEC.md section 1): what each category of failure does,
  // and which exception types belong to which category. A category without an entry here uses
  // `retry`.
  std::map<std::string, CategoryPolicy> categories;
  ErrorRules errorRules;
  std::optional<std::string> retryTopic, deadLetterTopic;  // defaults per SPEC.md section 3
  std::string deadLetterSubscription{"reconsume-dlq"};
  // reconsumeLater and deadLetter publish and acknowledge in one transaction (SPEC.md section 1):
  // whatever fails, the message is in exactly one place. Needs a broker with transactions
  // (Pulsar's transactionCoordinatorEnabled=true).
  bool transactionalRetry{false};
  // Retry batching (SPEC.md section 11): reconsumeLater copies whose delivery times lie within
  // this window of each other share one entry on the retry topic, delivered at the latest of
  // their times — never early, at most this much late. Fewer entries let the broker retry
  // several times faster. 0: each retry copy is its own entry (as the Java and Go clients write
  // them); both forms are read by every client. Dead letters are never batched (the dead-letter
  // tools purge them one by one). Not used with transactionalRetry (each move is its own
  // transaction).
  std::chrono::milliseconds retryBatchingWindow{10};
  // Poison messages: a message the broker delivered more than this many times (negative
  // acknowledgements, ack timeouts, consumer crashes) goes to the dead-letter topic with
  // DEAD_LETTER_CAUSE=redelivered instead of to the application, as the Java client's
  // DeadLetterPolicy does. 0: off. Works with and without `retry`; redelivery counts exist on
  // Shared and Key_Shared subscriptions only.
  int maxRedeliverCount{0};

  // Grouped acknowledgements (SPEC.md section 12), as the Java client's acknowledgmentGroupTime:
  // acknowledge() holds an acknowledgement until this long (real time) after the first one held,
  // or until 1,000 are held, and sends them together; 100 ms by default, as in the Java client.
  // 0: each goes out at once and acknowledge() completes on the broker's confirmation (set it
  // when code reads the backlog or the cursor right after acknowledging). Closing the consumer
  // and redeliverUnacknowledgedMessages() send what is held first. reconsumeLater, deadLetter and
  // acknowledgements in a transaction never wait here.
  std::chrono::milliseconds acknowledgmentGroupTime{100};
  // With grouping: false (the default, as Java's ackReceiptEnabled) completes acknowledge() once
  // the acknowledgement is held — if the process dies before the group went out, its message is
  // delivered again; true completes it once the broker confirmed the group.
  bool acknowledgmentReceipts{false};
  // Batch-index acknowledgement (SPEC.md section 11), as the Java client's
  // enableBatchIndexAcknowledgment: the acknowledgement of one message of a batch entry goes to
  // the broker at once (grouped as above), so that the broker never delivers it again — also not
  // after a close, a hand-over or a crash, where the whole entry comes back otherwise (and a
  // reconsumeLater of one of its messages would make a second retry chain). NEEDS
  // acknowledgmentAtBatchIndexLevelEnabled=true on the broker (off in Pulsar's defaults): a broker
  // with it off takes such an acknowledgement for one of the whole entry, and the entry's other
  // messages are lost to the subscription. No effect on embedded:// (no batch entries).
  bool batchIndexAcknowledgement{false};

  // Redelivered after this long without an acknowledgement (0: never), plus
  // ackTimeoutRedeliveryBackoff->next(redeliveryCount) when a backoff is set.
  std::chrono::milliseconds ackTimeout{0};
  std::shared_ptr<const RedeliveryBackoff> ackTimeoutRedeliveryBackoff;
  // A negatively acknowledged message is redelivered after this delay, or after
  // negativeAckRedeliveryBackoff->next(redeliveryCount) (at least 100 ms) when a backoff is set.
  // The two cannot be combined: a non-default delay together with a backoff is an
  // invalid-argument error at subscribe. Neither is respected when a consumer crashes: the broker
  // then redelivers its unacknowledged messages at once.
  std::chrono::milliseconds negativeAckRedeliveryDelay{std::chrono::minutes(1)};
  std::shared_ptr<const RedeliveryBackoff> negativeAckRedeliveryBackoff;
};

struct ReconsumeOptions {
  std::optional<int> level;                        // explicit level, 1-based
  std::optional<std::chrono::milliseconds> delay;  // explicit delay (not with level)
  std::string reason;                              // kept in RECONSUME_REASON and the history
  std::optional<std::string> category;             // the failure's category (routing by error)
  std::map<std::string, std::string> properties;   // applied last; cannot change RECONSUMETIMES
};

}  // namespace reconsume
