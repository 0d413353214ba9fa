#include "client/send_limits.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

namespace reconsume::detail::client {

ClientSendLimits::ClientSendLimits(std::size_t memoryLimit, boost::asio::io_context& io,
                                   std::shared_ptr<SteadyClock> clock)
    : memoryLimit_(memoryLimit), io_(io), clock_(std::move(clock)) {}

std::size_t ClientSendLimits::bytesInUse() const {
  return bytes_.load();
}

void ClientSendLimits::close(const Status& why) {
  {
    std::lock_guard lock(mutex_);
    if (!closed_.load()) {
      closedStatus_ = why;
      closed_.store(true);
    }
  }
  room_.notify_all();
}

void ClientSendLimits::roomChanged(bool mutexHeld) {
  // A waiter counts itself in under the mutex before it checks for room; the counts change
  // before waiting_ is read (both sequentially consistent). So either this sees the waiter and
  // wakes it (through the mutex: not before it waits), or the waiter's check sees the change.
  if (waiting_.load() == 0) return;
  if (!mutexHeld) {
    // Taken and let go: a waiter that counted itself in is inside wait() by now.
    std::lock_guard lock(mutex_);
  }
  room_.notify_all();
}

ProducerSendLimit::ProducerSendLimit(std::shared_ptr<ClientSendLimits> client, Settings settings)
    : client_(std::move(client)), settings_(std::move(settings)) {}

bool ProducerSendLimit::tryTake(std::size_t bytes, bool mutexHeld) {
  // Taken first and given back when over a limit: a send that races another may see no room for
  // a moment and then take the slow path, which checks again under the mutex.
  const std::size_t messages = messages_.fetch_add(1) + 1;
  const std::size_t producerBytes = bytes_.fetch_add(bytes) + bytes;
  const std::size_t clientBytes = client_->bytes_.fetch_add(bytes) + bytes;
  if ((settings_.maxMessages == 0 || messages <= settings_.maxMessages) &&
      (settings_.maxBytes == 0 || producerBytes <= settings_.maxBytes) &&
      (client_->memoryLimit_ == 0 || clientBytes <= client_->memoryLimit_)) {
    return true;
  }
  giveBack(bytes, mutexHeld);
  return false;
}

void ProducerSendLimit::giveBack(std::size_t bytes, bool mutexHeld) {
  messages_.fetch_sub(1);
  bytes_.fetch_sub(bytes);
  client_->bytes_.fetch_sub(bytes);
  client_->roomChanged(mutexHeld);
}

std::string ProducerSendLimit::noRoomFor(std::size_t bytes) const {
  auto n = [](std::size_t value) { return std::to_string(value); };
  const std::size_t messages = messages_.load(), producerBytes = bytes_.load();
  const std::size_t clientBytes = client_->bytes_.load();
  if (settings_.maxMessages > 0 && messages >= settings_.maxMessages) {
    return "the " + settings_.producer + " has " + n(messages) +
           " messages pending (maxPendingMessages " + n(settings_.maxMessages) + ")";
  }
  if (settings_.maxBytes > 0 && producerBytes + bytes > settings_.maxBytes) {
    return "the " + settings_.producer + " has " + n(producerBytes) +
           " bytes pending and the message " + n(bytes) + " (maxPendingBytes " +
           n(settings_.maxBytes) + ")";
  }
  if (client_->memoryLimit_ > 0 && clientBytes + bytes > client_->memoryLimit_) {
    return "the client's producers have " + n(clientBytes) + " bytes pending and the message " +
           n(bytes) + " (memoryLimit " + n(client_->memoryLimit_) + ")";
  }
  return {};
}

Status ProducerSendLimit::closedStatus() const {
  if (closed_.load()) return closedStatus_;
  if (client_->closed_.load()) return client_->closedStatus_;
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
  if (!closed_.load() && !client_->closed_.load() && tryTake(bytes)) return {};

  std::unique_lock lock(client_->mutex_);
  if (auto closed = closedStatus(); !closed.ok()) return closed;
  if (tryTake(bytes, true)) return {};
  if (!settings_.block) {
    return Status(errc::producer_busy, noRoomFor(bytes) + " and blockIfQueueFull is off");
  }
  if (client_->io_.get_executor().running_in_this_thread()) {
    return Status(errc::producer_busy,
                  noRoomFor(bytes) +
                      "; the send was made on the client's I/O thread, where waiting for "
                      "room would stop the receipts that make room");
  }
  return waitForRoom(bytes, lock);
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
  bool taken = false;
  ++client_->waiting_;
  client_->room_.wait(lock, [&] {
    if (!closedStatus().ok() || *expired) return true;
    taken = tryTake(bytes, true);
    return taken;
  });
  --client_->waiting_;
  boost::asio::post(strand, [timer] { timer->cancel(); });
  if (taken) {
    // Closed meanwhile: the room goes back and the close is what the send sees.
    if (auto closed = closedStatus(); !closed.ok()) {
      lock.unlock();
      giveBack(bytes);
      return closed;
    }
    return {};
  }
  if (auto closed = closedStatus(); !closed.ok()) return closed;
  return Status(errc::timeout, "no room within " + std::to_string(settings_.maxWait.count()) +
                                   " ms (" + settings_.maxWaitName + "): " + noRoomFor(bytes));
}

void ProducerSendLimit::release(std::size_t bytes) {
  giveBack(bytes);
}

void ProducerSendLimit::close(const Status& why) {
  {
    std::lock_guard lock(client_->mutex_);
    if (!closed_.load()) {
      closedStatus_ = why;
      closed_.store(true);
    }
  }
  client_->room_.notify_all();
}

std::size_t ProducerSendLimit::pendingMessages() const {
  return messages_.load();
}

std::size_t ProducerSendLimit::pendingBytes() const {
  return bytes_.load();
}

}  // namespace reconsume::detail::client
