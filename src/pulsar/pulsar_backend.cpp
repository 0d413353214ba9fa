// pulsar:// and pulsar+ssl://: the Backend seam over Pulsar's binary protocol. Wires the pieces
// together — connection options from ClientOptions (TLS context, token, timeouts), the connection
// pool, the lookup, the transaction coordinators — and hands producers and consumers their share
// of it.
#include "pulsar/pulsar_backend.hpp"

#include "common/open_handles.hpp"
#include "common/tls_context.hpp"
#include "pulsar/network.hpp"
#include "pulsar/partitions_query.hpp"
#include "pulsar/pulsar_consumer.hpp"
#include "pulsar/pulsar_producer.hpp"
#include "pulsar/pulsar_transaction.hpp"
#include "pulsar/transaction_coordinators.hpp"

namespace reconsume::detail::pulsar {
namespace {

class PulsarBackend final : public client::Backend {
 public:
  PulsarBackend(std::shared_ptr<Network> network, std::string url)
      : network_(std::move(network)), url_(std::move(url)) {}
  ~PulsarBackend() override { shutdown(); }

  void createProducer(const ProducerOptions& options,
                      Callback<std::shared_ptr<client::BackendProducer>> done) override {
    if (network_->closed) return done(closedStatus(), nullptr);
    PulsarProducer::create(network_, *handles_, options, std::move(done));
  }

  void subscribe(const client::SubscribeSpec& spec, std::shared_ptr<client::MessageSink> sink,
                 Callback<std::shared_ptr<client::BackendConsumer>> done) override {
    if (network_->closed) return done(closedStatus(), nullptr);
    PulsarConsumer::subscribe(network_, *handles_, spec, std::move(sink), std::move(done));
  }

  void partitions(const std::string& topic, Callback<int> done) override {
    if (network_->closed) return done(closedStatus(), 0);
    queryPartitions(network_, topic, MetadataCreation::allowed, std::move(done));
  }

  void existingPartitions(const std::string& topic, Callback<int> done) override {
    if (network_->closed) return done(closedStatus(), 0);
    queryPartitions(network_, topic, MetadataCreation::off, std::move(done));
  }

  void newTransaction(std::chrono::milliseconds timeout,
                      Callback<std::shared_ptr<client::BackendTransaction>> done) override {
    if (network_->closed) return done(closedStatus(), nullptr);
    if (timeout.count() <= 0) {
      return done(Status(errc::invalid_argument, "the transaction timeout " +
                                                     std::to_string(timeout.count()) +
                                                     " ms is not positive"),
                  nullptr);
    }
    coordinators_->newTransaction(timeout, [coordinators = coordinators_, done = std::move(done)](
                                               const Status& status, TxnId id) {
      if (!status.ok()) return done(status, nullptr);
      done({}, std::make_shared<PulsarTransaction>(id, coordinators));
    });
  }

  void close(Callback<> done) override {
    shutdown();
    done({});
  }

 private:
  Status closedStatus() const {
    return Status(errc::closed, "the client of " + url_ + " is closed");
  }

  void shutdown() {
    if (network_->closed.exchange(true)) return;
    for (auto& handle : handles_->closeAll()) handle->shutdown(closedStatus());
    coordinators_->shutdown(closedStatus());
    network_->pool->close();
  }

  const std::shared_ptr<Network> network_;
  const std::shared_ptr<OpenHandles<Handle>> handles_ = std::make_shared<OpenHandles<Handle>>();
  // Idle until the first transaction.
  const std::shared_ptr<TransactionCoordinators> coordinators_ =
      std::make_shared<TransactionCoordinators>(network_);
  const std::string url_;
};

Credentials credentialsFrom(const ClientOptions& options) {
  if (options.tokenSupplier) return Credentials::tokenFrom(options.tokenSupplier);
  if (!options.token.empty()) return Credentials::token(options.token);
  return Credentials::none();
}

}  // namespace

std::shared_ptr<client::Backend> connectPulsar(const ServiceUrl& url, const ClientOptions& options,
                                               boost::asio::io_context& io, Log log,
                                               std::shared_ptr<SteadyClock> clock,
                                               std::shared_ptr<MetricsRegistry> metrics) {
  bool tls = url.kind == ServiceUrl::Kind::pulsarTls;
  auto connectionOptions = std::make_shared<ConnectionOptions>();
  if (tls) connectionOptions->tls = makeTlsClientContext(options.tls);
  connectionOptions->verifyHostname = options.tls.verifyHostname;
  connectionOptions->credentials = credentialsFrom(options);
  connectionOptions->connectionTimeout = options.connectionTimeout;
  connectionOptions->operationTimeout = options.operationTimeout;
  connectionOptions->keepAliveInterval = options.keepAliveInterval;
  connectionOptions->log = log;
  if (clock) connectionOptions->clock = std::move(clock);
  connectionOptions->metrics = std::move(metrics);

  std::vector<BrokerAddress> services;
  for (const auto& host : url.hosts) {
    std::string service = std::string(tls ? "pulsar+ssl://" : "pulsar://") + host.host + ':' +
                          std::to_string(host.port);
    if (auto status = BrokerAddress::direct(service, services.emplace_back()); !status.ok()) {
      throw Error(errc::invalid_argument, "service URL '" + url.text + "': " + status.message);
    }
  }
  auto network = std::make_shared<Network>(io.get_executor());
  network->options = connectionOptions;
  network->pool = std::make_shared<ConnectionPool>(network->executor, connectionOptions);
  network->lookup = std::make_shared<Lookup>(network->pool, std::move(services));
  network->log = std::move(log);
  return std::make_shared<PulsarBackend>(std::move(network), url.text);
}

}  // namespace reconsume::detail::pulsar
