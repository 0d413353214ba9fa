// A consumer's flow-control arithmetic. The layer above promises the application at most
// receiverQueueSize messages ahead of it; the broker sends only as many messages as it holds
// permits for. Invariant kept here: permits the broker still holds + messages in the sink's queue
// + messages taken but not yet returned with flow() = receiverQueueSize.
//
//   - a (re)subscribe: the broker holds none; grant receiverQueueSize (the sink was reset), or —
//     a reader resuming without losing its queue — exactly what the broker held before;
//   - the sink reset (redelivery of everything): grant what brings the broker back up to
//     receiverQueueSize, from below zero when a batch entry overdrew it;
//   - a message the consumer drops instead of handing it on (already acknowledged, before a
//     reader's start, from before a seek or redelivery): return its permit at once.
//
// Thread safety: not synchronised; the consumer uses it from its strand only.
#pragma once

#include <algorithm>
#include <cstdint>

namespace reconsume::detail::pulsar {

class FlowPermits {
 public:
  explicit FlowPermits(std::uint32_t queueSize) : queueSize_(queueSize) {}

  // A new subscription on the broker. Returns the permits to grant it.
  std::uint32_t resubscribed(bool keepQueue) {
    auto grant = keepQueue ? outstanding() : queueSize_;
    granted_ = grant;
    received_ = 0;
    return grant;
  }
  // The sink dropped everything it held. Returns the permits to grant: what brings the broker
  // back to queueSize, counting what it overdrew — the broker sends a whole batch entry on one
  // permit and charges every message of it, so it may hold fewer than none, and the messages that
  // overdrew it are among those just dropped (nothing will return their permits).
  std::uint32_t reset() {
    const auto held = static_cast<std::int64_t>(granted_) - static_cast<std::int64_t>(received_);
    const auto grant = std::max<std::int64_t>(0, static_cast<std::int64_t>(queueSize_) - held);
    granted_ += static_cast<std::uint64_t>(grant);
    return static_cast<std::uint32_t>(grant);
  }
  // Permits granted to the broker (returned by the application, or for dropped messages).
  void granted(std::uint32_t permits) { granted_ += permits; }
  // The broker spent permits on messages it sent.
  void received(std::uint32_t permits) { received_ += permits; }
  // What the broker still holds.
  std::uint32_t outstanding() const {
    return granted_ > received_ ? static_cast<std::uint32_t>(granted_ - received_) : 0;
  }
  std::uint32_t queueSize() const { return queueSize_; }

 private:
  std::uint32_t queueSize_;
  std::uint64_t granted_ = 0;
  std::uint64_t received_ = 0;
};

}  // namespace reconsume::detail::pulsar
