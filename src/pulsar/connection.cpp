#include "pulsar/connection.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "protocol/commands.hpp"
#include "protocol/frame_decoder.hpp"
#include "protocol/frame_encoder.hpp"
#include "protocol/server_error.hpp"
#include "pulsar/byte_stream.hpp"
#include "pulsar/health_check.hpp"

namespace reconsume::detail::pulsar {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;
constexpr auto tuple = asio::as_tuple(asio::use_awaitable);
constexpr std::size_t kReadChunk = 64 * 1024;

struct Connection::Session {
  Session(asio::any_io_executor executor, const BrokerAddress& address,
          const ConnectionOptions& options)
      : stream(executor, address, options.tls, options.verifyHostname),
        writeWake(executor),
        healthTimer(executor),
        health(options.keepAliveInterval) {}

  std::uint64_t id = 0;
  ByteStream stream;
  protocol::FrameDecoder decoder;
  std::string outbox;  // frames waiting for the writer
  asio::steady_timer writeWake;
  asio::steady_timer healthTimer;
  HealthCheck health;
  int protocolVersion = protocol::kProtocolVersion;
  bool up = false;
  bool ended = false;
  bool writing = false;
};

std::shared_ptr<Connection> Connection::create(asio::any_io_executor executor,
                                               BrokerAddress address,
                                               std::shared_ptr<const ConnectionOptions> options) {
  return std::shared_ptr<Connection>(
      new Connection(std::move(executor), std::move(address), std::move(options)));
}

Connection::Connection(asio::any_io_executor executor, BrokerAddress address,
                       std::shared_ptr<const ConnectionOptions> options)
    : address_(std::move(address)),
      options_(std::move(options)),
      strand_(asio::make_strand(executor)),
      backoff_(options_->backoff),
      wake_(strand_),
      sleepTimer_(strand_),
      requestTimer_(strand_) {}

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
      co_await wake_.async_wait(tuple);
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
  sleepTimer_.expires_after(duration);
  co_await sleepTimer_.async_wait(tuple);
}

asio::awaitable<Status> Connection::establish(std::shared_ptr<Session> session) {
  // The whole attempt — resolve, connect, TLS, CONNECT/CONNECTED — within connectionTimeout.
  // The watchdog's handler may already be queued when the attempt ends, so it shares what it
  // touches instead of pointing into this frame.
  auto timedOut = std::make_shared<bool>(false);
  asio::steady_timer watchdog(strand_);
  watchdog.expires_after(options_->connectionTimeout);
  watchdog.async_wait([timedOut, session](boost::system::error_code ec) {
    if (ec || session->up) return;
    *timedOut = true;
    session->stream.close();
  });
  auto timeout = [&] {
    return Status(errc::connection_lost, "no connection to " + address_.physical + " within " +
                                             std::to_string(options_->connectionTimeout.count()) +
                                             " ms");
  };

  Status status = co_await session->stream.open();
  if (*timedOut) co_return timeout();
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
  if (*timedOut) co_return timeout();
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
  session->health.start(Clock::now());
  lastFailure_ = {};
  // Requests made while no session was up go out first, in the order they were made.
  for (auto& [id, bytes] : unsent_) {
    if (pending_.contains(id)) session->outbox += bytes;
  }
  unsent_.clear();
  if (!session->outbox.empty()) session->writeWake.cancel();
}

void Connection::endSession(const std::shared_ptr<Session>& session, const Status& why) {
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
    session->health.onRead(Clock::now());
  }
}

asio::awaitable<void> Connection::writeLoop(std::shared_ptr<Session> session) {
  std::string writing;
  while (!session->ended) {
    if (session->outbox.empty()) {
      session->writeWake.expires_at(Clock::time_point::max());
      co_await session->writeWake.async_wait(tuple);
      continue;
    }
    writing.swap(session->outbox);
    session->writing = true;
    Status status = co_await session->stream.write(writing);
    session->writing = false;
    writing.clear();
    if (!status.ok()) {
      if (!session->ended) endSession(session, status);
      co_return;
    }
  }
}

