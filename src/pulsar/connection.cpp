#include "pulsar/connection.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "common/awaitable_tuple.hpp"
#include "protocol/commands.hpp"
#include "protocol/frame_decoder.hpp"
#include "protocol/frame_encoder.hpp"
#include "protocol/server_error.hpp"
#include "pulsar/connection_session.hpp"

// GCC 12 warns that Asio's coroutine frames are freed by a mismatched operator delete; Asio
// allocates and frees them with its own matching pair (a known false positive).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace reconsume::detail::pulsar {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;
constexpr std::size_t kReadChunk = 64 * 1024;

std::shared_ptr<Connection> Connection::create(IoExecutor executor, BrokerAddress address,
                                               std::shared_ptr<const ConnectionOptions> options) {
  return std::shared_ptr<Connection>(
      new Connection(std::move(executor), std::move(address), std::move(options)));
}

Connection::Connection(IoExecutor executor, BrokerAddress address,
                       std::shared_ptr<const ConnectionOptions> options)
    : address_(std::move(address)),
      options_(std::move(options)),
      strand_(asio::make_strand(executor)),
      reconnects_(options_->metrics
                      ? options_->metrics->counter(metrics::kReconnects,
                                                   {{metrics::kServer, address_.key()}})
                      : nullptr),
      backoff_(options_->backoff),
      wake_(strand_),
      sleepTimer_(strand_, options_->clock),
      requestTimer_(strand_, options_->clock) {}

Connection::~Connection() = default;

// ----- the loop ---------------------------------------------------------------------------------

void Connection::startIfNeeded() {
  if (running_ || closed_ || !wanted()) {
    if (running_) wake_.cancel();
    return;
  }
  running_ = true;
  asio::co_spawn(strand_, run(), asio::detached);
}

asio::awaitable<void> Connection::run() {
  auto self = shared_from_this();  // the loop keeps the connection alive until close()
  while (!closed_) {
    if (!wanted()) {
      wake_.expires_at(Clock::time_point::max());
      co_await wake_.async_wait(asTuple);
      continue;
    }
    auto session = std::make_shared<Session>(strand_, address_, *options_);
    current_ = session;
    Status status = co_await establish(session);
    if (closed_) {
      session->stream.close();
      break;
    }
    if (!status.ok()) {
      current_.reset();
      session->stream.close();
      connectFailed(status);
      if (!usable_) break;
      co_await sleep(backoff_.next());
      continue;
    }
    backoff_.reset();
    failuresInARow_ = 0;
    sessionUp(session);
    asio::co_spawn(strand_, writeLoop(session), asio::detached);
    asio::co_spawn(strand_, healthLoop(session), asio::detached);
    Status why = co_await readLoop(session);
    endSession(session, why);
    if (!closed_) co_await sleep(backoff_.next());
  }
  running_ = false;
}

asio::awaitable<void> Connection::sleep(std::chrono::milliseconds duration) {
  sleepTimer_.expiresAfter(duration);
  co_await sleepTimer_.asyncWait(asTuple);
}

// A member rather than a lambda in establish(): a lambda kept in a coroutine's frame makes GCC warn
// that the frame's type has a field of a type with no linkage (-Wsubobject-linkage).
Status Connection::connectTimedOut() const {
  return Status(errc::connection_lost, "no connection to " + address_.physical + " within " +
                                           std::to_string(options_->connectionTimeout.count()) +
                                           " ms");
}

