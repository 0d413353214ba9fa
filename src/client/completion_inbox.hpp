// Where the public API's async operations finish: each completion is queued here and run on the
// client's I/O context, in bursts. A completion posted on its own costs an allocation and a pass
// through the I/O context's queue (and, from another thread, often a wake-up of the I/O thread);
// a burst of sends confirmed by one receipt, or of acknowledgements completed at once by the
// grouping, now costs one post.
//
// A queued function gets the context it runs on, so that a Completion can run its handler right
// there (Completion::completeOn) when its executor is that context's own. The drain runs no
// library lock while it calls them, and it is always a posted function: a handler never runs
// inside the call that started its operation.
//
// Thread safety: add() from any thread.
#pragma once

#include <boost/asio/io_context.hpp>
#include <mutex>
#include <vector>

#include "common/inline_function.hpp"
#include "common/strand_inbox.hpp"

namespace reconsume::detail::client {

class CompletionInbox {
 public:
  // Room for a shared Completion, its error code and a MessageId without a heap allocation.
  using Run = InlineFunction<void(boost::asio::io_context&), 96>;

  // `io` must outlive every drain posted to it (its owner destroys the inbox first: drains still
  // queued in the context are then destroyed without running).
  explicit CompletionInbox(boost::asio::io_context& io) : io_(io) {}

  void add(Run run);

 private:
  void drain();

  boost::asio::io_context& io_;
  StrandInbox<Run> inbox_;
  // The capacity of the last drain's list, handed to the next; two drains may run at once on a
  // client with several I/O threads, so each takes it under the lock.
  std::mutex spareMutex_;
  std::vector<Run> spare_;
};

}  // namespace reconsume::detail::client
