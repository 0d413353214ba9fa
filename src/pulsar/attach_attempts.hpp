// How a producer or a consumer gets itself onto the broker that owns its topic, again and again.
// Each attempt looks the topic up and then asks that broker to create the producer or consumer;
// a failed attempt is made again after a backoff step. While the handle is first being created,
// only retryable failures are tried again, and only until the operation timeout (the caller is
// waiting); after a lost session, the owner retries until it works or the topic is gone.
// Answers that arrive for an attempt given up meanwhile are told apart by the attempt's number.
//
// Thread safety: none; it lives on its owner's strand, where lookups and the timer complete.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "client/backend.hpp"
#include "pulsar/backoff.hpp"
#include "pulsar/broker_address.hpp"
#include "pulsar/network.hpp"

namespace reconsume::detail::pulsar {

class AttachAttempts {
 public:
  using Clock = std::chrono::steady_clock;
  using Strand = boost::asio::strand<boost::asio::any_io_executor>;
  using OnBroker =
      std::function<void(std::uint64_t attempt, const Status& status, const BrokerAddress& at)>;

  AttachAttempts(const Strand& strand, std::shared_ptr<Network> network);

  // The first creation starts now: its attempts may take until operationTimeout from now.
  void beginCreation();
  // Starts a new attempt: looks `topic` up and hands the broker, or the failure, with the
  // attempt's number to `onBroker` on the strand. A lookup while `creating` gets the creation's
  // time left, otherwise a whole operationTimeout.
  void lookUp(const std::string& topic, bool creating, OnBroker onBroker);
  // Whether `attempt` is the latest one (its answers still matter).
  bool isCurrent(std::uint64_t attempt) const { return attempt == attempt_; }

  // An attempt of the first creation failed. True: `again` runs after a backoff step (the
  // failure is retryable and time is left). False: the creation has failed with `failure`.
  bool retryCreation(const Status& failure, std::function<void()> again);
  // After a lost session or a failed re-creation: `again` runs after a backoff step, or at once
  // when `now`; returns the wait.
  std::chrono::milliseconds retryLater(std::function<void()> again, bool now = false);
  // Attached: the next failure starts from the first backoff step again.
  void succeeded() { backoff_.reset(); }
  // Closing: a scheduled `again` does not run.
  void cancel() { timer_.cancel(); }

 private:
  void after(std::chrono::milliseconds wait, std::function<void()> again);

  Strand strand_;
  std::shared_ptr<Network> network_;
  std::uint64_t attempt_ = 0;
  Clock::time_point creationDeadline_;
  Backoff backoff_;
  boost::asio::steady_timer timer_;
};

}  // namespace reconsume::detail::pulsar
