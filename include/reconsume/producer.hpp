// Producer: publishes messages to one topic (all partitions of a partitioned topic).
//
// Thread safety: a Producer is a cheap handle to shared state; send and asyncSend may be called
// from several threads at once. Messages sent from one thread are stored in the order sent (with
// BatchingOptions::keyBased, in the order sent among the messages of each key).
// send, flush and close throw would_deadlock on the client's I/O threads (inside an async
// handler).
// Cancelling asyncSend has no effect: a message on the wire cannot be un-sent.
// Errors: send throws Error — invalid_argument (deliverAfter negative, both deliverAfter and
// deliverAt set, both payload and sharedPayload set), too_large (bigger than the broker's maximum
// message size), timeout (no receipt within ProducerOptions::sendTimeout, or no room for it within
// that time: see below), producer_busy (no room and blockIfQueueFull off, or no room on the
// client's I/O thread: the counterpart of the Java client's ProducerQueueIsFullError; the text
// names the limit and its value), broker_error (e.g. the topic was terminated), connection_lost,
// closed.
//
// Room: a message holds room from the call until its receipt or failure — one of
// ProducerOptions::maxPendingMessages, its bytes of maxPendingBytes and of the client's
// memoryLimit. Without room, send and asyncSend both wait on the calling thread
// (blockIfQueueFull, the default; asyncSend blocks its caller as the Java client's sendAsync
// does) or fail at once with producer_busy. A call on the client's I/O thread (inside a
// completion handler) never waits: it fails at once with producer_busy.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/system/error_code.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "reconsume/detail/completion.hpp"
#include "reconsume/message.hpp"
#include "reconsume/producer_options.hpp"
#include "reconsume/transaction.hpp"

namespace reconsume {

namespace detail::client {
class ProducerImpl;
}

class Producer {
 public:
  Producer() = default;
  explicit Producer(std::shared_ptr<detail::client::ProducerImpl> impl);

  MessageId send(std::string_view payload);
  MessageId send(const OutgoingMessage& message);
  // Stored as part of `transaction`: delivered to consumers only once it commits.
  MessageId send(const OutgoingMessage& message, const Transaction& transaction);

  // Handler: void(boost::system::error_code, MessageId). Completes on the handler's associated
  // executor, by default the client's I/O executor, once the broker confirmed or the send failed.
  template <typename CompletionToken>
  auto asyncSend(OutgoingMessage message, CompletionToken&& token) {
    using Signature = void(boost::system::error_code, MessageId);
    return boost::asio::async_initiate<CompletionToken, Signature>(
        [impl = impl_](auto handler, OutgoingMessage m) {
          startSend(impl, std::move(m),
                    detail::Completion<Signature>(std::move(handler), executorOf(impl)));
        },
        token, std::move(message));
  }
  template <typename CompletionToken>
  auto asyncSend(OutgoingMessage message, const Transaction& transaction, CompletionToken&& token) {
    using Signature = void(boost::system::error_code, MessageId);
    return boost::asio::async_initiate<CompletionToken, Signature>(
        [impl = impl_, transaction](auto handler, OutgoingMessage m) {
          startSend(impl, std::move(m),
                    detail::Completion<Signature>(std::move(handler), executorOf(impl)),
                    transaction);
        },
        token, std::move(message));
  }

  // Writes what waits in open batches now (rather than after BatchingOptions::maxPublishDelay)
  // and waits until every send started before this call has completed — stored, or failed. Sends
  // started meanwhile, from other threads, are not waited for. Throws the first failure among the
  // sends started since the previous flush (or since the producer was created): each failure is
  // reported to one flush, and to its own send as well. Also throws closed when the producer was
  // closed before the call. flush() returns, and asyncFlush's handler runs, after the handlers of
  // those sends that run on the client's I/O executor (the default) — in this order when the
  // client has one I/O thread (ClientOptions::ioThreads, the default).
  void flush();
  // Handler: void(boost::system::error_code). As flush(); on the handler's associated executor
  // (by default the client's I/O executor).
  template <typename CompletionToken>
  auto asyncFlush(CompletionToken&& token) {
    using Signature = void(boost::system::error_code);
    return boost::asio::async_initiate<CompletionToken, Signature>(
        [impl = impl_](auto handler) {
          startFlush(impl, detail::Completion<Signature>(std::move(handler), executorOf(impl)));
        },
        token);
  }

  const std::string& topic() const;
  boost::asio::any_io_executor executor() const;
  // Waits for every pending send to complete, then closes; later sends fail with errc::closed.
  // A producer dropped without close() does not wait: sends still waiting for their batch or
  // receipt complete with errc::closed (on pulsar://; the message may still be stored).
  void close();

 private:
  using Impl = std::shared_ptr<detail::client::ProducerImpl>;
  static boost::asio::any_io_executor executorOf(const Impl& impl);
  static void startSend(const Impl& impl, OutgoingMessage message,
                        detail::Completion<void(boost::system::error_code, MessageId)> done,
                        const Transaction& transaction = {});
  static void startFlush(const Impl& impl,
                         detail::Completion<void(boost::system::error_code)> done);
  std::shared_ptr<detail::client::ProducerImpl> impl_;
};

}  // namespace reconsume
