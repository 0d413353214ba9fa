#include "client/send_epochs.hpp"

#include <cstdint>
#include <utility>

namespace reconsume::detail::client {

// Its counts sit on separate cache lines by who writes them: the sending threads count joins, the
// threads that complete sends (the I/O thread, on pulsar://) count completions. One count both
// wrote would move its cache line between two cores for every message.
class SendEpochs::Epoch {
 public:
  explicit Epoch(int gates) : gates(gates) {}

  // Completions minus, once the epoch is closed, the sends it had: 0 again once the last of them
  // completed. Whoever brings it back to 0 (a completion, or the flush if all had completed) is
  // the only one: a completion before the close finds it at 0 or above and adds to it.
  alignas(64) std::atomic<std::int64_t> balance{0};
  std::mutex failureMutex;  // failures are rare: taken only for one
  Status firstFailure;

  // Sends joined; written under SendEpochs::mutex_ by the sending threads.
  alignas(64) std::int64_t joined = 0;
  // Its own sends done; the epoch before it done (none for the first). The last of the two runs
  // the flush's callback and frees the epoch.
  std::atomic<int> gates;
  // Set by the flush that closes this epoch, before its closing count.
  Callback<> done;
  Epoch* next = nullptr;
};

SendEpochs::SendEpochs() : current_(new Epoch(1)) {}

SendEpochs::~SendEpochs() {
  delete current_;
}

SendEpochs::Epoch* SendEpochs::join() {
  std::lock_guard lock(mutex_);
  ++current_->joined;
  return current_;
}

void SendEpochs::complete(Epoch* epoch, const Status& status) {
  if (!status.ok()) {
    std::lock_guard lock(epoch->failureMutex);
    if (epoch->firstFailure.ok()) epoch->firstFailure = status;
  }
  // acq_rel: the failure written above is seen by whoever finishes the epoch.
  if (epoch->balance.fetch_add(1, std::memory_order_acq_rel) == -1) openGate(epoch);
}

void SendEpochs::flush(Callback<> done) {
  Epoch* closing = nullptr;
  std::int64_t joined = 0;
  {
    std::lock_guard lock(mutex_);
    closing = current_;
    joined = closing->joined;
    closing->done = std::move(done);
    closing->next = new Epoch(2);
    current_ = closing->next;
  }
  if (closing->balance.fetch_sub(joined, std::memory_order_acq_rel) == joined) openGate(closing);
}

void SendEpochs::openGate(Epoch* epoch) {
  while (epoch != nullptr && epoch->gates.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    Epoch* next = epoch->next;
    auto done = std::move(epoch->done);
    auto status = std::move(epoch->firstFailure);
    delete epoch;
    if (done) done(status);
    epoch = next;
  }
}

}  // namespace reconsume::detail::client
