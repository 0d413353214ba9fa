#include "client/completion_inbox.hpp"

#include <boost/asio/post.hpp>

namespace reconsume::detail::client {

void CompletionInbox::add(Run run) {
  if (inbox_.push(std::move(run))) boost::asio::post(io_, [this] { drain(); });
}

void CompletionInbox::drain() {
  std::vector<Run> running;
  {
    std::lock_guard lock(spareMutex_);
    running.swap(spare_);
  }
  inbox_.take(running);
  for (auto& run : running) run(io_);
  running.clear();
  std::lock_guard lock(spareMutex_);
  if (running.capacity() > spare_.capacity()) running.swap(spare_);
}

}  // namespace reconsume::detail::client
