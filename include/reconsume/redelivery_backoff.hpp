// Redelivery backoff for negative acknowledgements and ack timeouts (Pulsar PIP-106, PIP-130):
// how long the broker waits before it redelivers a message the consumer gave back or held too
// long, as a function of how often it was redelivered already.
//
// Thread safety: next() is called from the consumer's timer threads; implementations must be
// thread-safe. MultiplierRedeliveryBackoff is immutable and thread-safe.
#pragma once

#include <chrono>

namespace reconsume {

class RedeliveryBackoff {
 public:
  virtual ~RedeliveryBackoff() = default;
  // The delay before redelivery number `redeliveryCount + 1` (the message's redeliveryCount()).
  virtual std::chrono::milliseconds next(int redeliveryCount) const = 0;
};

// next(c) = c <= 0 ? min : min(min × multiplier^c, max) — the Java client's
// MultiplierRedeliveryBackoff, with its defaults (min 10 s, max 10 min, multiplier 2).
class MultiplierRedeliveryBackoff final : public RedeliveryBackoff {
 public:
  struct Options {
    std::chrono::milliseconds min{10'000};
    std::chrono::milliseconds max{600'000};
    double multiplier{2.0};
  };
  // Throws Error(errc::invalid_argument) for min <= 0, max < min or multiplier <= 1, naming the
  // value.
  explicit MultiplierRedeliveryBackoff(Options options);
  MultiplierRedeliveryBackoff();  // the defaults

  std::chrono::milliseconds next(int redeliveryCount) const override;
  const Options& options() const { return options_; }

 private:
  Options options_;
};

}  // namespace reconsume
