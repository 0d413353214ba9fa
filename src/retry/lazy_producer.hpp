// A producer created on first use and shared by every caller after that: the retry and the
// dead-letter producer of a consumer exist only once a message needs them (as in the Java
// client). Concurrent first uses wait for the one creation; a failed creation is reported to
// those waiting and tried again on the next use.
//
// How a first use waits depends on its thread. On an application's thread it waits right there,
// as the Java client's first reconsumeLater does while it creates the producer, and then runs on
// that thread — where a send that finds no room waits for it like every later one. On the
// client's I/O thread (a handler, a poison message's diversion) nothing may wait: the use queues
// and runs on the thread that answers the creation, where a send without room fails with
// producer_busy, as any send made on that thread does. (Queued on every thread, a burst of first
// retries larger than the producer's room failed with producer_busy instead of waiting.)
//
// Uses keep their order: the producer counts as made (created() returns it, get() answers at
// once) only after the queued uses have run, and a use that comes while they run waits behind
// them. Otherwise a caller's second retry, made as the producer was created, could be sent
// before its first, which was waiting for it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "client/producer_impl.hpp"

namespace reconsume::detail::retry {

// Dead letters are written one entry each (SPEC.md section 11): the dead-letter tools replay and
// purge them one by one, and Pulsar counts a message of a batch entry as acknowledged only once
// the whole entry is, so a purged dead letter would linger until its neighbours went too. Dead
// letters are rare; their publishing speed does not matter.
inline BatchingOptions deadLetterBatching() {
  BatchingOptions batching;
  batching.enabled = false;
  return batching;
}

class LazyProducer : public std::enable_shared_from_this<LazyProducer> {
 public:
  LazyProducer(std::shared_ptr<client::ClientImpl> client, ProducerOptions options)
      : client_(std::move(client)), options_(std::move(options)) {}

  const std::string& topic() const { return options_.topic; }
  // Calls `done` with the producer (or why there is none: the creation failed, or closed), at
  // once when it is made; else as above — inside this call on an application's thread, later on
  // the client's I/O thread.
  void get(Callback<std::shared_ptr<client::ProducerImpl>> done);
  // The producer when it exists and is open (every use after the first); null otherwise, when
  // get() creates it. Without a lock or a reference count: the hot path of every retry after the
  // first. The producer, once made, lives as long as this object (closed, it is kept), so the
  // pointer is good while the caller holds this object.
  client::ProducerImpl* created() const {
    if (closed_.load(std::memory_order_acquire)) return nullptr;
    return ready_.load(std::memory_order_acquire);
  }
  void close(Callback<> done);

 private:
  void create();
  // The creation's answer: the queued uses run with it, then those that came meanwhile; the
  // threads waiting in get() wake.
  void answer(const Status& status, std::shared_ptr<client::ProducerImpl> producer);

  std::shared_ptr<client::ClientImpl> client_;
  ProducerOptions options_;
  std::mutex mutex_;
  std::shared_ptr<client::ProducerImpl> producer_;  // kept after close(): see created()
  // Set once the uses that waited for the creation have run; until then later ones wait too.
  std::atomic<client::ProducerImpl*> ready_{nullptr};
  bool creating_ = false;            // a creation under way, or its queued uses being answered
  std::uint64_t attempts_ = 0;       // creations started
  std::uint64_t failedAttempt_ = 0;  // the last one that failed, with `failure_`
  Status failure_;
  std::atomic<bool> closed_{false};
  std::vector<Callback<std::shared_ptr<client::ProducerImpl>>> waiting_;  // queued uses
  std::condition_variable settled_;  // made (ready_), failed, or closed
};

}  // namespace reconsume::detail::retry
