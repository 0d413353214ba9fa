// Consumer: receives from one or more topics on a durable subscription, acknowledges, gives
// messages back (negative acknowledgement, ack timeout), and — with ConsumerOptions::retry set —
// sends failed messages through a retry topic and, at the end, to a dead-letter topic
// (reconsumeLater, deadLetter; SPEC.md sections 1–3).
//
// Thread safety: a Consumer is a cheap handle to shared state; every member may be called from
// several threads at once. Handlers of async calls run on their associated executor (by default
// the client's I/O executor), never inside the call that started them and never while a lock of
// the library is held.
//
// Blocking calls (receive, acknowledge, reconsumeLater, deadLetter, close) made on one of the
// client's I/O threads — inside an async handler that runs there — would wait for that very
// thread: they throw Error(errc::would_deadlock) at once, naming the call, and start nothing. Use
// the async form there (or bind the handler to an executor of your own).
//
// Cancellation (Asio per-operation cancellation, the completion token's cancellation slot):
// - asyncReceive (both forms) supports terminal, partial and total cancellation: a cancelled
//   receive completes with boost::asio::error::operation_aborted and takes no message — one that
//   arrived meanwhile goes back to the front of the queue for the next receive. So
//   `co_await (consumer.asyncReceive(use_awaitable) || timer.async_wait(use_awaitable))` never
//   loses a message. A receive whose message already reached its handler is not cancelled.
// - asyncAcknowledge, asyncReconsumeLater and asyncDeadLetter ignore cancellation: a request on
//   the wire cannot be taken back; they complete as they would have.
// With ioThreads > 1, run coroutines that combine operations (operator||) on a strand.
//
// Errors (blocking forms throw Error, async forms pass the error_code):
// - invalid_argument: a level outside the table, a negative delay, a message this consumer did
//   not receive, reconsumeLater without a retry policy; nothing was published or acknowledged.
// - timeout, connection_lost, unavailable, broker_error, too_large: publishing the retry or dead
//   letter failed; the message was not acknowledged and will be redelivered.
// - producer_busy: the retry or dead-letter producer had no room (its maxPendingMessages of 1000,
//   or the client's memoryLimit) and the call was made on the client's I/O thread, where it
//   cannot wait; the message was not acknowledged and will be redelivered.
// - closed: the consumer or client was closed.
//
// Room for the retry: reconsumeLater and asyncReconsumeLater publish through internal producers
// that share the client's memoryLimit and wait for room as a producer with blockIfQueueFull does
// (ProducerOptions): on the caller's thread — the async forms too, as the Java client's
// reconsumeLaterAsync does — at most their sendTimeout (30 s), then timeout. The first call that
// needs one of them also waits there while the consumer creates it (Java's creates it in the
// call as well); on the client's I/O thread such a call does not wait: it runs once the producer
// is made, in the order of the calls.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/system/error_code.hpp>
#include <chrono>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reconsume/consumer_options.hpp"
#include "reconsume/detail/completion.hpp"
#include "reconsume/message.hpp"
#include "reconsume/metrics.hpp"
#include "reconsume/transaction.hpp"

namespace reconsume {

namespace detail::client {
class ConsumerImpl;
}
namespace detail::retry {
class Reconsumer;
}

class Consumer {
 public:
  Consumer() = default;
  // The core consumer and, when a retry policy is set, the retry layer that holds it.
  Consumer(std::shared_ptr<detail::client::ConsumerImpl> core,
           std::shared_ptr<detail::retry::Reconsumer> retry);

  // Blocks until a message arrives.
  Message receive();
  // Nothing when no message arrived within `timeout` (real time).
  std::optional<Message> receive(std::chrono::milliseconds timeout);
  // Returns once the acknowledgement is held for the group (ConsumerOptions::
  // acknowledgmentGroupTime, 100 ms by default) or, with a group time of 0 or with receipts,
  // once the broker confirmed it.
  void acknowledge(const Message& message);
  // Pending until `transaction` commits (acknowledged for good then; redelivered if it aborts).
  void acknowledge(const Message& message, const Transaction& transaction);
  // Gives the message back; redelivered after the negative-ack delay or backoff.
  void negativeAcknowledge(const Message& message);
  // Redelivers every message received and not yet acknowledged.
  void redeliverUnacknowledgedMessages();

  void reconsumeLater(const Message& message);             // next step of the policy
  void reconsumeLater(const Message& message, int level);  // explicit level, 1-based
  void reconsumeLater(const Message& message, std::chrono::milliseconds delay);
  void reconsumeLater(const Message& message, const ReconsumeOptions& options);
  // Routing by error: `error` (std::current_exception() in a catch block) is classified by
  // ConsumerOptions::errorRules into a category, whose policy decides; its what() is the reason.
  void reconsumeLater(const Message& message, std::exception_ptr error);
  // Straight to the dead-letter topic with DEAD_LETTER_CAUSE=explicit and the reason.
  void deadLetter(const Message& message, std::string_view reason);

