#include <condition_variable>
#include <mutex>
#include <optional>
#include <set>

#include "dlq/picked_receiver.hpp"
#include "dlq/replay.hpp"
#include "reconsume/error.hpp"

namespace reconsume::detail::dlq {

PurgeResult purgePicked(ActionContext& context, const std::vector<DeadLetter>& picked) {
  PurgeResult result;
  result.matched = picked.size();
  if (picked.empty()) return result;
  std::vector<MessageId> ids;
  for (const auto& deadLetter : picked) ids.push_back(deadLetter.id());

  struct Acks {
    std::mutex mutex;
    std::condition_variable done;
    std::size_t outstanding = 0;
    std::vector<MessageId> purged;
    std::size_t failed = 0;
    std::string error;
  };
  auto acks = std::make_shared<Acks>();
  PickedReceiver receiver(context.client, context.topic, context.subscription, ids);
  std::string receiveError;
  for (;;) {
    std::optional<Message> message;
    try {
      message = receiver.next(context.patience);
    } catch (const Error& e) {
      // Reported in the result; what was not acknowledged stays a dead letter.
      receiveError = "receiving from the dead-letter subscription failed: " + std::string(e.what());
      break;
    }
    if (!message) break;
    {
      std::lock_guard lock(acks->mutex);
      ++acks->outstanding;
    }
    receiver.consumer().asyncAcknowledge(
        *message, [acks, id = message->id()](boost::system::error_code ec) {
          {
            std::lock_guard lock(acks->mutex);
            if (ec) {
              ++acks->failed;
              if (acks->error.empty()) {
                acks->error = "acknowledging " + id.toString() + " failed: " + ec.message();
              }
            } else {
              acks->purged.push_back(id);
            }
            --acks->outstanding;
          }
          acks->done.notify_all();
        });
  }
  {
    std::unique_lock lock(acks->mutex);
    acks->done.wait(lock, [&] { return acks->outstanding == 0; });
    result.purged = acks->purged.size();
    result.failed = acks->failed;
    result.error = acks->error.empty() ? receiveError : acks->error;
    // In the order picked, whatever order the acknowledgements completed in.
    std::set<MessageId> done(acks->purged.begin(), acks->purged.end());
    for (const auto& id : ids) {
      if (done.count(id)) result.purgedIds.push_back(id);
    }
  }
  result.missing = receiver.pending().size();
  try {
    receiver.close();
  } catch (const Error&) {
    // The broker gives back what the consumer held either way.
  }
  return result;
}

}  // namespace reconsume::detail::dlq