asio::awaitable<Status> Connection::establish(std::shared_ptr<Session> session) {
  // The whole attempt — resolve, connect, TLS, CONNECT/CONNECTED — within connectionTimeout.
  // The watchdog's handler may already be queued when the attempt ends, so it shares what it
  // touches instead of pointing into this frame.
  auto timedOut = std::make_shared<bool>(false);
  Timer watchdog(strand_, options_->clock);
  watchdog.expiresAfter(options_->connectionTimeout);
  watchdog.asyncWait([timedOut, session](boost::system::error_code ec) {
    if (ec || session->up) return;
    *timedOut = true;
    session->stream.close();
  });
  Status status = co_await session->stream.open();
  if (*timedOut) co_return connectTimedOut();
  if (!status.ok()) {
    watchdog.cancel();
    co_return status;
  }
  Handshake handshake(options_->credentials,
                      address_.throughProxy() ? address_.logical : std::string());
  std::string out;
  status = handshake.start(out);
  if (status.ok()) status = co_await session->stream.write(out);
  while (status.ok()) {
    auto result = session->decoder.next();
    if (result.hasError()) {
      status = Status(errc::connection_lost, "the handshake with " + address_.physical +
                                                 " failed: " + result.error().message);
      break;
    }
    if (result.hasFrame()) {
      auto step = handshake.onFrame(result.frame());
      if (!step.write.empty()) {
        if (auto written = co_await session->stream.write(step.write); !written.ok()) {
          status = written;
          break;
        }
      }
      if (!step.status.ok()) {
        status = step.status;
        break;
      }
      if (step.connected) {
        session->protocolVersion = step.connected->protocolVersion;
        maxMessageSize_ = step.connected->maxMessageSize;
        session->decoder.setMaxMessageSize(step.connected->maxMessageSize);
        if (everConnected_ && reconnects_) reconnects_->add();
        everConnected_ = true;
        options_->log.debug("connected to " + describe() + " (broker " +
                            step.connected->serverVersion + ", protocol " +
                            std::to_string(step.connected->protocolVersion) + ")");
        break;
      }
      continue;
    }
    Status readStatus;
    auto room = session->decoder.prepare(kReadChunk);
    auto n = co_await session->stream.readSome(room, readStatus);
    if (!readStatus.ok()) {
      status = readStatus;
      break;
    }
    session->decoder.commit(n);
  }
  watchdog.cancel();
  if (*timedOut) co_return connectTimedOut();
  if (!status.ok() && status.code != make_error_code(errc::authentication) &&
      status.message.find(address_.physical) == std::string::npos) {
    status.message = address_.physical + ": " + status.message;
  }
  co_return status;
}

void Connection::connectFailed(const Status& status) {
  lastFailure_ = status;
  ++failuresInARow_;
  bool fatal = status.code == make_error_code(errc::authentication) ||
               status.code == make_error_code(errc::unsupported);
  if (fatal) {
    // Reconnecting does not fix a refused certificate or token: whoever waits is told now.
    options_->log.error("cannot connect to " + describe() + ": " + status.message);
    usable_ = false;
    failAll(status);
    return;
  }
  auto failFast = pending_.takeFailFast(status);
  if (!failFast.empty()) {
    std::erase_if(unsent_, [&](const Unsent& request) { return !pending_.contains(request.id); });
    armRequestTimer();
    for (auto& completion : failFast) completion();
  }
  if (failuresInARow_ == 1) {
    options_->log.warn("cannot connect to " + describe() + ": " + status.message +
                       " (retrying while requests wait)");
  } else {
    options_->log.debug("connection attempt " + std::to_string(failuresInARow_) + " to " +
                        describe() + " failed: " + status.message);
  }
}

void Connection::sessionUp(const std::shared_ptr<Session>& session) {
  session->id = ++lastSession_;
  session->up = true;
  session->health.start(now());
  lastFailure_ = {};
  // Requests made while no session was up go out first, in the order they were made.
  for (auto& unsent : unsent_) {
    if (!pending_.extend(unsent.id, unsent.madeAt + unsent.timeout, unsent.timeout)) continue;
    session->outbox.add(unsent.bytes);
  }
  unsent_.clear();
  armRequestTimer();
  if (!session->outbox.empty()) session->writeWake.cancel();
}

