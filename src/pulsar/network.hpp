// What every producer and consumer of one pulsar:// backend shares: the I/O executor, the
// connection pool, the lookup, the options and the id counters.
//
// Thread safety: immutable after construction except the atomics.
#pragma once

#include <atomic>
#include <memory>

#include "common/log.hpp"
#include "pulsar/connection_pool.hpp"
#include "pulsar/lookup.hpp"
#include "pulsar/strand.hpp"

namespace reconsume::detail::pulsar {

struct Network {
  explicit Network(IoExecutor executor) : executor(std::move(executor)) {}

  IoExecutor executor;
  std::shared_ptr<const ConnectionOptions> options;
  std::shared_ptr<ConnectionPool> pool;
  std::shared_ptr<Lookup> lookup;
  Log log;
  // Producer and consumer ids are unique per backend, so one is never reused on any connection.
  std::atomic<std::uint64_t> lastProducerId{0};
  std::atomic<std::uint64_t> lastConsumerId{0};
  std::atomic<bool> closed{false};

  std::chrono::milliseconds operationTimeout() const { return options->operationTimeout; }
  const std::shared_ptr<SteadyClock>& clock() const { return options->clock; }
};

}  // namespace reconsume::detail::pulsar
