#include "pulsar/connection_pool.hpp"

#include <vector>

namespace reconsume::detail::pulsar {

ConnectionPool::ConnectionPool(IoExecutor executor,
                               std::shared_ptr<const ConnectionOptions> options)
    : executor_(std::move(executor)), options_(std::move(options)) {}

std::shared_ptr<Connection> ConnectionPool::get(const BrokerAddress& address) {
  std::shared_ptr<Connection> connection;
  bool closeAtOnce = false;
  {
    std::lock_guard lock(mutex_);
    auto& slot = connections_[address.key()];
    if (!slot || (!slot->usable() && !closed_)) {
      slot = Connection::create(executor_, address, options_);
      closeAtOnce = closed_;
    }
    connection = slot;
  }
  if (closeAtOnce) connection->close();
  return connection;
}

void ConnectionPool::close() {
  std::vector<std::shared_ptr<Connection>> all;
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    for (auto& [key, connection] : connections_) all.push_back(connection);
  }
  for (auto& connection : all) connection->close();
}

}  // namespace reconsume::detail::pulsar
