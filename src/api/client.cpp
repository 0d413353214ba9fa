#include "reconsume/client.hpp"

#include "api/handle.hpp"
#include "client/client_impl.hpp"
#include "client/consumer_impl.hpp"
#include "client/producer_impl.hpp"
#include "client/transaction_impl.hpp"
#include "common/sync_call.hpp"
#include "common/topic_name.hpp"
#include "config/consumer_options_check.hpp"
#include "retry/reconsumer.hpp"

namespace reconsume {

using detail::syncCall;
using detail::api::stateOf;

namespace {

// A failure says first what the caller asked for (their topic), whatever internal step failed
// (a lookup, the probe of the legacy retry topic names, a partition).
template <typename Result, typename Done>
detail::Callback<Result> naming(std::string what, Done done) {
  return [what = std::move(what), done = std::move(done)](const detail::Status& status,
                                                          Result result) {
    if (status.ok()) return done(status, std::move(result));
    detail::Status named(status.code, what + ": " + status.message);
    done(named, std::move(result));
  };
}

std::string topicList(const std::vector<std::string>& topics) {
  std::string list;
  for (const auto& topic : topics) list += (list.empty() ? "" : ", ") + topic;
  return list;
}

}  // namespace

Client::Client(std::shared_ptr<detail::client::ClientImpl> impl) : impl_(std::move(impl)) {}

Client Client::connect(std::string_view serviceUrl, ClientOptions options) {
  return Client(detail::client::ClientImpl::connect(serviceUrl, std::move(options)));
}

Producer Client::createProducer(std::string_view topic) {
  ProducerOptions options;
  options.topic = std::string(topic);
  return createProducer(options);
}

Producer Client::createProducer(const ProducerOptions& options) {
  auto& impl = stateOf(impl_, "Client");
  using Created = std::shared_ptr<detail::client::ProducerImpl>;
  auto [producer] = syncCall<Created>(impl.blocking("Client::createProducer"), [&](auto done) {
    detail::client::ProducerImpl::create(
        impl_, options, naming<Created>("creating a producer for " + options.topic, done));
  });
  return Producer(std::move(producer));
}

Consumer Client::subscribe(const ConsumerOptions& options) {
  auto& impl = stateOf(impl_, "Client");
  auto checked = detail::config::normalizeConsumerOptions(options);
  auto call = impl.blocking("Client::subscribe");
  auto what = "subscribing to " + topicList(checked.topics);
  if (!checked.retry && checked.maxRedeliverCount == 0 && checked.categories.empty()) {
    // Without a retry policy or a dead-letter rule no retry code is involved.
    using Core = std::shared_ptr<detail::client::ConsumerImpl>;
    auto [core] = syncCall<Core>(call, [&](auto done) {
      detail::client::ConsumerImpl::create(impl_, detail::client::ConsumerSpec::of(checked),
                                           naming<Core>(what, done));
    });
    return Consumer(std::move(core), nullptr);
  }
  using Retrying = std::shared_ptr<detail::retry::Reconsumer>;
  auto [retry] = syncCall<Retrying>(call, [&](auto done) {
    detail::retry::Reconsumer::subscribe(impl_, std::move(checked), naming<Retrying>(what, done));
  });
  return Consumer(retry->consumer(), retry);
}

Reader Client::createReader(std::string_view topic) {
  ReaderOptions options;
  options.topic = std::string(topic);
  return createReader(options);
}

int Client::partitionsOf(std::string_view topic) {
  auto& impl = stateOf(impl_, "Client");
  auto name = detail::canonicalTopic(topic);
  auto [count] = syncCall<int>(impl.blocking("Client::partitionsOf"),
                               [&](auto done) { impl.backend().partitions(name, done); });
  return count;
}

Transaction Client::newTransaction(TransactionOptions options) {
  auto& impl = stateOf(impl_, "Client");
  auto [transaction] = syncCall<std::shared_ptr<detail::client::TransactionImpl>>(
      impl.blocking("Client::newTransaction", "asyncNewTransaction"),
      [&](auto done) { detail::client::TransactionImpl::begin(impl_, options.timeout, done); });
  return Transaction(std::move(transaction));
}

boost::asio::any_io_executor Client::executorOf(const Impl& impl) {
  return stateOf(impl, "Client").executor();
}

void Client::startNewTransaction(
    const Impl& impl, TransactionOptions options,
    detail::Completion<void(boost::system::error_code, Transaction)> done) {
  detail::client::TransactionImpl::begin(
      impl, options.timeout,
      [completion = std::move(done), impl](
          const detail::Status& status,
          std::shared_ptr<detail::client::TransactionImpl> transaction) {
        if (!status.ok()) {
          impl->failureLog().warn("asyncNewTransaction", status.code, {},
                                  "asyncNewTransaction: " + status.message);
        }
        completion.complete(detail::api::toErrorCode(status), Transaction(std::move(transaction)));
      });
}

const std::string& Client::serviceUrl() const {
  return stateOf(impl_, "Client").url().text;
}

boost::asio::any_io_executor Client::executor() const {
  return stateOf(impl_, "Client").executor();
}

const std::shared_ptr<Clock>& Client::clock() const {
  return stateOf(impl_, "Client").clock();
}

MetricsSnapshot Client::metrics() const {
  return stateOf(impl_, "Client").metrics().snapshot();
}

std::string Client::metricsAddress() const {
  return stateOf(impl_, "Client").metricsAddress();
}

void Client::close() {
  auto& impl = stateOf(impl_, "Client");
  syncCall<>(impl.blocking("Client::close"), [&](auto done) { impl.close(done); });
}

}  // namespace reconsume
