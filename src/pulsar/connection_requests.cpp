// The operations of a Connection (requests, frames, listeners, close): each posted to the
// strand, where the loop and the sessions live.
#include <algorithm>
#include <boost/asio/post.hpp>

#include "protocol/commands.hpp"
#include "protocol/frame_encoder.hpp"
#include "protocol/server_error.hpp"
#include "pulsar/connection.hpp"
#include "pulsar/connection_session.hpp"

namespace reconsume::detail::pulsar {

namespace asio = boost::asio;

// ----- operations -------------------------------------------------------------------------------

void Connection::request(std::uint64_t requestId, const proto::BaseCommand& command,
                         std::string what, ResponseCallback done,
                         std::optional<std::chrono::milliseconds> timeout, bool failFast) {
  std::string bytes = protocol::encodeFrame(command);
  asio::post(strand_, [self = shared_from_this(), requestId, bytes = std::move(bytes), failFast,
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
    auto now = self->now();
    bool up = self->current_ && self->current_->up;
    // Backing off after a failed attempt: say so now rather than after the next one.
    if (failFast && !up && self->running_ && self->failuresInARow_ > 0) {
      Response response;
      response.status = Status(self->lastFailure_.code, what + ": " + self->lastFailure_.message);
      return done(std::move(response));
    }
    if (self->current_ && self->current_->up) {
      self->pending_.add(requestId, now, timeout, std::move(what), std::move(done), failFast);
      self->armRequestTimer();
      self->write(*self->current_, bytes);
    } else {
      // Connecting is bounded by connectionTimeout, whatever the request's own timeout.
      self->pending_.add(requestId, now, std::min(timeout, self->options_->connectionTimeout),
                         std::move(what), std::move(done), failFast);
      self->armRequestTimer();
      self->unsent_.push_back({requestId, std::move(bytes), now, timeout});
      self->startIfNeeded();
    }
  });
}

void Connection::send(std::uint64_t session, std::string frame) {
  asio::post(strand_, [self = shared_from_this(), session, frame = std::move(frame)] {
    if (self->current_ && self->current_->id == session) self->write(*self->current_, frame);
  });
}

void Connection::send(std::uint64_t session, std::vector<Bytes> frames) {
  asio::post(strand_, [self = shared_from_this(), session, frames = std::move(frames)]() mutable {
    if (self->current_ && self->current_->id == session) self->write(*self->current_, frames);
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

void Connection::abandon(std::uint64_t requestId, Status why) {
  asio::post(strand_, [self = shared_from_this(), requestId, why = std::move(why)] {
    auto done = self->pending_.take(requestId);
    if (!done) return;
    self->takeUnsent(requestId);
    self->armRequestTimer();
    Response response;
    response.status = why;
    (*done)(std::move(response));
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

std::optional<Connection::Unsent> Connection::takeUnsent(std::uint64_t id) {
  auto found = std::find_if(unsent_.begin(), unsent_.end(),
                            [id](const Unsent& unsent) { return unsent.id == id; });
  if (found == unsent_.end()) return std::nullopt;
  auto unsent = std::move(*found);
  unsent_.erase(found);
  return unsent;
}

Status Connection::unreachable(std::chrono::milliseconds waited) const {
  auto within = " within " + std::to_string(waited.count()) + " ms";
  Status status(errc::connection_lost,
                lastFailure_.ok() ? "no connection to " + address_.physical + within
                                  : lastFailure_.message + " (no connection" + within + ")");
  status.retriesExhausted = true;
  return status;
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
  requestTimer_.expiresAt(*next);
  requestTimer_.asyncWait([weak = weak_from_this()](boost::system::error_code ec) {
    if (ec == asio::error::operation_aborted) return;
    auto self = weak.lock();
    if (!self) return;
    self->requestTimerAt_.reset();
    auto expired = self->pending_.expire(self->now());
    for (auto& completion : expired) {
      if (auto unsent = self->takeUnsent(completion.id)) {
        // Never sent: no session came up in time (within the connection timeout, or the
        // request's own when shorter). The broker is the news, not the request.
        completion.response.status =
            self->unreachable(std::min(unsent->timeout, self->options_->connectionTimeout));
      } else if (!self->lastFailure_.ok()) {
        // A request that timed out because no session came up says why.
        completion.response.status.message += " (the connection to " + self->describe() +
                                              " is down: " + self->lastFailure_.message + ")";
      }
    }
    self->armRequestTimer();
    for (auto& completion : expired) completion();
  });
}

}  // namespace reconsume::detail::pulsar
