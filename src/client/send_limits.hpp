// How much a client may hold for its brokers: every message between send and its receipt (or
// failure) holds room in its producer (ProducerOptions::maxPendingMessages and maxPendingBytes)
// and in its client (ClientOptions::memoryLimit, shared by every producer of the client,
// including the retry layer's retry and dead-letter producers). Nothing is queued toward a broker
// without room, so a slow or paused broker cannot make a sender grow memory without bound.
//
// When there is no room, a send either fails at once with producer_busy (blockIfQueueFull off:
// the counterpart of the Java client's ProducerQueueIsFullError / MemoryBufferIsFullError), or
// waits on the caller's thread for room (blockIfQueueFull on: as the Java client's sendAsync
// blocks its caller), at most `maxWait` by the injected steady clock, then fails with timeout. A
// wait never happens on the client's I/O thread — the receipts that make room arrive there — so
// there a send without room fails at once with producer_busy too.
//
// Thread safety: every member may be called from any thread; one mutex per client, never held
// while other code runs.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

#include "common/status.hpp"
#include "common/steady_clock.hpp"
#include "reconsume/message.hpp"

namespace reconsume::detail::client {

class ClientSendLimits {
 public:
  // `memoryLimit` 0: no limit. Waits run their timers on `io` (whose threads never wait).
  ClientSendLimits(std::size_t memoryLimit, boost::asio::io_context& io,
                   std::shared_ptr<SteadyClock> clock);

  std::size_t memoryLimit() const { return memoryLimit_; }
  std::size_t bytesInUse() const;
  // Wakes every waiting send, which fails with `why`; later sends fail with it at once.
  void close(const Status& why);

 private:
  friend class ProducerSendLimit;
  // A send or a release changed the counts: wake the sends waiting for room, if any.
  void roomChanged(bool mutexHeld);

  const std::size_t memoryLimit_;
  boost::asio::io_context& io_;
  const std::shared_ptr<SteadyClock> clock_;
  // The counts are atomics: a send takes room and a receipt gives it back without a lock, and
  // only sends that found no room meet on the mutex (waiting_ says whether any does).
  std::atomic<std::size_t> bytes_{0};
  std::atomic<int> waiting_{0};
  std::atomic<bool> closed_{false};
  mutable std::mutex mutex_;
  std::condition_variable room_;
  Status closedStatus_;  // guarded by mutex_; set with closed_
};

class ProducerSendLimit {
 public:
  struct Settings {
    std::string producer;         // how errors name it: "producer of persistent://…"
    std::size_t maxMessages = 0;  // 0: no limit
    std::size_t maxBytes = 0;     // 0: no limit
    bool block = true;            // blockIfQueueFull
    std::chrono::milliseconds maxWait{30'000};
    std::string maxWaitName;  // "sendTimeout" or "operationTimeout", for the timeout error
  };
  ProducerSendLimit(std::shared_ptr<ClientSendLimits> client, Settings settings);

  // Takes room for one message of `bytes`. Errors: too_large (larger than a byte limit: it never
  // fits), producer_busy (no room and not blocking, or on the client's I/O thread), timeout (no
  // room within maxWait), or the status given to close().
  Status acquire(std::size_t bytes);
  // Gives back what acquire(bytes) took, and wakes the sends waiting for room.
  void release(std::size_t bytes);
  // Wakes this producer's waiting sends, which fail with `why`; later sends fail with it at once.
  void close(const Status& why);

  std::size_t pendingMessages() const;
  std::size_t pendingBytes() const;

 private:
  // Takes room for a message of `bytes` if there is, all or nothing.
  // `mutexHeld`: the caller holds the client's mutex.
  bool tryTake(std::size_t bytes, bool mutexHeld = false);
  // Gives it back.
  void giveBack(std::size_t bytes, bool mutexHeld = false);
  // Why a message of `bytes` cannot be taken now ("" : it can).
  std::string noRoomFor(std::size_t bytes) const;
  // Under the client's mutex: the status of a closed producer or client, or ok.
  Status closedStatus() const;
  Status waitForRoom(std::size_t bytes, std::unique_lock<std::mutex>& lock);

  const std::shared_ptr<ClientSendLimits> client_;
  const Settings settings_;
  std::atomic<std::size_t> messages_{0};
  std::atomic<std::size_t> bytes_{0};
  std::atomic<bool> closed_{false};
  Status closedStatus_;  // guarded by the client's mutex; set with closed_
};

}  // namespace reconsume::detail::client
