// One connection to one broker, for the whole life of the client: a loop that connects (TCP, TLS,
// CONNECT/CONNECTED with the credentials), keeps the session healthy (answers PING, sends its own
// after keepAliveInterval of silence, drops a session silent for twice that), and when the
// session ends, fails what waited on it and connects again — with backoff, and only while someone
// needs the connection. Operations never touch the socket: they queue requests and frames.
//
//   request(): a command with a request id. Its callback runs exactly once: with the broker's
//     answer; errc::timeout after the operation timeout; connection_lost when the session it was
//     sent on ends; closed when the connection is closed; authentication (and others that
//     retrying does not fix) when connecting fails that way. Requests made while no session is up
//     wait for the next one, at most connectionTimeout (or their own timeout when shorter): then
//     they fail with connection_lost naming the broker and the last connection failure, marked
//     Status::retriesExhausted (the connection kept trying meanwhile; callers must not wait
//     another operation timeout).
//   send(): a frame for a session (producers' SEND, consumers' FLOW and ACK...); dropped when that
//     session is over, because ids registered on it mean nothing on the next.
//   attach(): where frames for a producer or consumer id go, until the session ends.
//
// A MESSAGE whose entry is damaged (bad checksum, metadata that does not parse) goes to its
// consumer's listener (onCorruptEntry), which discards it as the Java client does; the session
// goes on (SPEC.md section 5). Any other frame that does not decode (truncated, oversize, a
// command that does not parse) ends the session like a lost connection: the broker then
// redelivers what was not acknowledged.
//
// Thread safety: every public member may be called from any thread; they post to the
// connection's strand. Callbacks and listeners run on that strand with no lock held.
#pragma once

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/bytes.hpp"
#include "common/log.hpp"
#include "common/metrics_registry.hpp"
#include "common/steady_clock.hpp"
#include "protocol/corrupt_entry.hpp"
#include "protocol/frame.hpp"
#include "pulsar/backoff.hpp"
#include "pulsar/broker_address.hpp"
#include "pulsar/handshake.hpp"
#include "pulsar/pending_requests.hpp"
#include "pulsar/strand.hpp"

