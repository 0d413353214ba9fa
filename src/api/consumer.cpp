#include "reconsume/consumer.hpp"

#include <algorithm>

#include "api/cancellable_receive.hpp"
#include "api/handle.hpp"
#include "client/consumer_impl.hpp"
#include "client/transaction_impl.hpp"
#include "common/sync_call.hpp"
#include "common/topic_name.hpp"
#include "retry/reconsumer.hpp"

namespace reconsume {

using detail::refuseOnIoThread;
using detail::Status;
using detail::syncCall;
using detail::api::stateOf;

namespace {

// reconsumeLater and deadLetter, blocking or not: both go through the retry layer, which exists
// only when the consumer has a retry policy.
void startRetry(const detail::client::ConsumerImpl& core, detail::retry::Reconsumer* retry,
                const Message& message, const detail::retry::RetryRequest& request,
                const std::string& reason, const std::map<std::string, std::string>& properties,
                detail::Callback<> done) {
  if (!retry) {
    return done(Status(errc::invalid_argument,
                       "reconsumeLater and deadLetter need a retry policy: subscription '" +
                           core.options().subscription +
                           "' was created without ConsumerOptions::retry"));
  }
  retry->reconsume(message, request, reason, properties, std::move(done));
}

void reconsumeWith(const detail::client::ConsumerImpl& core, detail::retry::Reconsumer* retry,
                   const Message& message, const ReconsumeOptions& options,
                   detail::Callback<> done) {
  detail::retry::RetryRequest request;
  try {
    request = detail::retry::RetryRequest::from(options);
  } catch (const Error& e) {
    return done(Status(e.code(), e.what()));
  }
  startRetry(core, retry, message, request, options.reason, options.properties, std::move(done));
}

void deadLetterWith(const detail::client::ConsumerImpl& core, detail::retry::Reconsumer* retry,
                    const Message& message, const std::string& reason, detail::Callback<> done) {
  detail::retry::RetryRequest request;
  request.kind = detail::retry::RetryRequest::Kind::deadLetter;
  startRetry(core, retry, message, request, reason, {}, std::move(done));
}

// Adapts a public Completion to an internal callback, logging the text of a failure. The handler
// runs with the client's other completions (client/completion_inbox.hpp). `client` is a
// shared_ptr, or a plain pointer where the caller knows the client outlives the callback.
// `consumer` names the failure's source in the log: compared there, never read.
template <typename ClientPointer>
auto completeThrough(ClientPointer client, detail::Completion<void(boost::system::error_code)> done,
                     const char* operation, const detail::client::ConsumerImpl* consumer) {
  // Runs once (the Callback contract): the completion moves on, not copied — a copy's reference
  // count, taken here and released after the handler ran, is two atomic operations per call.
  return [completion = std::move(done), client, operation, consumer](const Status& status) mutable {
    if (!status.ok()) {
      client->failureLog().warn(operation, status.code, {consumer, "consumer"},
                                std::string(operation) + ": " + status.message);
    }
    client->complete([completion = std::move(completion), code = detail::api::toErrorCode(status)](
                         boost::asio::io_context& io) { completion.completeOn(io, code); });
  };
}

// A grouped acknowledgement can complete after its consumer is gone: the client is held.
auto completeWith(detail::client::ConsumerImpl& consumer,
                  detail::Completion<void(boost::system::error_code)> done, const char* operation) {
  return completeThrough(consumer.clientPtr(), std::move(done), operation, &consumer);
}

// reconsumeLater and deadLetter complete while their move holds the consumer, and so the client
// (retry/at_least_once_move.cpp, retry/transactional_move.cpp): not held again. A reference
// counted here and released on the I/O thread costs a cache-line transfer each way per call.
auto completeRetryWith(detail::client::ConsumerImpl& consumer,
                       detail::Completion<void(boost::system::error_code)> done,
                       const char* operation) {
  return completeThrough(&consumer.client(), std::move(done), operation, &consumer);
}

}  // namespace

Consumer::Consumer(std::shared_ptr<detail::client::ConsumerImpl> core,
                   std::shared_ptr<detail::retry::Reconsumer> retry)
    : impl_(std::move(core)), retry_(std::move(retry)) {}

Message Consumer::receive() {
  auto& core = stateOf(impl_, "Consumer");
  refuseOnIoThread(core.client().blocking("Consumer::receive", "asyncReceive"));
  return *core.receive(std::nullopt);
}

std::optional<Message> Consumer::receive(std::chrono::milliseconds timeout) {
  auto& core = stateOf(impl_, "Consumer");
  refuseOnIoThread(core.client().blocking("Consumer::receive", "asyncReceive"));
  return core.receive(timeout);
}

void Consumer::acknowledge(const Message& message) {
  auto& impl = stateOf(impl_, "Consumer");
  syncCall<>(impl.client().blocking("Consumer::acknowledge", "asyncAcknowledge"),
             [&](auto done) { impl.acknowledge(message, std::move(done)); });
}

void Consumer::acknowledge(const Message& message, const Transaction& transaction) {
  auto& impl = stateOf(impl_, "Consumer");
  auto& txn = stateOf(transaction.impl(), "Transaction");
  txn.usableWith(impl.client()).raiseIfFailed();
  syncCall<>(impl.client().blocking("Consumer::acknowledge", "asyncAcknowledge"),
             [&](auto done) { impl.acknowledge(message, txn.backend(), done); });
}

void Consumer::negativeAcknowledge(const Message& message) {
  stateOf(impl_, "Consumer").negativeAcknowledge(message).raiseIfFailed();
}

void Consumer::redeliverUnacknowledgedMessages() {
  stateOf(impl_, "Consumer").redeliverUnacknowledged();
}

void Consumer::reconsumeLater(const Message& message) {
  reconsumeLater(message, ReconsumeOptions{});
}

void Consumer::reconsumeLater(const Message& message, int level) {
  ReconsumeOptions options;
  options.level = level;
  reconsumeLater(message, options);
}

void Consumer::reconsumeLater(const Message& message, std::chrono::milliseconds delay) {
  ReconsumeOptions options;
  options.delay = delay;
  reconsumeLater(message, options);
}

void Consumer::reconsumeLater(const Message& message, const ReconsumeOptions& options) {
  auto& core = stateOf(impl_, "Consumer");
  syncCall<>(
      core.client().blocking("Consumer::reconsumeLater", "asyncReconsumeLater"),
      [&](auto done) { reconsumeWith(core, retry_.get(), message, options, std::move(done)); });
}

void Consumer::reconsumeLater(const Message& message, std::exception_ptr error) {
  reconsumeLater(message, reconsumeOptionsFor(handles(), error));
}

ReconsumeOptions Consumer::reconsumeOptionsFor(const Impl& impl, const std::exception_ptr& error) {
  ReconsumeOptions options;
  if (impl.retry) options.category = impl.retry->classify(error);
  try {
    if (error) std::rethrow_exception(error);
    options.reason = "no exception";
  } catch (const std::exception& e) {
    options.reason = e.what();
  } catch (...) {
    options.reason = "unknown exception";
  }
  return options;
}

void Consumer::deadLetter(const Message& message, std::string_view reason) {
  auto& core = stateOf(impl_, "Consumer");
  syncCall<>(core.client().blocking("Consumer::deadLetter", "asyncDeadLetter"), [&](auto done) {
    deadLetterWith(core, retry_.get(), message, std::string(reason), done);
  });
}

boost::asio::any_io_executor Consumer::executorOf(const Impl& impl) {
  return stateOf(impl.core, "Consumer").client().executor();
}

void Consumer::startReceive(const Impl& impl,
                            detail::Completion<void(boost::system::error_code, Message)> done) {
  detail::api::startCancellableReceive(*impl.core, std::move(done), std::nullopt, "asyncReceive",
                                       [](Message message) { return message; });
}

void Consumer::startReceive(
    const Impl& impl, std::chrono::milliseconds timeout,
    detail::Completion<void(boost::system::error_code, std::optional<Message>)> done) {
  detail::api::startCancellableReceive(
      *impl.core, std::move(done), timeout, "asyncReceive",
      [](Message message) { return std::optional<Message>(message); });
}

void Consumer::startAcknowledge(const Impl& impl, const Message& message, Done done,
                                const Transaction& transaction) {
  auto finish = completeWith(*impl.core, std::move(done), "asyncAcknowledge");
  if (!transaction) return impl.core->acknowledge(message, std::move(finish));
  if (auto usable = transaction.impl()->usableWith(impl.core->client()); !usable.ok()) {
    return finish(usable);
  }
  impl.core->acknowledge(message, transaction.impl()->backend(), std::move(finish));
}

void Consumer::startReconsumeLater(const Impl& impl, const Message& message,
                                   const ReconsumeOptions& options, Done done) {
  reconsumeWith(*impl.core, impl.retry.get(), message, options,
                completeRetryWith(*impl.core, std::move(done), "asyncReconsumeLater"));
}

void Consumer::startDeadLetter(const Impl& impl, const Message& message, const std::string& reason,
                               Done done) {
  deadLetterWith(*impl.core, impl.retry.get(), message, reason,
                 completeRetryWith(*impl.core, std::move(done), "asyncDeadLetter"));
}

const std::string& Consumer::subscription() const {
  return stateOf(impl_, "Consumer").options().subscription;
}

const std::vector<std::string>& Consumer::topics() const {
  auto& core = stateOf(impl_, "Consumer");
  return retry_ ? retry_->givenTopics() : core.topics();
}

std::optional<std::string> Consumer::retryTopic() const {
  stateOf(impl_, "Consumer");
  if (!retry_ || !retry_->hasRetryPolicy()) return std::nullopt;
  return retry_->topics().retryTopic;
}

std::optional<std::string> Consumer::deadLetterTopic() const {
  stateOf(impl_, "Consumer");
  if (!retry_) return std::nullopt;
  return retry_->topics().deadLetterTopic;
}

MetricsSnapshot Consumer::metrics() const {
  auto& core = stateOf(impl_, "Consumer");
  const auto& subscription = core.options().subscription;
  const auto& topics = core.topics();  // with the retry topic
  auto subscribed = [&](const std::string& topic) {
    return std::find(topics.begin(), topics.end(), topic) != topics.end();
  };
  // A partition's series name its topic and the partition apart: they are this consumer's when
  // it subscribed to the topic, or to that very partition by its name. A series of the topic
  // as a whole (retries, dead letters) is also that of a consumer of one of its partitions.
  auto mineByTopic = [&](const std::string& destination, const std::string& partition) {
    if (destination.empty() || subscribed(destination)) return true;
    if (!partition.empty()) return subscribed(destination + "-partition-" + partition);
    return std::any_of(topics.begin(), topics.end(), [&](const std::string& topic) {
      return detail::TopicName::parse(topic).base().toString() == destination;
    });
  };
  auto all = core.client().metrics().snapshot();
  MetricsSnapshot mine;
  for (auto& value : all.values) {
    if (value.series.label(detail::metrics::kGroup) != subscription) continue;
    if (!mineByTopic(value.series.label(detail::metrics::kDestination),
                     value.series.label(detail::metrics::kPartition))) {
      continue;
    }
    mine.values.push_back(std::move(value));
  }
  return mine;
}

boost::asio::any_io_executor Consumer::executor() const {
  return executorOf(handles());
}

void Consumer::close() {
  auto& core = stateOf(impl_, "Consumer");
  // The retry layer closes its producers, then the core consumer it holds.
  syncCall<>(core.client().blocking("Consumer::close"),
             [&](auto done) { retry_ ? retry_->close(done) : core.close(done); });
}

}  // namespace reconsume
