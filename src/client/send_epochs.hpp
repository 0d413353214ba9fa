// What Producer::flush waits for: every send started before the flush, and nothing started after.
//
// Sends are counted in epochs: the sends between two flushes make one. A flush closes the
// current epoch and opens the next; it completes once its epoch and every epoch before it have no
// send left — with the first failure among its own epoch's sends (those started since the
// previous flush), so that each failure is reported to one flush only. Sends complete in any order
// (a refusal at once, a receipt much later), which is why a count of completions alone would not
// do: a later send that failed at once would count for an earlier one still on the wire.
//
// An epoch lives until it was closed, its last send completed and the epoch before it was done.
// Whoever sees the last of these frees it and runs its flush's callback (on its thread: a send's
// completion, or the flush itself), then tells the next epoch. A send costs no count that both
// the sending thread and the completing one write (send_epochs.cpp).
//
// Thread safety: every member may be called from any thread. join() and flush() take a short lock
// of their own; complete() takes none unless the send failed. The callback runs with no lock held.
#pragma once

#include <atomic>
#include <mutex>

#include "common/callback.hpp"
#include "common/status.hpp"

namespace reconsume::detail::client {

class SendEpochs {
 public:
  class Epoch;

  SendEpochs();
  // Every epoch left is open and has no send in flight (each send holds its producer's record,
  // which holds this).
  ~SendEpochs();
  SendEpochs(const SendEpochs&) = delete;
  SendEpochs& operator=(const SendEpochs&) = delete;

  // A send starts: counted in the current epoch, which it hands back to complete() exactly once.
  Epoch* join();
  // That send completed with `status`.
  static void complete(Epoch* epoch, const Status& status);
  // Closes the current epoch: `done` runs once every send joined before this call completed, with
  // the first failure of those joined since the previous flush.
  void flush(Callback<> done);

 private:
  // One of an epoch's two conditions holds (its sends done, the epoch before it done).
  static void openGate(Epoch* epoch);

  std::mutex mutex_;
  Epoch* current_;
};

}  // namespace reconsume::detail::client
