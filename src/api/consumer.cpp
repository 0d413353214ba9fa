#include "reconsume/consumer.hpp"

#include "api/handle.hpp"
#include "client/consumer_impl.hpp"
#include "common/sync_call.hpp"
#include "retry/reconsumer.hpp"

namespace reconsume {

using detail::Status;
using detail::syncCall;
using detail::api::stateOf;

namespace {

// reconsumeLater and deadLetter, blocking or not: both go through the consumer's Reconsumer.
void startRetry(detail::client::ConsumerImpl& consumer, const Message& message,
                const detail::retry::RetryRequest& request, const std::string& reason,
                const std::map<std::string, std::string>& properties, detail::Callback<> done) {
  detail::retry::Reconsumer* reconsumer = nullptr;
  if (auto status = detail::retry::reconsumerOf(consumer, reconsumer); !status.ok())
    return done(status);
  reconsumer->reconsume(consumer, message, request, reason, properties, std::move(done));
}

void reconsumeWith(detail::client::ConsumerImpl& consumer, const Message& message,
                   const ReconsumeOptions& options, detail::Callback<> done) {
  detail::retry::RetryRequest request;
  try {
    request = detail::retry::RetryRequest::from(options);
  } catch (const Error& e) {
    return done(Status(e.code(), e.what()));
  }
  startRetry(consumer, message, request, options.reason, options.properties, std::move(done));
}

void deadLetterWith(detail::client::ConsumerImpl& consumer, const Message& message,
                    const std::string& reason, detail::Callback<> done) {
  detail::retry::RetryRequest request;
  request.kind = detail::retry::RetryRequest::Kind::deadLetter;
  startRetry(consumer, message, request, reason, {}, std::move(done));
}

// Adapts a public Completion to an internal callback, logging the text of a failure.
template <typename... Args>
auto completeWith(detail::client::ConsumerImpl& consumer,
                  detail::Completion<void(boost::system::error_code, Args...)> done,
                  const char* operation) {
  auto completion = std::make_shared<decltype(done)>(std::move(done));
  auto client = consumer.clientPtr();
  return [completion, client, operation](const Status& status, Args... args) {
    if (!status.ok()) client->log().warn(std::string(operation) + ": " + status.message);
    completion->complete(detail::api::toErrorCode(status), std::move(args)...);
  };
}

}  // namespace

Consumer::Consumer(std::shared_ptr<detail::client::ConsumerImpl> impl) : impl_(std::move(impl)) {}

Message Consumer::receive() {
  return *stateOf(impl_, "Consumer").receive(std::nullopt);
}

std::optional<Message> Consumer::receive(std::chrono::milliseconds timeout) {
  return stateOf(impl_, "Consumer").receive(std::chrono::steady_clock::now() + timeout);
}

void Consumer::acknowledge(const Message& message) {
  auto& impl = stateOf(impl_, "Consumer");
  syncCall<>([&](auto done) { impl.acknowledge(message, done); });
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
  auto& impl = stateOf(impl_, "Consumer");
  syncCall<>([&](auto done) { reconsumeWith(impl, message, options, done); });
}

void Consumer::deadLetter(const Message& message, std::string_view reason) {
  auto& impl = stateOf(impl_, "Consumer");
  syncCall<>([&](auto done) { deadLetterWith(impl, message, std::string(reason), done); });
}

boost::asio::any_io_executor Consumer::executorOf(const Impl& impl) {
  return stateOf(impl, "Consumer").client().executor();
}

void Consumer::startReceive(const Impl& impl,
                            detail::Completion<void(boost::system::error_code, Message)> done) {
  impl->receiveAsync(completeWith(*impl, std::move(done), "asyncReceive"));
}

void Consumer::startAcknowledge(const Impl& impl, const Message& message, Done done) {
  impl->acknowledge(message, completeWith(*impl, std::move(done), "asyncAcknowledge"));
}

void Consumer::startReconsumeLater(const Impl& impl, const Message& message,
                                   const ReconsumeOptions& options, Done done) {
  reconsumeWith(*impl, message, options,
                completeWith(*impl, std::move(done), "asyncReconsumeLater"));
}

void Consumer::startDeadLetter(const Impl& impl, const Message& message, const std::string& reason,
                               Done done) {
  deadLetterWith(*impl, message, reason, completeWith(*impl, std::move(done), "asyncDeadLetter"));
}

const std::string& Consumer::subscription() const {
  return stateOf(impl_, "Consumer").options().subscription;
}

const std::vector<std::string>& Consumer::topics() const {
  return stateOf(impl_, "Consumer").topics();
}

std::optional<std::string> Consumer::retryTopic() const {
  detail::retry::Reconsumer* reconsumer = nullptr;
  if (!detail::retry::reconsumerOf(stateOf(impl_, "Consumer"), reconsumer).ok())
    return std::nullopt;
  return reconsumer->topics().retryTopic;
}

std::optional<std::string> Consumer::deadLetterTopic() const {
  detail::retry::Reconsumer* reconsumer = nullptr;
  if (!detail::retry::reconsumerOf(stateOf(impl_, "Consumer"), reconsumer).ok())
    return std::nullopt;
  return reconsumer->topics().deadLetterTopic;
}

boost::asio::any_io_executor Consumer::executor() const {
  return executorOf(impl_);
}

void Consumer::close() {
  auto& impl = stateOf(impl_, "Consumer");
  syncCall<>([&](auto done) { impl.close(done); });
}

}  // namespace reconsume
