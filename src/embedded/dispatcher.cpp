#include "embedded/dispatcher.hpp"

namespace reconsume::detail::embedded {

std::unique_ptr<Dispatcher> makeSingleActiveDispatcher(std::string topic, int partition);
std::unique_ptr<Dispatcher> makeSharedDispatcher(const Cursor& cursor);
std::unique_ptr<Dispatcher> makeKeySharedDispatcher(const Cursor& cursor, const Ledger& ledger);

std::unique_ptr<Dispatcher> makeDispatcher(SubscriptionType type, const std::string& topic,
                                           int partition, const Cursor& cursor,
                                           const Ledger& ledger) {
  switch (type) {
    case SubscriptionType::exclusive:
    case SubscriptionType::failover:
      return makeSingleActiveDispatcher(topic, partition);
    case SubscriptionType::shared:
      return makeSharedDispatcher(cursor);
    case SubscriptionType::keyShared:
      return makeKeySharedDispatcher(cursor, ledger);
  }
  return makeSharedDispatcher(cursor);
}

}  // namespace reconsume::detail::embedded