namespace reconsume::detail::pulsar {

struct ConnectionOptions {
  std::shared_ptr<boost::asio::ssl::context> tls;  // required for pulsar+ssl:// addresses
  bool verifyHostname{true};
  Credentials credentials;
  std::chrono::milliseconds connectionTimeout{10'000};
  std::chrono::milliseconds operationTimeout{30'000};
  std::chrono::milliseconds keepAliveInterval{30'000};
  Backoff::Options backoff;
  Log log;
  // Timeouts, keep-alives and backoffs run on it (tests: a ManualSteadyClock).
  std::shared_ptr<SteadyClock> clock = SteadyClock::real();
  std::shared_ptr<MetricsRegistry> metrics;  // null: none kept (reconnects)
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  class Listener {
   public:
    virtual ~Listener() = default;
    // A frame for the listener's producer or consumer. Runs on the connection's strand: keep it
    // short (post the work elsewhere).
    virtual void onFrame(protocol::Frame frame) = 0;
    // Session `session` ended: the producer or consumer no longer exists on the broker.
    virtual void onSessionLost(std::uint64_t session, const Status& why) = 0;
    // A MESSAGE for the listener's consumer whose entry is damaged (protocol/corrupt_entry.hpp).
    // The session goes on; the consumer discards the entry. Runs on the strand, like onFrame.
    virtual void onCorruptEntry(protocol::CorruptEntry /*entry*/) {}
  };
  enum class Kind { producer, consumer };

  static std::shared_ptr<Connection> create(IoExecutor executor, BrokerAddress address,
                                            std::shared_ptr<const ConnectionOptions> options);
  ~Connection();

  const BrokerAddress& address() const { return address_; }
  std::uint64_t newRequestId() { return ++lastRequestId_; }

  // `command` carries `requestId`. `what` names the request in errors. Default timeout: the
  // options' operationTimeout. A request waits through failed attempts to connect until its
  // timeout — unless `failFast`: then a failed attempt (or one that failed before, while no
  // session is up) ends it at once with that failure (for lookups that may ask another host).
  void request(std::uint64_t requestId, const proto::BaseCommand& command, std::string what,
               ResponseCallback done, std::optional<std::chrono::milliseconds> timeout = {},
               bool failFast = false);
  void send(std::uint64_t session, std::string frame);
  // Frames written by reference, not copied (a producer's entries, which it keeps to write again).
  void send(std::uint64_t session, std::vector<Bytes> frames);
  void attach(Kind kind, std::uint64_t id, std::weak_ptr<Listener> listener);
  void detach(Kind kind, std::uint64_t id);
  // Ends `session` (if it is still the current one) as if the connection broke, for `why`.
  void drop(std::uint64_t session, Status why);
  // Completes request `requestId` now with `why` if it still waits (an answer that will not come:
  // the broker closed the handle it was for); a later answer is ignored.
  void abandon(std::uint64_t requestId, Status why);
  // Fails everything with errc::closed and stops for good.
  void close();

  // The broker's maximum message size, from the last CONNECTED.
  std::uint32_t maxMessageSize() const { return maxMessageSize_; }
  // False once closed, or after a failure that reconnecting does not fix (authentication): the
  // pool then makes a new connection for the next user.
  bool usable() const { return usable_; }

 private:
  struct Session;
  // Requests waiting for a session. Each waits at most connectionTimeout for one (its entry in
  // pending_ has that deadline); once sent, it gets its own timeout back, counted from madeAt.
  struct Unsent {
    std::uint64_t id;
    std::string bytes;
    SteadyClock::time_point madeAt;
    std::chrono::milliseconds timeout;
  };

  Connection(IoExecutor executor, BrokerAddress address,
             std::shared_ptr<const ConnectionOptions> options);
  boost::asio::awaitable<void> run();
  boost::asio::awaitable<Status> establish(std::shared_ptr<Session> session);
  // What establish() returns when connectionTimeout passed first.
  Status connectTimedOut() const;
  boost::asio::awaitable<Status> readLoop(std::shared_ptr<Session> session);
  boost::asio::awaitable<void> writeLoop(std::shared_ptr<Session> session);
  boost::asio::awaitable<void> healthLoop(std::shared_ptr<Session> session);
  boost::asio::awaitable<void> sleep(std::chrono::milliseconds duration);

  SteadyClock::time_point now() const { return options_->clock->now(); }
  bool wanted() const { return !pending_.empty() || !listeners_.empty(); }
  void startIfNeeded();
  void sessionUp(const std::shared_ptr<Session>& session);
  // By value: a caller may pass current_, which this resets.
  void endSession(std::shared_ptr<Session> session, const Status& why);
  void connectFailed(const Status& status);
  void dispatch(Session& session, protocol::Frame frame);
  void complete(Session& session, std::uint64_t requestId, Status status,
                proto::BaseCommand command);
  void route(Kind kind, std::uint64_t id, protocol::Frame& frame);
  // A damaged entry to its consumer; false when the error is not about one entry.
  bool routeCorrupt(const protocol::DecodeError& error);
  void write(Session& session, std::string_view bytes);
  void write(Session& session, std::vector<Bytes>& frames);
  void armRequestTimer();
  // Removes request `id` from unsent_; nothing when it was sent (or was never waiting).
  std::optional<Unsent> takeUnsent(std::uint64_t id);
  // Why a request waited `waited` for a session in vain: the last connection failure, or no
  // session at all.
  Status unreachable(std::chrono::milliseconds waited) const;
  void failAll(const Status& status);
  std::string describe() const { return address_.key(); }

  const BrokerAddress address_;
  const std::shared_ptr<const ConnectionOptions> options_;
  Strand strand_;
  std::atomic<std::uint64_t> lastRequestId_{0};
  std::atomic<std::uint32_t> maxMessageSize_{protocol::kDefaultMaxMessageSize};
  std::atomic<bool> usable_{true};

  // Sessions after the first count as reconnects (null without metrics).
  const std::shared_ptr<Counter> reconnects_;

  // Strand state.
  bool everConnected_ = false;
  bool running_ = false;
  bool closed_ = false;
  Backoff backoff_;
  boost::asio::steady_timer
      wake_;            // an event, not a time: run() waits on it for someone to need it
  Timer sleepTimer_;    // backoff between attempts
  Timer requestTimer_;  // the earliest request deadline
  std::optional<PendingRequests::TimePoint> requestTimerAt_;
  PendingRequests pending_;
  std::deque<Unsent> unsent_;
  std::map<std::pair<Kind, std::uint64_t>, std::weak_ptr<Listener>> listeners_;
  std::shared_ptr<Session> current_;
  std::uint64_t lastSession_ = 0;
  Status lastFailure_;
  int failuresInARow_ = 0;
};

}  // namespace reconsume::detail::pulsar
