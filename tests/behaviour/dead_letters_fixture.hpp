// The fixture of the DeadLetters behaviour tests (dead_letters_*_test.cpp): a service whose
// consumer dead-letters or exhausts messages, and the DeadLetterQueue over its dead-letter topic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fixture.hpp"

namespace reconsume::behaviour {

// Not in an anonymous namespace: the test files share this one class, so that gtest sees one
// DeadLetters suite (instantiated on every backend in dead_letters_inspect_test.cpp).
class DeadLetters : public BehaviourTest {
 protected:
  // A topic with a consumer whose retry policy has one 100 ms level and maxRetries 1, so a second
  // reconsumeLater exhausts a message.
  void makeService(const std::string& prefix = "dlq-orders") {
    topic_ = uniqueTopic(prefix);
    consumer_ = client().subscribe(
        retryOptions(topic_, "billing", RetryPolicy::levels(DelayLevels::parse("100ms"), 1)));
    producer_ = client().createProducer(topic_);
  }

  // Sends `message` and dead-letters it explicitly with `reason`; returns the original's id.
  MessageId deadLetter(OutgoingMessage message, const std::string& reason) {
    auto id = producer_.send(message);
    auto received = receiveNow(consumer_);
    EXPECT_EQ(received.id(), id);
    consumer_.deadLetter(received, reason);
    return id;
  }
  MessageId deadLetter(const std::string& payload, const std::string& reason) {
    OutgoingMessage message;
    message.payload = payload;
    return deadLetter(std::move(message), reason);
  }

  // Sends `payload` and fails it twice: the second reconsumeLater exhausts the policy.
  MessageId exhaust(const std::string& payload, const std::string& reason) {
    auto id = producer_.send(payload);
    auto received = receiveNow(consumer_);
    ReconsumeOptions retry;
    retry.reason = reason;
    auto due = now() + 100ms;
    consumer_.reconsumeLater(received, retry);
    auto again = receiveAt(consumer_, due);
    consumer_.reconsumeLater(again, retry);
    return id;
  }

  std::string deadLetterTopic() const { return *consumer_.deadLetterTopic(); }
  DeadLetterQueue queue(DeadLetterQueueOptions options = {}) {
    return DeadLetterQueue(client(), admin(), deadLetterTopic(), std::move(options));
  }
  std::int64_t dlqBacklog() { return admin().backlog(deadLetterTopic(), "reconsume-dlq"); }

  static std::vector<std::string> payloads(const std::vector<DeadLetter>& deadLetters) {
    std::vector<std::string> out;
    for (const auto& d : deadLetters) out.emplace_back(d.message.data());
    return out;
  }

  std::string topic_;
  Consumer consumer_;
  Producer producer_;
};

using Strings = std::vector<std::string>;

}  // namespace reconsume::behaviour
