// The requests of one connection that wait for the broker's answer, keyed by request id: one
// table for every command that has a request id (lookups, PRODUCER, SUBSCRIBE, SEEK, ACK with a
// receipt, ...), each with a deadline.
//
// Every request leaves the table exactly once — answered (take), timed out (expire) or abandoned
// with the connection (takeAll) — so its callback runs exactly once. The table never runs a
// callback itself: it hands them out, and the connection runs them outside any lock.
//
// Thread safety: not synchronised; the connection uses it from its strand only.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "PulsarApi.pb.h"
#include "common/status.hpp"

namespace reconsume::detail::pulsar {

// The broker's answer to a request (its command), or why there is none.
struct Response {
  Status status;
  proto::BaseCommand command;
  std::uint64_t session{0};  // the connection's session the answer came on
};
using ResponseCallback = std::function<void(Response)>;

class PendingRequests {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  // A callback ready to run with its response.
  struct Completion {
    ResponseCallback callback;
    Response response;
    std::uint64_t id{0};  // the request's id
    void operator()() { callback(std::move(response)); }
  };

  // Waits for the answer to request `id` until `now + timeout`. `what` names the request in a
  // timeout's text ("LOOKUP persistent://public/default/t"). Returns false (and keeps nothing)
  // when `id` is already waiting.
  // `failFast`: the request also fails when an attempt to connect fails (takeFailFast).
  bool add(std::uint64_t id, TimePoint now, std::chrono::milliseconds timeout, std::string what,
           ResponseCallback callback, bool failFast = false);

  // Request `id` now waits until `deadline`, its timeout reported as `timeout` (a request that
  // waited for a session with a shorter deadline gets its own back once it is sent). False when
  // it is not waiting.
  bool extend(std::uint64_t id, TimePoint deadline, std::chrono::milliseconds timeout);

  // The callback of request `id` (removed from the table), or nothing when it is not waiting
  // (never sent by us, answered before, or timed out already).
  std::optional<ResponseCallback> take(std::uint64_t id);

  // Every request whose deadline is at or before `now`, with an errc::timeout response naming it
  // and the time it was given.
  std::vector<Completion> expire(TimePoint now);

  // The requests added with `failFast`, with `status`: an attempt to connect failed.
  std::vector<Completion> takeFailFast(const Status& status);

  // Every request, with `status`: the connection was lost or closed.
  std::vector<Completion> takeAll(const Status& status);

  bool contains(std::uint64_t id) const { return byId_.contains(id); }
  std::optional<TimePoint> nextDeadline() const;
  std::size_t size() const { return byId_.size(); }
  bool empty() const { return byId_.empty(); }

 private:
  struct Entry {
    std::chrono::milliseconds timeout;
    std::string what;
    ResponseCallback callback;
    std::multimap<TimePoint, std::uint64_t>::iterator byDeadline;
    bool failFast{false};
  };
  std::unordered_map<std::uint64_t, Entry> byId_;
  std::multimap<TimePoint, std::uint64_t> byDeadline_;
};

}  // namespace reconsume::detail::pulsar
