#include "client/send_limits.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

namespace reconsume::detail::client {

ClientSendLimits::ClientSendLimits(std::size_t memoryLimit, boost::asio::io_context& io,
                                   std::shared_ptr<SteadyClock> clock)
    : memoryLimit_(memoryLimit), io_(io), clock_(std::move(clock)) {}

std::size_t ClientSendLimits::bytesInUse() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

void ClientSendLimits::close(const Status& why) {
  {
    std::lock_guard lock(mutex_);
    if (closed_.ok()) closed_ = why;
  }
  room_.notify_all();
}

ProducerSendLimit::ProducerSendLimit(std::shared_ptr<ClientSendLimits> client, Settings settings)
    : client_(std::move(client)), settings_(std::move(settings)) {}

std::string ProducerSendLimit::noRoomFor(std::size_t bytes) const {
  auto n = [](std::size_t value) { return std::to_string(value); };
  if (settings_.maxMessages > 0 && messages_ >= settings_.maxMessages) {
    return "the " + settings_.producer + " has " + n(messages_) +
           " messages pending (maxPendingMessages " + n(settings_.maxMessages) + ")";
  }
  if (settings_.maxBytes > 0 && bytes_ + bytes > settings_.maxBytes) {
    return "the " + settings_.producer + " has " + n(bytes_) + " bytes pending and the message " +
           n(bytes) + " (maxPendingBytes " + n(settings_.maxBytes) + ")";
  }
  if (client_->memoryLimit_ > 0 && client_->bytes_ + bytes > client_->memoryLimit_) {
    return "the client's producers have " + n(client_->bytes_) + " bytes pending and the message " +
           n(bytes) + " (memoryLimit " + n(client_->memoryLimit_) + ")";
  }
  return {};
}

Status ProducerSendLimit::acquire(std::size_t bytes) {
  auto tooLarge = [&](const char* name, std::size_t limit) {
    return Status(errc::too_large, "a message of " + std::to_string(bytes) +
                                       " bytes (payload, keys and properties) is larger than " +
                                       name + " " + std::to_string(limit) + " (" +
                                       settings_.producer + "): it can never be sent");
  };
  if (settings_.maxBytes > 0 && bytes > settings_.maxBytes) {
    return tooLarge("maxPendingBytes", settings_.maxBytes);
  }
  if (client_->memoryLimit_ > 0 && bytes > client_->memoryLimit_) {
    return tooLarge("the client's memoryLimit", client_->memoryLimit_);
  }
  std::unique_lock lock(client_->mutex_);
  if (!closed_.ok()) return closed_;
  if (!client_->closed_.ok()) return client_->closed_;
  if (auto why = noRoomFor(bytes); !why.empty()) {
    if (!settings_.block) {
      return Status(errc::producer_busy, why + " and blockIfQueueFull is off");
    }
    if (client_->io_.get_executor().running_in_this_thread()) {
      return Status(errc::producer_busy,
                    why +
                        "; the send was made on the client's I/O thread, where waiting for "
                        "room would stop the receipts that make room");
    }
    if (auto waited = waitForRoom(bytes, lock); !waited.ok()) return waited;
  }
  ++messages_;
  bytes_ += bytes;
  client_->bytes_ += bytes;
  return {};
}

Status ProducerSendLimit::waitForRoom(std::size_t bytes, std::unique_lock<std::mutex>& lock) {
  // The wait ends at the injected clock's deadline: a timer on the I/O context sets `expired`.
  auto expired = std::make_shared<bool>(false);  // guarded by the client's mutex
  auto strand = boost::asio::make_strand(client_->io_);
  auto timer = std::make_shared<Timer>(strand, client_->clock_);
  timer->expiresAfter(settings_.maxWait);
  // The handler runs later on the strand, never inside asyncWait: no deadlock on the mutex. It
  // does not hold the timer: with a manual clock the pending wait holds the handler, and a
  // handler holding the timer would keep both alive for ever when the context stops before the
  // cancel posted below runs. The posted cancel keeps the timer until then.
  timer->asyncWait([client = client_, expired](boost::system::error_code ec) {
    if (ec) return;
    {
      std::lock_guard guard(client->mutex_);
      *expired = true;
    }
    client->room_.notify_all();
  });
  client_->room_.wait(lock, [&] {
    return noRoomFor(bytes).empty() || *expired || !closed_.ok() || !client_->closed_.ok();
  });
  boost::asio::post(strand, [timer] { timer->cancel(); });
  if (!closed_.ok()) return closed_;
  if (!client_->closed_.ok()) return client_->closed_;
  if (auto why = noRoomFor(bytes); !why.empty()) {
    return Status(errc::timeout, "no room within " + std::to_string(settings_.maxWait.count()) +
                                     " ms (" + settings_.maxWaitName + "): " + why);
  }
  return {};
}

void ProducerSendLimit::release(std::size_t bytes) {
  {
    std::lock_guard lock(client_->mutex_);
    --messages_;
    bytes_ -= bytes;
    client_->bytes_ -= bytes;
  }
  client_->room_.notify_all();
}

void ProducerSendLimit::close(const Status& why) {
  {
    std::lock_guard lock(client_->mutex_);
    if (closed_.ok()) closed_ = why;
  }
  client_->room_.notify_all();
}

std::size_t ProducerSendLimit::pendingMessages() const {
  std::lock_guard lock(client_->mutex_);
  return messages_;
}

std::size_t ProducerSendLimit::pendingBytes() const {
  std::lock_guard lock(client_->mutex_);
  return bytes_;
}

}  // namespace reconsume::detail::client
