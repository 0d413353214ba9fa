#include "reconsume/reader.hpp"

#include "api/cancellable_receive.hpp"
#include "api/handle.hpp"
#include "client/consumer_impl.hpp"
#include "common/random.hpp"
#include "common/sync_call.hpp"
#include "common/topic_name.hpp"
#include "reconsume/client.hpp"

namespace reconsume {

namespace detail::api {

// A reader is a consumer on a non-durable, exclusive subscription of its own.
class ReaderImpl {
 public:
  std::shared_ptr<client::ConsumerImpl> consumer;
  std::string topic;
};

}  // namespace detail::api

using detail::syncCall;
using detail::api::stateOf;

Reader::Reader(std::shared_ptr<detail::api::ReaderImpl> impl) : impl_(std::move(impl)) {}

Reader Client::createReader(const ReaderOptions& options) {
  auto& client = stateOf(impl_, "Client");
  detail::client::ConsumerSpec spec;
  spec.topics.push_back({detail::canonicalTopic(options.topic), SubscriptionType::exclusive,
                         InitialPosition::earliest});
  if (options.receiverQueueSize < 1) {
    throw Error(errc::invalid_argument, "ReaderOptions::receiverQueueSize is " +
                                            std::to_string(options.receiverQueueSize) +
                                            "; at least 1 is needed");
  }
  // Random, not counted: readers of one topic in two processes must not share a name (their
  // exclusive subscriptions would refuse the second), as the Java client's "reader-" + hex.
  spec.options.subscription = "reader-" + detail::randomHex(10);
  spec.options.consumerName = options.readerName;
  spec.options.receiverQueueSize = options.receiverQueueSize;
  spec.durable = false;
  spec.startMessageId = options.startMessageId;
  spec.startMessageIdInclusive = options.startMessageIdInclusive;
  auto [consumer] = syncCall<std::shared_ptr<detail::client::ConsumerImpl>>(
      client.blocking("Client::createReader"),
      [&](auto done) { detail::client::ConsumerImpl::create(impl_, spec, done); });
  auto reader = std::make_shared<detail::api::ReaderImpl>();
  reader->consumer = std::move(consumer);
  reader->topic = spec.topics.front().topic;
  return Reader(std::move(reader));
}

bool Reader::hasMessageAvailable() {
  auto& consumer = *stateOf(impl_, "Reader").consumer;
  auto [available] = syncCall<bool>(consumer.client().blocking("Reader::hasMessageAvailable"),
                                    [&](auto done) { consumer.hasMessageAvailable(done); });
  return available;
}

Message Reader::readNext() {
  auto& consumer = *stateOf(impl_, "Reader").consumer;
  detail::refuseOnIoThread(consumer.client().blocking("Reader::readNext", "asyncReadNext"));
  return *consumer.receive(std::nullopt);
}

std::optional<Message> Reader::readNext(std::chrono::milliseconds timeout) {
  auto& consumer = *stateOf(impl_, "Reader").consumer;
  detail::refuseOnIoThread(consumer.client().blocking("Reader::readNext", "asyncReadNext"));
  return consumer.receive(timeout);
}

void Reader::seek(const MessageId& id) {
  auto& consumer = *stateOf(impl_, "Reader").consumer;
  syncCall<>(consumer.client().blocking("Reader::seek"),
             [&](auto done) { consumer.seek(id, done); });
}

boost::asio::any_io_executor Reader::executorOf(const Impl& impl) {
  return stateOf(impl, "Reader").consumer->client().executor();
}

void Reader::startReadNext(const Impl& impl,
                           detail::Completion<void(boost::system::error_code, Message)> done) {
  detail::api::startCancellableReceive(*impl->consumer, std::move(done), std::nullopt,
                                       "asyncReadNext", [](Message message) { return message; });
}

const std::string& Reader::topic() const {
  return stateOf(impl_, "Reader").topic;
}

boost::asio::any_io_executor Reader::executor() const {
  return executorOf(impl_);
}

void Reader::close() {
  auto& consumer = *stateOf(impl_, "Reader").consumer;
  syncCall<>(consumer.client().blocking("Reader::close"), [&](auto done) { consumer.close(done); });
}

}  // namespace reconsume
