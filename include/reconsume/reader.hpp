// Reader: reads a topic in order from a starting position without a durable subscription; it
// acknowledges nothing and leaves no trace on the topic.
//
// Thread safety: one thread at a time should read; close() may be called from any thread.
// Blocking calls throw would_deadlock on the client's I/O threads (inside an async handler).
// asyncReadNext honours terminal, partial and total cancellation as Consumer::asyncReceive does:
// it completes with operation_aborted and leaves the message for the next read.
// Errors: readNext throws Error — closed, connection_lost; createReader throws not_found for a
// topic that does not exist when the broker does not create topics on demand.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/system/error_code.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "reconsume/detail/completion.hpp"
#include "reconsume/message.hpp"
#include "reconsume/reader_options.hpp"

namespace reconsume {

namespace detail::api {
class ReaderImpl;
}

class Reader {
 public:
  Reader() = default;
  explicit Reader(std::shared_ptr<detail::api::ReaderImpl> impl);

  // True when a message after the last one read exists on the topic (asks the broker).
  bool hasMessageAvailable();
  // The next message; blocks until there is one.
  Message readNext();
  // The next message, or nothing when none arrived within `timeout` (real time).
  std::optional<Message> readNext(std::chrono::milliseconds timeout);
  // Moves the read position; the next message read is the first after `id` (or at, for earliest).
  // On a partitioned topic, the id of a message read moves its own partition alone (the others
  // read on), earliest and latest move them all, and any other id throws invalid_argument (ids
  // of one partition are not positions in another), as the Java client's reader does.
  void seek(const MessageId& id);

  // Handler: void(boost::system::error_code, Message); completes on the handler's associated
  // executor, by default the client's I/O executor.
  template <typename CompletionToken>
  auto asyncReadNext(CompletionToken&& token) {
    using Signature = void(boost::system::error_code, Message);
    return boost::asio::async_initiate<CompletionToken, Signature>(
        [impl = impl_](auto handler) {
          startReadNext(impl, detail::Completion<Signature>(std::move(handler), executorOf(impl)));
        },
        token);
  }

  const std::string& topic() const;
  boost::asio::any_io_executor executor() const;
  void close();

 private:
  using Impl = std::shared_ptr<detail::api::ReaderImpl>;
  static boost::asio::any_io_executor executorOf(const Impl& impl);
  static void startReadNext(const Impl& impl,
                            detail::Completion<void(boost::system::error_code, Message)> done);
  std::shared_ptr<detail::api::ReaderImpl> impl_;
};

}  // namespace reconsume
