// The non-destructive read of a dead-letter topic: every message the dead-letter subscription has
// not acknowledged (all of them when the subscription does not exist), read with a Reader per
// partition that starts after the subscription's mark-delete position and skips what the
// subscription acknowledged beyond it (Admin::cursor). Nothing on the subscription changes.
//
// Thread safety: one run at a time per Scanner.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

#include "reconsume/admin.hpp"
#include "reconsume/client.hpp"

namespace reconsume::detail::dlq {

struct ScanCounts {
  std::size_t read{0};                 // unacknowledged messages handed to the visitor
  std::size_t withRetryProperties{0};  // of those, the ones carrying a retry property
  bool subscriptionExists{false};      // when the scan started
};

class Scanner {
 public:
  Scanner(Client client, Admin admin, std::string topic, std::string subscription,
          std::chrono::milliseconds readTimeout);

  // Calls `visit` for each unacknowledged message, partition by partition, in stored order,
  // until it returns false. Throws Error(errc::timeout) naming the topic when the broker reports
  // a message that does not arrive within the read timeout; other errors as they come.
  ScanCounts run(const std::function<bool(const Message&)>& visit);

 private:
  // One topic or partition; false when `visit` asked to stop.
  bool runOne(const std::string& topic, int partition, bool subscriptionExists,
              const std::function<bool(const Message&)>& visit, ScanCounts& counts);

  Client client_;
  Admin admin_;
  std::string topic_;
  std::string subscription_;
  std::chrono::milliseconds readTimeout_;
};

}  // namespace reconsume::detail::dlq
