#include "client/async_receive.hpp"

#include <boost/asio/post.hpp>

namespace reconsume::detail::client {

AsyncReceive::AsyncReceive(std::shared_ptr<ConsumerImpl> consumer, Finish finish)
    : consumer_(std::move(consumer)), finish_(std::move(finish)) {}

void AsyncReceive::start(std::optional<std::chrono::milliseconds> timeout) {
  if (int why = state_.load(); why != kWaiting) {
    return finish_([why] { return Result{static_cast<Outcome>(why), {}, {}}; });
  }
  auto consumer = consumer_.lock();
  if (!consumer) return finish_([] { return Result{Outcome::failed, gone(), {}}; });
  if (timeout) startTimer(consumer->client().io(), *timeout);
  auto self = shared_from_this();
  ticket_ = consumer->waitForItem([self](const Status& status, ReceiveQueue::Item item) {
    self->stopTimer();
    self->finish_([self, status, item = std::move(item)]() mutable {
      return self->lastStep(status, std::move(item));
    });
  });
  waiting_ = true;
  // A cancel that came while getting in line found nothing to withdraw: withdraw now.
  if (int why = state_.load(); why > 0 && consumer->withdraw(ticket_)) {
    stopTimer();
    finish_([why] { return Result{static_cast<Outcome>(why), {}, {}}; });
  }
}

void AsyncReceive::cancel(Outcome why) {
  int expected = kWaiting;
  if (!state_.compare_exchange_strong(expected, static_cast<int>(why))) return;
  // Still in line: leave it and end here. Else the item is on its way to lastStep, which sees
  // the cancellation and gives it back (or start() withdraws once it is in line). A consumer gone
  // has closed its queue: the waiter got closed from it.
  auto consumer = consumer_.lock();
  if (waiting_ && consumer && consumer->withdraw(ticket_)) {
    stopTimer();
    finish_([why] { return Result{why, {}, {}}; });
  }
}

AsyncReceive::Result AsyncReceive::lastStep(const Status& status, ReceiveQueue::Item item) {
  if (!status.ok()) return {Outcome::failed, status, {}};
  auto consumer = consumer_.lock();
  if (!consumer) return {Outcome::failed, gone(), {}};
  int why = state_.exchange(kHandedOut);
  if (why > 0) {
    consumer->giveBack(std::move(item));
    return {static_cast<Outcome>(why), {}, {}};
  }
  return {Outcome::message, {}, consumer->handOut(std::move(item))};
}

Status AsyncReceive::gone() {
  return Status(errc::closed, "the consumer was dropped without close() during the receive");
}

void AsyncReceive::startTimer(boost::asio::io_context& io, std::chrono::milliseconds timeout) {
  strand_.emplace(boost::asio::make_strand(io));
  timer_ = std::make_unique<boost::asio::steady_timer>(*strand_, timeout);
  timer_->async_wait([weak = weak_from_this()](const boost::system::error_code& ec) {
    if (ec) return;  // stopped: the receive ended first
    if (auto self = weak.lock()) self->cancel(Outcome::timedOut);
  });
}

void AsyncReceive::stopTimer() {
  if (!timer_) return;
  // On the timer's strand: the timer may be expiring on an I/O thread right now.
  boost::asio::post(*strand_, [self = shared_from_this()] { self->timer_->cancel(); });
}

}  // namespace reconsume::detail::client
