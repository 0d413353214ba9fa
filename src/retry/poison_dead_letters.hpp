// Where a consumer with ConsumerOptions::maxRedeliverCount sends its poison messages (SPEC.md
// section 1): to the dead-letter topic with DEAD_LETTER_CAUSE=redelivered; the original is
// acknowledged once the dead letter is confirmed, and negatively acknowledged (so it comes back,
// to be dead-lettered at its next arrival) when the publish failed.
//
// Thread safety: onPoison may be called from several threads at once.
#pragma once

#include <memory>
#include <string>

#include "client/poison.hpp"
#include "retry/lazy_producer.hpp"

namespace reconsume::detail::retry {

class PoisonDeadLetters final : public client::PoisonSink {
 public:
  PoisonDeadLetters(std::shared_ptr<LazyProducer> deadLetters, std::string subscription,
                    int maxRedeliverCount)
      : deadLetters_(std::move(deadLetters)),
        subscription_(std::move(subscription)),
        maxRedeliverCount_(maxRedeliverCount) {}

  void onPoison(const Message& message,
                const std::shared_ptr<client::ConsumerImpl>& consumer) override;

 private:
  std::shared_ptr<LazyProducer> deadLetters_;
  std::string subscription_;
  int maxRedeliverCount_;
};

}  // namespace reconsume::detail::retry
