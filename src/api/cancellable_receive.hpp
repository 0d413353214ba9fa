// Async receives of the public handles (Consumer::asyncReceive, Reader::asyncReadNext) that honour
// the completion handler's cancellation slot, built on client::AsyncReceive.
#pragma once

#include <boost/asio/cancellation_type.hpp>
#include <boost/asio/error.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <tuple>

#include "api/handle.hpp"
#include "client/async_receive.hpp"
#include "reconsume/detail/completion.hpp"

namespace reconsume::detail::api {

// An async receive that honours the handler's cancellation slot (client/async_receive.hpp).
// `wrap` turns a received message into the handler's value (Message, or std::optional<Message>,
// whose default — nothing — a timed-out receive completes with).
template <typename Value, typename Wrap>
void startCancellableReceive(client::ConsumerImpl& core,
                             Completion<void(boost::system::error_code, Value)> done,
                             std::optional<std::chrono::milliseconds> timeout,
                             const char* operation, Wrap wrap) {
  using client::AsyncReceive;
  using Outcome = AsyncReceive::Outcome;
  auto slot = done.cancellationSlot();
  // The consumer is compared in the failure log, never read (it may be gone by then).
  auto finish = [completion = std::move(done), client = core.clientPtr(), operation, wrap,
                 consumer = static_cast<const void*>(&core)](AsyncReceive::Step step) {
    completion.completeAfter([step = std::move(step), client, operation, wrap, consumer] {
      auto result = step();
      switch (result.outcome) {
        case Outcome::message:
          return std::tuple(boost::system::error_code(), Value(wrap(std::move(result.message))));
        case Outcome::timedOut:
          return std::tuple(boost::system::error_code(), Value());
        case Outcome::cancelled:
          return std::tuple(boost::system::error_code(boost::asio::error::operation_aborted),
                            Value());
        case Outcome::failed:
          break;
      }
      client->failureLog().warn(operation, result.status.code, {consumer, "consumer"},
                                std::string(operation) + ": " + result.status.message);
      return std::tuple(toErrorCode(result.status), Value());
    });
  };
  auto receive = std::make_shared<AsyncReceive>(core.shared_from_this(), std::move(finish));
  // Installed before the receive starts waiting: a cancellation is then never missed. Every
  // cancellation type is honoured — a cancelled receive has no effect at all.
  if (slot.is_connected()) {
    slot.assign([weak = std::weak_ptr<AsyncReceive>(receive)](boost::asio::cancellation_type) {
      if (auto self = weak.lock()) self->cancel(Outcome::cancelled);
    });
  }
  receive->start(timeout);
}

}  // namespace reconsume::detail::api
