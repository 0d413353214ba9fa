// Waiting for a subscription's backlog as the broker reports it. The admin API's statistics have
// no event to wait on, and the broker applies an acknowledgement a moment after the client let it
// go (Java's are grouped and sent on close), so a test polls until the figure it expects appears.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

namespace reconsume::integration {

// Polls `admin.subscriptions(topic)` (reconsume::Admin or the admin backend) until the backlog of
// `subscription` is `expected` or `timeout` passed; returns the last backlog seen (-1 when the
// subscription was never listed), which the caller compares with `expected`.
template <class AdminLike>
std::int64_t awaitBacklog(AdminLike& admin, const std::string& topic,
                          const std::string& subscription, std::int64_t expected,
                          std::chrono::milliseconds timeout = std::chrono::seconds(15)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::int64_t backlog = -1;
  for (;;) {
    for (const auto& stats : admin.subscriptions(topic)) {
      if (stats.name == subscription) backlog = stats.backlog;
    }
    if (backlog == expected || std::chrono::steady_clock::now() >= deadline) return backlog;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // polling: there is no event
  }
}

}  // namespace reconsume::integration