void Connection::endSession(std::shared_ptr<Session> session, const Status& why) {
  if (session->ended) return;
  session->ended = true;
  session->stream.close();
  session->writeWake.cancel();
  session->healthTimer.cancel();
  if (current_ == session) current_.reset();
  if (!session->up) return;
  bool closing = why.code == make_error_code(errc::closed);
  if (!closing) options_->log.warn("connection to " + describe() + " lost: " + why.message);
  Status lost = closing ? why
                        : Status(errc::connection_lost, "the connection to " + describe() +
                                                            " was lost (" + why.message + ")");
  auto listeners = std::move(listeners_);
  listeners_.clear();
  for (auto& completion : pending_.takeAll(lost)) completion();
  armRequestTimer();
  for (auto& [key, weak] : listeners) {
    if (auto listener = weak.lock()) listener->onSessionLost(session->id, lost);
  }
}

// ----- reading, writing, keep-alive -------------------------------------------------------------

asio::awaitable<Status> Connection::readLoop(std::shared_ptr<Session> session) {
  for (;;) {
    // Frames already buffered (the handshake may have read past CONNECTED) come first.
    for (;;) {
      auto result = session->decoder.next();
      if (result.needsMore()) break;
      if (result.hasError()) {
        if (routeCorrupt(result.error())) continue;
        co_return Status(errc::protocol_error,
                         "corrupt frame from " + address_.physical + ": " + result.error().message);
      }
      dispatch(*session, std::move(result.frame()));
      if (session->ended) co_return Status(errc::connection_lost, "session ended");
    }
    Status status;
    auto room = session->decoder.prepare(kReadChunk);
    auto n = co_await session->stream.readSome(room, status);
    if (session->ended) co_return Status(errc::connection_lost, "session ended");
    if (!status.ok()) co_return status;
    session->decoder.commit(n);
    session->health.onRead(now());
  }
}

asio::awaitable<void> Connection::writeLoop(std::shared_ptr<Session> session) {
  std::vector<Bytes> writing;
  while (!session->ended) {
    if (session->outbox.empty()) {
      session->writeWake.expires_at(Clock::time_point::max());
      co_await session->writeWake.async_wait(asTuple);
      continue;
    }
    session->outbox.takeInto(writing);
    session->writing = true;
    Status status = co_await session->stream.write(writing);
    session->writing = false;
    writing.clear();  // the frames' buffers go back to their owners (or are freed)
    if (!status.ok()) {
      if (!session->ended) endSession(session, status);
      co_return;
    }
  }
}

asio::awaitable<void> Connection::healthLoop(std::shared_ptr<Session> session) {
  while (!session->ended) {
    session->healthTimer.expiresAt(session->health.nextCheck());
    co_await session->healthTimer.asyncWait(asTuple);
    if (session->ended) co_return;
    switch (session->health.check(now())) {
      case HealthCheck::Action::ping:
        write(*session, protocol::encodeFrame(protocol::ping()));
        break;
      case HealthCheck::Action::dead:
        endSession(session,
                   Status(errc::connection_lost,
                          "nothing received for " +
                              std::to_string(session->health.silence(now()).count()) +
                              " ms (keep-alive interval " +
                              std::to_string(session->health.interval().count()) + " ms)"));
        co_return;
      case HealthCheck::Action::none:
        break;
    }
  }
}

void Connection::write(Session& session, std::string_view bytes) {
  if (!session.up || session.ended) return;
  bool wasEmpty = session.outbox.empty();
  session.outbox.add(bytes);
  if (wasEmpty && !session.writing) session.writeWake.cancel();
}

void Connection::write(Session& session, std::vector<Bytes>& frames) {
  if (!session.up || session.ended) return;
  bool wasEmpty = session.outbox.empty();
  for (auto& frame : frames) session.outbox.add(std::move(frame));
  if (wasEmpty && !session.writing) session.writeWake.cancel();
}

}  // namespace reconsume::detail::pulsar