  // Handler: void(boost::system::error_code, Message). Cancellable (see the top of this file).
  template <typename CompletionToken>
  auto asyncReceive(CompletionToken&& token) {
    using Signature = void(boost::system::error_code, Message);
    return boost::asio::async_initiate<CompletionToken, Signature>(
        [impl = handles()](auto handler) {
          startReceive(impl, detail::Completion<Signature>(std::move(handler), executorOf(impl)));
        },
        token);
  }
  // Handler: void(boost::system::error_code, std::optional<Message>): nothing (and no error) when
  // no message arrived within `timeout` (real time), as receive(timeout). Cancellable.
  template <typename CompletionToken>
  auto asyncReceive(std::chrono::milliseconds timeout, CompletionToken&& token) {
    using Signature = void(boost::system::error_code, std::optional<Message>);
    return boost::asio::async_initiate<CompletionToken, Signature>(
        [impl = handles(), timeout](auto handler) {
          startReceive(impl, timeout,
                       detail::Completion<Signature>(std::move(handler), executorOf(impl)));
        },
        token);
  }
  // Handler: void(boost::system::error_code).
  template <typename CompletionToken>
  auto asyncAcknowledge(const Message& message, CompletionToken&& token) {
    return initiate(token, [message](const Impl& impl, Done done) {
      startAcknowledge(impl, message, std::move(done));
    });
  }
  template <typename CompletionToken>
  auto asyncAcknowledge(const Message& message, const Transaction& transaction,
                        CompletionToken&& token) {
    return initiate(token, [message, transaction](const Impl& impl, Done done) {
      startAcknowledge(impl, message, std::move(done), transaction);
    });
  }
  // Handler: void(boost::system::error_code); completes once the retry is published and the
  // original acknowledged, or with the error that stopped it (the original then stays
  // unacknowledged).
  template <typename CompletionToken>
  auto asyncReconsumeLater(const Message& message, CompletionToken&& token) {
    return asyncReconsumeLater(message, ReconsumeOptions{}, std::forward<CompletionToken>(token));
  }
  template <typename CompletionToken>
  auto asyncReconsumeLater(const Message& message, int level, CompletionToken&& token) {
    ReconsumeOptions options;
    options.level = level;
    return asyncReconsumeLater(message, options, std::forward<CompletionToken>(token));
  }
  template <typename CompletionToken>
  auto asyncReconsumeLater(const Message& message, std::chrono::milliseconds delay,
                           CompletionToken&& token) {
    ReconsumeOptions options;
    options.delay = delay;
    return asyncReconsumeLater(message, options, std::forward<CompletionToken>(token));
  }
  template <typename CompletionToken>
  auto asyncReconsumeLater(const Message& message, std::exception_ptr error,
                           CompletionToken&& token) {
    return initiate(token, [message, error](const Impl& impl, Done done) {
      startReconsumeLater(impl, message, reconsumeOptionsFor(impl, error), std::move(done));
    });
  }
  template <typename CompletionToken>
  auto asyncReconsumeLater(const Message& message, const ReconsumeOptions& options,
                           CompletionToken&& token) {
    return initiate(token, [message, options](const Impl& impl, Done done) {
      startReconsumeLater(impl, message, options, std::move(done));
    });
  }
  // Handler: void(boost::system::error_code).
  template <typename CompletionToken>
  auto asyncDeadLetter(const Message& message, std::string_view reason, CompletionToken&& token) {
    return initiate(token, [message, r = std::string(reason)](const Impl& impl, Done done) {
      startDeadLetter(impl, message, r, std::move(done));
    });
  }

  const std::string& subscription() const;
  // The subscribed topics as given (full names), without the retry topic.
  const std::vector<std::string>& topics() const;
  // Set when a retry policy is: the topics reconsumeLater and deadLetter publish to.
  std::optional<std::string> retryTopic() const;
  std::optional<std::string> deadLetterTopic() const;
  // The client's metrics of this consumer's subscription and topics (the retry topic included):
  // what it received, acknowledged, retried and dead-lettered. Consumers of one client on the same
  // subscription and topics share their series. Any thread.
  MetricsSnapshot metrics() const;
  boost::asio::any_io_executor executor() const;
  // Stops delivery; messages received and not acknowledged are redelivered to other consumers.
  // Pending async receives complete with errc::closed.
  void close();

 private:
  // The operations capture the shared state, not `this`: a deferred token (use_awaitable) may
  // start the operation after this handle is gone.
  struct Impl {
    std::shared_ptr<detail::client::ConsumerImpl> core;
    std::shared_ptr<detail::retry::Reconsumer> retry;  // null: no retry policy
  };
  Impl handles() const { return {impl_, retry_}; }
  using Done = detail::Completion<void(boost::system::error_code)>;
  template <typename CompletionToken, typename Start>
  auto initiate(CompletionToken& token, Start start) {
    return boost::asio::async_initiate<CompletionToken, void(boost::system::error_code)>(
        [impl = handles()](auto handler, Start s) {
          s(impl, Done(std::move(handler), executorOf(impl)));
        },
        token, std::move(start));
  }
  static boost::asio::any_io_executor executorOf(const Impl& impl);
  static void startReceive(const Impl& impl,
                           detail::Completion<void(boost::system::error_code, Message)> done);
  static void startReceive(
      const Impl& impl, std::chrono::milliseconds timeout,
      detail::Completion<void(boost::system::error_code, std::optional<Message>)> done);
  static void startAcknowledge(const Impl& impl, const Message& message, Done done,
                               const Transaction& transaction = {});
  static void startReconsumeLater(const Impl& impl, const Message& message,
                                  const ReconsumeOptions& options, Done done);
  static void startDeadLetter(const Impl& impl, const Message& message, const std::string& reason,
                              Done done);
  // The category (by the error rules) and the reason (what()) of `error`.
  static ReconsumeOptions reconsumeOptionsFor(const Impl& impl, const std::exception_ptr& error);

  std::shared_ptr<detail::client::ConsumerImpl> impl_;
  std::shared_ptr<detail::retry::Reconsumer> retry_;
};

}  // namespace reconsume