asio::awaitable<void> Connection::healthLoop(std::shared_ptr<Session> session) {
  while (!session->ended) {
    session->healthTimer.expires_at(session->health.nextCheck());
    co_await session->healthTimer.async_wait(tuple);
    if (session->ended) co_return;
    switch (session->health.check(Clock::now())) {
      case HealthCheck::Action::ping:
        write(*session, protocol::encodeFrame(protocol::ping()));
        break;
      case HealthCheck::Action::dead:
        endSession(session,
                   Status(errc::connection_lost,
                          "nothing received for " +
                              std::to_string(session->health.silence(Clock::now()).count()) +
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
  session.outbox.append(bytes);
  if (wasEmpty && !session.writing) session.writeWake.cancel();
}

// ----- frames in --------------------------------------------------------------------------------

void Connection::dispatch(Session& session, protocol::Frame frame) {
  using T = proto::BaseCommand;
  auto& command = frame.command;
  // Ids are read before the command is moved on (argument order is unspecified).
  auto answer = [&](std::uint64_t requestId, Status status) {
    complete(session, requestId, std::move(status), std::move(command));
  };
  auto failedIf = [](bool failed, proto::ServerError error, const std::string& message) {
    return failed ? protocol::serverError(error, message) : Status{};
  };
  switch (command.type()) {
    case T::PING:
      write(session, protocol::encodeFrame(protocol::pong()));
      return;
    case T::PONG:
      return;
    case T::SUCCESS:
      return answer(command.success().request_id(), {});
    case T::ERROR:
      return answer(command.error().request_id(),
                    protocol::serverError(command.error().error(), command.error().message()));
    case T::PRODUCER_SUCCESS:
      // Not ready yet: queued for exclusive access; a second PRODUCER_SUCCESS follows.
      if (!command.producer_success().producer_ready()) return;
      return answer(command.producer_success().request_id(), {});
    case T::LOOKUP_RESPONSE: {
      const auto& response = command.lookuptopicresponse();
      return answer(response.request_id(),
                    failedIf(response.response() == proto::CommandLookupTopicResponse::Failed,
                             response.error(), response.message()));
    }
    case T::PARTITIONED_METADATA_RESPONSE: {
      const auto& response = command.partitionmetadataresponse();
      return answer(
          response.request_id(),
          failedIf(response.response() == proto::CommandPartitionedTopicMetadataResponse::Failed,
                   response.error(), response.message()));
    }
    case T::GET_LAST_MESSAGE_ID_RESPONSE:
      return answer(command.getlastmessageidresponse().request_id(), {});
    case T::GET_TOPICS_OF_NAMESPACE_RESPONSE:
      return answer(command.gettopicsofnamespaceresponse().request_id(), {});
    case T::ACK_RESPONSE: {
      const auto& response = command.ackresponse();
      return answer(response.request_id(),
                    failedIf(response.has_error(), response.error(), response.message()));
    }
    case T::SEND_RECEIPT:
      return route(Kind::producer, command.send_receipt().producer_id(), frame);
    case T::SEND_ERROR:
      return route(Kind::producer, command.send_error().producer_id(), frame);
    case T::CLOSE_PRODUCER:
      return route(Kind::producer, command.close_producer().producer_id(), frame);
    case T::MESSAGE:
      return route(Kind::consumer, command.message().consumer_id(), frame);
    case T::ACTIVE_CONSUMER_CHANGE:
      return route(Kind::consumer, command.active_consumer_change().consumer_id(), frame);
    case T::REACHED_END_OF_TOPIC:
      return route(Kind::consumer, command.reachedendoftopic().consumer_id(), frame);
    case T::CLOSE_CONSUMER:
      return route(Kind::consumer, command.close_consumer().consumer_id(), frame);
    case T::TOPIC_MIGRATED: {
      auto kind = command.topicmigrated().resource_type() == proto::CommandTopicMigrated::Producer
                      ? Kind::producer
                      : Kind::consumer;
      return route(kind, command.topicmigrated().resource_id(), frame);
    }
    case T::AUTH_CHALLENGE: {
      // The broker wants the credentials again (an expiring token): read them afresh.
      std::string out;
      auto status = Handshake::answerChallenge(options_->credentials,
                                               command.authchallenge().protocol_version(), out);
      if (!status.ok()) {
        options_->log.error("cannot answer the authentication challenge of " + describe() + ": " +
                            status.message);
        return;
      }
      write(session, out);
      return;
    }
    default:
      options_->log.debug("ignored " + T::Type_Name(command.type()) + " from " + describe());
      return;
  }
}

void Connection::complete(Session& session, std::uint64_t requestId, Status status,
                          proto::BaseCommand command) {
  auto callback = pending_.take(requestId);
  if (!callback) return;  // timed out before, or not ours
  armRequestTimer();
  Response response;
  response.status = std::move(status);
  response.command = std::move(command);
  response.session = session.id;
  (*callback)(std::move(response));
}

void Connection::route(Kind kind, std::uint64_t id, protocol::Frame& frame) {
  auto found = listeners_.find({kind, id});
  if (found == listeners_.end()) return;  // closed meanwhile: frames for it are moot
  auto listener = found->second.lock();
  if (!listener) {
    listeners_.erase(found);
    return;
  }
  listener->onFrame(std::move(frame));
}

// ----- operations -------------------------------------------------------------------------------

void Connection::request(std::uint64_t requestId, const proto::BaseCommand& command,
                         std::string what, ResponseCallback done,
                         std::optional<std::chrono::milliseconds> timeout) {
  std::string bytes = protocol::encodeFrame(command);
  asio::post(strand_, [self = shared_from_this(), requestId, bytes = std::move(bytes),
                       what = std::move(what), done = std::move(done),
                       timeout = timeout.value_or(options_->operationTimeout)]() mutable {
    if (self->closed_ || !self->usable_) {
      Response response;
      response.status =
          self->lastFailure_.ok() || self->closed_
              ? Status(errc::closed,
                       what + ": the connection to " + self->describe() + " is closed")
              : Status(self->lastFailure_.code, what + ": " + self->lastFailure_.message);
      return done(std::move(response));
    }
    self->pending_.add(requestId, Clock::now(), timeout, std::move(what), std::move(done));
    self->armRequestTimer();
    if (self->current_ && self->current_->up) {
      self->write(*self->current_, bytes);
    } else {
      self->unsent_.emplace_back(requestId, std::move(bytes));
      self->startIfNeeded();
    }
  });
}

void Connection::send(std::uint64_t session, std::string frame) {
  asio::post(strand_, [self = shared_from_this(), session, frame = std::move(frame)] {
    if (self->current_ && self->current_->id == session) self->write(*self->current_, frame);
  });
}

void Connection::attach(Kind kind, std::uint64_t id, std::weak_ptr<Listener> listener) {
  asio::post(strand_, [self = shared_from_this(), kind, id, listener = std::move(listener)] {
    if (self->closed_) {
      if (auto alive = listener.lock()) {
        alive->onSessionLost(
            0, Status(errc::closed, "the connection to " + self->describe() + " is closed"));
      }
      return;
    }
    self->listeners_[{kind, id}] = listener;
    self->startIfNeeded();
  });
}

void Connection::detach(Kind kind, std::uint64_t id) {
  asio::post(strand_, [self = shared_from_this(), kind, id] {
    self->listeners_.erase({kind, id});
  });
}

void Connection::drop(std::uint64_t session, Status why) {
  asio::post(strand_, [self = shared_from_this(), session, why = std::move(why)] {
    if (self->current_ && self->current_->id == session) self->endSession(self->current_, why);
  });
}

void Connection::close() {
  usable_ = false;
  asio::post(strand_, [self = shared_from_this()] {
    if (self->closed_) return;
    self->closed_ = true;
    Status closed(errc::closed, "the connection to " + self->describe() + " is closed");
    if (self->current_) {
      auto session = self->current_;
      if (session->up) {
        self->endSession(session, closed);
      } else {
        session->stream.close();  // establish() sees closed_ and stops
      }
    }
    self->failAll(closed);
    auto listeners = std::move(self->listeners_);
    self->listeners_.clear();
    for (auto& [key, weak] : listeners) {
      if (auto listener = weak.lock()) listener->onSessionLost(0, closed);
    }
    self->wake_.cancel();
    self->sleepTimer_.cancel();
  });
}

void Connection::failAll(const Status& status) {
  unsent_.clear();
  auto completions = pending_.takeAll(status);
  armRequestTimer();
  for (auto& completion : completions) completion();
}

void Connection::armRequestTimer() {
  auto next = pending_.nextDeadline();
  if (!next) {
    if (requestTimerAt_) requestTimer_.cancel();
    requestTimerAt_.reset();
    return;
  }
  if (requestTimerAt_ && *requestTimerAt_ <= *next) return;  // fires earlier and re-arms then
  requestTimerAt_ = next;
  requestTimer_.expires_at(*next);
  requestTimer_.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
    if (ec == asio::error::operation_aborted) return;
    auto self = weak.lock();
    if (!self) return;
    self->requestTimerAt_.reset();
    auto expired = self->pending_.expire(Clock::now());
    for (auto& completion : expired) {
      // A request that timed out because no session came up says why.
      if (!self->lastFailure_.ok()) {
        completion.response.status.message += " (the connection to " + self->describe() +
                                              " is down: " + self->lastFailure_.message + ")";
      }
    }
    self->armRequestTimer();
    for (auto& completion : expired) completion();
  });
}

}  // namespace reconsume::detail::pulsar
