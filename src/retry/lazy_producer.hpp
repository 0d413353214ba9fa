// A producer created on first use and shared by every caller after that: the retry and the
// dead-letter producer of a consumer exist only once a message needs them (as in the Java
// client). Concurrent first uses wait for the one creation; a failed creation is reported to
// those waiting and tried again on the next use.
#pragma once

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
  // get() creates it.
  std::shared_ptr<client::ProducerImpl> created() {
    std::lock_guard lock(mutex_);
    return closed_ ? nullptr : producer_;
  }
  void close(Callback<> done);

 private:
  std::shared_ptr<client::ClientImpl> client_;
  ProducerOptions options_;
  std::mutex mutex_;
  std::shared_ptr<client::ProducerImpl> producer_;
  bool creating_ = false;
  bool closed_ = false;
  std::vector<Callback<std::shared_ptr<client::ProducerImpl>>> waiting_;
};

}  // namespace reconsume::detail::retry
