// The retry layer of one consumer: reconsumeLater and deadLetter (SPEC.md section 1). It holds the
// core consumer (which reads the subscribed topics and the retry topic) and, made on first use, the
// retry and dead-letter producers. Each call routes the message with the policy, builds the new
// message's properties, publishes it, and only once the broker confirmed, acknowledges the
// original. A failed publish leaves the original unacknowledged and negatively acknowledges it, so
// it comes back (at-least-once).
//
// A consumer subscribed without a retry policy has no Reconsumer at all.
//
// Thread safety: all members may be called from several threads at once.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "client/consumer_impl.hpp"
#include "retry/lazy_producer.hpp"
#include "retry/retry_topics.hpp"
#include "retry/routing.hpp"

namespace reconsume::detail::retry {

class Reconsumer {
 public:
  // Subscribes `options` (checked and canonical, with a retry policy): works out the retry and
  // dead-letter topics (SPEC.md section 3, asking the broker whether the legacy names exist) and
  // subscribes the given topics and the retry topic — always Shared, from the earliest message,
  // under the same subscription name.
  static void subscribe(const std::shared_ptr<client::ClientImpl>& client, ConsumerOptions options,
                        Callback<std::shared_ptr<Reconsumer>> done);

  Reconsumer(std::shared_ptr<client::ConsumerImpl> consumer, RetryPolicy policy, RetryTopics topics,
             std::vector<std::string> givenTopics);

  const std::shared_ptr<client::ConsumerImpl>& consumer() const { return consumer_; }
  const RetryTopics& topics() const { return topics_; }
  // The topics the application subscribed to, without the retry topic.
  const std::vector<std::string>& givenTopics() const { return givenTopics_; }

  void reconsume(const Message& message, const RetryRequest& request, const std::string& reason,
                 const std::map<std::string, std::string>& properties, Callback<> done);
  // Closes the producers, then the consumer.
  void close(Callback<> done);

 private:
  std::shared_ptr<client::ConsumerImpl> consumer_;
  RetryPolicy policy_;
  RetryTopics topics_;
  std::vector<std::string> givenTopics_;
  std::shared_ptr<LazyProducer> retryProducer_;
  std::shared_ptr<LazyProducer> deadLetterProducer_;
};

}  // namespace reconsume::detail::retry
