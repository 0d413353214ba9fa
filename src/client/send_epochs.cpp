#include "client/send_epochs.hpp"

#include <utility>

namespace reconsume::detail::client {

class SendEpochs::Epoch {
 public:
  explicit Epoch(std::size_t counts) : counts(counts) {}

  std::atomic<std::size_t> counts;
  std::mutex failureMutex;  // failures are rare: taken only for one
  Status firstFailure;
  // Set by the flush that closes this epoch, before it drops the epoch's open count.
  Callback<> done;
  Epoch* next = nullptr;
};

SendEpochs::SendEpochs() : current_(new Epoch(1)) {}

SendEpochs::~SendEpochs() {
  delete current_;
}

SendEpochs::Epoch* SendEpochs::join() {
  std::lock_guard lock(mutex_);
  current_->counts.fetch_add(1, std::memory_order_relaxed);
  return current_;
}

void SendEpochs::complete(Epoch* epoch, const Status& status) {
  if (!status.ok()) {
    std::lock_guard lock(epoch->failureMutex);
    if (epoch->firstFailure.ok()) epoch->firstFailure = status;
  }
  release(epoch);
}

void SendEpochs::flush(Callback<> done) {
  Epoch* closing = nullptr;
  {
    std::lock_guard lock(mutex_);
    closing = current_;
    closing->done = std::move(done);
    // Open, and waiting for the one closed now.
    closing->next = new Epoch(2);
    current_ = closing->next;
  }
  release(closing);
}

void SendEpochs::release(Epoch* epoch) {
  // The thread that drops an epoch's last count is the only one left holding it: the acq_rel
  // decrement orders every earlier completion's writes (the first failure) before this read.
  while (epoch != nullptr && epoch->counts.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    Epoch* next = epoch->next;
    auto done = std::move(epoch->done);
    auto status = std::move(epoch->firstFailure);
    delete epoch;
    if (done) done(status);
    epoch = next;
  }
}

}  // namespace reconsume::detail::client
