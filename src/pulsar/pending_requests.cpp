#include "pulsar/pending_requests.hpp"

namespace reconsume::detail::pulsar {

bool PendingRequests::add(std::uint64_t id, TimePoint now, std::chrono::milliseconds timeout,
                          std::string what, ResponseCallback callback, bool failFast) {
  if (byId_.contains(id)) return false;
  auto position = byDeadline_.emplace(now + timeout, id);
  byId_.emplace(id, Entry{timeout, std::move(what), std::move(callback), position, failFast});
  return true;
}

bool PendingRequests::extend(std::uint64_t id, TimePoint deadline,
                             std::chrono::milliseconds timeout) {
  auto found = byId_.find(id);
  if (found == byId_.end()) return false;
  byDeadline_.erase(found->second.byDeadline);
  found->second.byDeadline = byDeadline_.emplace(deadline, id);
  found->second.timeout = timeout;
  return true;
}

std::optional<ResponseCallback> PendingRequests::take(std::uint64_t id) {
  auto found = byId_.find(id);
  if (found == byId_.end()) return std::nullopt;
  auto callback = std::move(found->second.callback);
  byDeadline_.erase(found->second.byDeadline);
  byId_.erase(found);
  return callback;
}

std::vector<PendingRequests::Completion> PendingRequests::expire(TimePoint now) {
  std::vector<Completion> expired;
  while (!byDeadline_.empty() && byDeadline_.begin()->first <= now) {
    auto id = byDeadline_.begin()->second;
    auto found = byId_.find(id);
    Response response;
    response.status =
        Status(errc::timeout, found->second.what + " (request " + std::to_string(id) +
                                  ") got no answer within " +
                                  std::to_string(found->second.timeout.count()) + " ms");
    expired.push_back({std::move(found->second.callback), std::move(response), id});
    byDeadline_.erase(byDeadline_.begin());
    byId_.erase(found);
  }
  return expired;
}

std::vector<PendingRequests::Completion> PendingRequests::takeFailFast(const Status& status) {
  std::vector<Completion> taken;
  for (auto it = byDeadline_.begin(); it != byDeadline_.end();) {
    auto found = byId_.find(it->second);
    if (!found->second.failFast) {
      ++it;
      continue;
    }
    Response response;
    response.status = Status(status.code, found->second.what + ": " + status.message);
    taken.push_back({std::move(found->second.callback), std::move(response), it->second});
    byId_.erase(found);
    it = byDeadline_.erase(it);
  }
  return taken;
}

std::vector<PendingRequests::Completion> PendingRequests::takeAll(const Status& status) {
  std::vector<Completion> all;
  all.reserve(byId_.size());
  // In deadline order, which is close to the order they were made in.
  for (auto& [deadline, id] : byDeadline_) {
    auto found = byId_.find(id);
    Response response;
    response.status = Status(status.code, found->second.what + ": " + status.message);
    response.status.retriesExhausted = status.retriesExhausted;
    all.push_back({std::move(found->second.callback), std::move(response), id});
  }
  byDeadline_.clear();
  byId_.clear();
  return all;
}

std::optional<PendingRequests::TimePoint> PendingRequests::nextDeadline() const {
  if (byDeadline_.empty()) return std::nullopt;
  return byDeadline_.begin()->first;
}

}  // namespace reconsume::detail::pulsar
