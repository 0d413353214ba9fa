#include "pulsar/attach_attempts.hpp"

#include <boost/asio/post.hpp>

#include "pulsar/retry_until.hpp"

namespace reconsume::detail::pulsar {

namespace asio = boost::asio;

AttachAttempts::AttachAttempts(const Strand& strand, std::shared_ptr<Network> network)
    : strand_(strand),
      network_(std::move(network)),
      backoff_(network_->options->backoff),
      timer_(strand_) {}

void AttachAttempts::beginCreation() {
  creationDeadline_ = Clock::now() + network_->operationTimeout();
}

void AttachAttempts::lookUp(const std::string& topic, bool creating, OnBroker onBroker) {
  auto attempt = ++attempt_;
  auto left =
      creating
          ? std::chrono::duration_cast<std::chrono::milliseconds>(creationDeadline_ - Clock::now())
          : network_->operationTimeout();
  left = std::max(left, std::chrono::milliseconds(1));
  network_->lookup->broker(topic, left,
                           [strand = strand_, attempt, onBroker = std::move(onBroker)](
                               const Status& status, BrokerAddress address) {
                             asio::post(strand,
                                        [attempt, onBroker, status, address = std::move(address)] {
                                          onBroker(attempt, status, address);
                                        });
                           });
}

bool AttachAttempts::retryCreation(const Status& failure, std::function<void()> again) {
  auto wait = backoff_.next();
  if (!retryableWhileTimeLeft(failure) || Clock::now() + wait >= creationDeadline_) return false;
  after(wait, std::move(again));
  return true;
}

std::chrono::milliseconds AttachAttempts::retryLater(std::function<void()> again, bool now) {
  auto wait = now ? std::chrono::milliseconds(0) : backoff_.next();
  after(wait, std::move(again));
  return wait;
}

void AttachAttempts::after(std::chrono::milliseconds wait, std::function<void()> again) {
  timer_.expires_after(wait);
  timer_.async_wait([again = std::move(again)](boost::system::error_code ec) {
    if (!ec) again();
  });
}

}  // namespace reconsume::detail::pulsar
