#include "reconsume/producer.hpp"

#include "api/handle.hpp"
#include "client/producer_impl.hpp"
#include "client/transaction_impl.hpp"
#include "common/sync_call.hpp"

namespace reconsume {

using detail::syncCall;
using detail::api::stateOf;

namespace {

// What only the public form of a message can get wrong: an OutgoingData has one payload.
detail::Status checkPayload(const OutgoingMessage& message) {
  if (!message.sharedPayload || message.payload.empty()) return {};
  return detail::Status(errc::invalid_argument, "OutgoingMessage has both a payload (" +
                                                    std::to_string(message.payload.size()) +
                                                    " bytes) and a sharedPayload (" +
                                                    std::to_string(message.sharedPayload->size()) +
                                                    " bytes): set one");
}

}  // namespace

Producer::Producer(std::shared_ptr<detail::client::ProducerImpl> impl) : impl_(std::move(impl)) {}

MessageId Producer::send(std::string_view payload) {
  OutgoingMessage message;
  message.payload = std::string(payload);
  return send(message);
}

MessageId Producer::send(const OutgoingMessage& message) {
  auto& impl = stateOf(impl_, "Producer");
  checkPayload(message).raiseIfFailed();
  auto [id] = syncCall<MessageId>(impl.client().blocking("Producer::send", "asyncSend"),
                                  [&](auto done) { impl.send(message, std::move(done)); });
  return id;
}

MessageId Producer::send(const OutgoingMessage& message, const Transaction& transaction) {
  auto& impl = stateOf(impl_, "Producer");
  auto& txn = detail::api::stateOf(transaction.impl(), "Transaction");
  checkPayload(message).raiseIfFailed();
  txn.usableWith(impl.client()).raiseIfFailed();
  auto [id] = syncCall<MessageId>(impl.client().blocking("Producer::send", "asyncSend"),
                                  [&](auto done) { impl.send(message, done, txn.backend()); });
  return id;
}

boost::asio::any_io_executor Producer::executorOf(const Impl& impl) {
  return stateOf(impl, "Producer").client().executor();
}

void Producer::startSend(const Impl& impl, OutgoingMessage message,
                         detail::Completion<void(boost::system::error_code, MessageId)> done,
                         const Transaction& transaction) {
  auto client = impl->client().shared_from_this();
  // Runs once (the Callback contract): the completion moves into what completes it. The producer
  // names the failure's source in the log (compared only: it may be gone when a send fails).
  auto finish = [completion = std::move(done), client, source = impl.get()](
                    const detail::Status& status, const MessageId& id) mutable {
    // A refused send is the caller's to handle (blockIfQueueFull off): one warning per refusal
    // would flood the log exactly when the broker is slow.
    if (status.code == errc::producer_busy) {
      client->log().debug("asyncSend: " + status.message);
    } else if (!status.ok()) {
      client->failureLog().warn("asyncSend", status.code, {source, "producer"},
                                "asyncSend: " + status.message);
    }
    client->complete([completion = std::move(completion), code = detail::api::toErrorCode(status),
                      id](boost::asio::io_context& io) { completion.completeOn(io, code, id); });
  };
  if (auto check = checkPayload(message); !check.ok()) return finish(check, MessageId());
  if (!transaction) return impl->send(std::move(message), std::move(finish));
  if (auto usable = transaction.impl()->usableWith(impl->client()); !usable.ok()) {
    return finish(usable, MessageId());
  }
  impl->send(message, std::move(finish), transaction.impl()->backend());
}

void Producer::flush() {
  auto& impl = stateOf(impl_, "Producer");
  // Completes with the client's other completions, as asyncFlush does: after the handlers of the
  // sends it waited for (those on the client's I/O executor).
  syncCall<>(impl.client().blocking("Producer::flush", "asyncFlush"), [&](auto done) {
    impl.flush([client = impl.client().shared_from_this(),
                done = std::move(done)](const detail::Status& status) mutable {
      client->complete([done = std::move(done), status = std::make_shared<detail::Status>(status)](
                           boost::asio::io_context&) mutable { done(*status); });
    });
  });
}

void Producer::startFlush(const Impl& impl,
                          detail::Completion<void(boost::system::error_code)> done) {
  auto client = impl->client().shared_from_this();
  // Not logged: a failed send reported itself (and was logged) already.
  impl->flush([completion = std::move(done), client](const detail::Status& status) mutable {
    client->complete([completion = std::move(completion), code = detail::api::toErrorCode(status)](
                         boost::asio::io_context& io) { completion.completeOn(io, code); });
  });
}

const std::string& Producer::topic() const {
  return stateOf(impl_, "Producer").topic();
}

boost::asio::any_io_executor Producer::executor() const {
  return executorOf(impl_);
}

void Producer::close() {
  auto& impl = stateOf(impl_, "Producer");
  syncCall<>(impl.client().blocking("Producer::close"), [&](auto done) { impl.close(done); });
}

}  // namespace reconsume
