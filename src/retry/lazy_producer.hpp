// A producer created on first use and shared by every caller after that: the retry and the
// dead-letter producer of a consumer exist only once a message needs them (as in the Java
// client). Concurrent first uses wait for the one creation; a failed creation is reported to
// those waiting and tried again on the next use.
//
// Uses keep their order: the producer counts as made (created() returns it, get() answers at
// once) only after the uses that waited for it have run, and a use that comes while they run
// waits behind them. Otherwise a caller's second retry, made as the producer was created, could
// be sent before its first, which was waiting for it.
#pragma once

#include <atomic>
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
  // The creation's answer: the waiting uses run with it, then those that came meanwhile.
  void answer(const Status& status, std::shared_ptr<client::ProducerImpl> producer);

  std::shared_ptr<client::ClientImpl> client_;
  ProducerOptions options_;
  std::mutex mutex_;
  std::shared_ptr<client::ProducerImpl> producer_;  // kept after close(): see created()
  // Set once the uses that waited for the creation have run; until then later ones wait too.
  std::atomic<client::ProducerImpl*> ready_{nullptr};
  bool creating_ = false;  // a creation under way, or its waiting uses being answered
  std::atomic<bool> closed_{false};
  std::vector<Callback<std::shared_ptr<client::ProducerImpl>>> waiting_;
};

}  // namespace reconsume::detail::retry
