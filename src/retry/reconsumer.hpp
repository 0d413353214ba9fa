// The retry layer of one consumer: reconsumeLater and deadLetter (SPEC.md section 1), and the
// dead-letter path of poison messages (maxRedeliverCount). It holds the core consumer (which reads
// the subscribed topics and, with a retry policy, the retry topic) and, made on first use, the
// retry and dead-letter producers.
//
// A move routes the message with the policy, builds the new message's properties and publishes
// it. At least once (the default): the original is acknowledged once the broker confirmed the
// publish; a failed publish negatively acknowledges it. Transactional (transactionalRetry): the
// publish and the acknowledgement share one transaction, committed at the end and aborted on any
// failure. SPEC.md section 1 says what each mode guarantees.
//
// A consumer subscribed without a retry policy and without maxRedeliverCount has no Reconsumer.
//
// Thread safety: all members may be called from several threads at once.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client/consumer_impl.hpp"
#include "retry/category_routes.hpp"
#include "retry/lazy_producer.hpp"
#include "retry/move_metrics.hpp"
#include "retry/retry_topics.hpp"
#include "retry/routing.hpp"

namespace reconsume::detail::retry {

class Reconsumer : public std::enable_shared_from_this<Reconsumer> {
 public:
  // Subscribes `options` (checked and canonical, with a retry policy or maxRedeliverCount): works
  // out the retry and dead-letter topics (SPEC.md section 3, asking the broker whether the legacy
  // names exist) and subscribes the given topics and, with a retry policy, the retry topic —
  // always Shared, from the earliest message, under the same subscription name.
  static void subscribe(const std::shared_ptr<client::ClientImpl>& client, ConsumerOptions options,
                        Callback<std::shared_ptr<Reconsumer>> done);

  Reconsumer(std::shared_ptr<client::ConsumerImpl> consumer, const ConsumerOptions& options,
             RetryTopics topics, std::shared_ptr<LazyProducer> deadLetters);

  const std::shared_ptr<client::ConsumerImpl>& consumer() const { return consumer_; }
  const RetryTopics& topics() const { return topics_; }
  bool hasRetryPolicy() const { return routes_.hasAnyPolicy(); }
  // The category of a failure, by the consumer's ErrorRules; nothing when no rule matches.
  std::optional<std::string> classify(const std::exception_ptr& error) const {
    return errorRules_.classify(error);
  }
  // The topics the application subscribed to, without the retry topic.
  const std::vector<std::string>& givenTopics() const { return givenTopics_; }

  // invalid_argument without a retry policy for the request's category.
  void reconsume(const Message& message, const RetryRequest& request, const std::string& reason,
                 const std::map<std::string, std::string>& properties, Callback<> done);
  // Closes the producers, then the consumer.
  void close(Callback<> done);

 private:
  // Counts the move in moveMetrics_ once it completed, timed from `started`. `producer` is one
  // of this object's.
  void moveAtLeastOnce(const Message& message, OutgoingData outgoing, LazyProducer& producer,
                       Route route, std::chrono::steady_clock::time_point started, Callback<> done);
  void moveInTransaction(const Message& message, OutgoingData outgoing,
                         std::shared_ptr<LazyProducer> producer, Callback<> done);

  std::shared_ptr<client::ConsumerImpl> consumer_;
  bool transactional_;
  ErrorRules errorRules_;
  RetryTopics topics_;
  std::vector<std::string> givenTopics_;
  std::shared_ptr<LazyProducer> retryProducer_;  // null without any retry policy
  std::shared_ptr<LazyProducer> deadLetterProducer_;
  CategoryRoutes routes_;
  std::shared_ptr<MoveMetrics> moveMetrics_;
};

}  // namespace reconsume::detail::retry
