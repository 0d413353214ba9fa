// reconsumeLater and deadLetter (SPEC.md section 1): route the message with the policy, build
// the new message's properties, publish it to the retry or dead-letter topic, and only once the
// broker confirmed, acknowledge the original. A failed publish leaves the original
// unacknowledged and negatively acknowledges it, so it comes back (at-least-once).
//
// Thread safety: all members may be called from several threads at once.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "client/consumer_impl.hpp"
#include "retry/lazy_producer.hpp"
#include "retry/routing.hpp"

namespace reconsume::detail::retry {

struct RetryTopics {
  std::string retryTopic;
  std::string deadLetterTopic;
  std::string deadLetterSubscription;
};

class Reconsumer {
 public:
  Reconsumer(std::shared_ptr<detail::client::ClientImpl> client, RetryPolicy policy,
             RetryTopics topics);

  const RetryTopics& topics() const { return topics_; }
  void reconsume(detail::client::ConsumerImpl& consumer, const Message& message,
                 const RetryRequest& request, const std::string& reason,
                 const std::map<std::string, std::string>& properties, detail::Callback<> done);
  void close(detail::Callback<> done);

 private:
  std::shared_ptr<detail::client::ClientImpl> client_;
  RetryPolicy policy_;
  RetryTopics topics_;
  std::shared_ptr<LazyProducer> retryProducer_;
  std::shared_ptr<LazyProducer> deadLetterProducer_;
};

// The Reconsumer of a consumer, or a failed Status when the consumer has no retry policy.
detail::Status reconsumerOf(const detail::client::ConsumerImpl& consumer, Reconsumer*& out);

}  // namespace reconsume::detail::retry
