#include "common/sync_call.hpp"

#include <string>

namespace reconsume::detail {

void refuseOnIoThread(const BlockingCall& call) {
  // True only inside run() of this very context: a user's own executor, even one running on a
  // thread of its own pool, is not refused.
  if (!call.io.get_executor().running_in_this_thread()) return;
  std::string instead = call.asyncForm.empty() ? "call it from a thread of your own"
                                               : "use " + std::string(call.asyncForm) +
                                                     ", or call it from a thread "
                                                     "of your own";
  throw Error(errc::would_deadlock, std::string(call.name) +
                                        " called on the client's I/O thread (from an async "
                                        "handler): it would wait for itself; " +
                                        instead);
}

}  // namespace reconsume::detail
