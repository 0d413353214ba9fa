#include "pulsar/lookup.hpp"

#include "protocol/commands.hpp"

namespace reconsume::detail::pulsar {
namespace {

// Failures that say nothing about the topic, only that this host did not answer.
bool unreachable(const Status& status) {
  return status.code == errc::connection_lost || status.code == errc::timeout ||
         status.code == errc::unavailable;
}

Status addressFor(const std::string& url, bool throughProxy, const BrokerAddress& service,
                  BrokerAddress& out) {
  return throughProxy ? BrokerAddress::proxied(url, service.physical, out)
                      : BrokerAddress::direct(url, out);
}

}  // namespace

template <typename T>
void Lookup::acrossHosts(Attempt<T> attempt, std::size_t tried, Callback<T> done) {
  std::size_t index = (preferred_.load() + tried) % services_.size();
  const BrokerAddress& service = services_[index];
  bool failFast = tried + 1 < services_.size();
  attempt(service, failFast,
          [self = shared_from_this(), attempt, tried, index, done = std::move(done)](
              const Status& status, T value) mutable {
            if (status.ok()) {
              self->preferred_.store(index);
              return done(status, std::move(value));
            }
            if (!unreachable(status) || tried + 1 >= self->services_.size()) {
              return done(status, std::move(value));
            }
            self->acrossHosts<T>(std::move(attempt), tried + 1, std::move(done));
          });
}

void Lookup::partitions(const std::string& topic, std::chrono::milliseconds timeout,
                        MetadataCreation creation, Callback<int> done) {
  bool create = creation == MetadataCreation::allowed;
  Attempt<int> attempt = [pool = pool_, topic, timeout, create](const BrokerAddress& service,
                                                                bool failFast, Callback<int> done) {
    auto connection = pool->get(service);
    auto id = connection->newRequestId();
    connection->request(
        id, protocol::partitionedMetadata(topic, id, create), "PARTITIONED_METADATA " + topic,
        [create, done = std::move(done)](Response response) {
          // Without auto-creation a topic that does not exist is an answer, not a failure.
          if (!create && response.status.code == errc::not_found) return done({}, 0);
          if (!response.status.ok()) return done(response.status, 0);
          done({}, static_cast<int>(response.command.partitionmetadataresponse().partitions()));
        },
        timeout, failFast);
  };
  acrossHosts<int>(std::move(attempt), 0, std::move(done));
}

void Lookup::broker(const std::string& topic, std::chrono::milliseconds timeout,
                    Callback<BrokerAddress> done) {
  // Only the question to the service host moves between hosts; a redirect names its broker.
  Attempt<Answer> attempt = [self = shared_from_this(), topic, timeout](
                                const BrokerAddress& service, bool failFast,
                                Callback<Answer> answered) {
    self->ask(topic, service, service, false, timeout, failFast, std::move(answered));
  };
  acrossHosts<Answer>(std::move(attempt), 0,
                      [self = shared_from_this(), topic, timeout, done = std::move(done)](
                          const Status& status, Answer answer) mutable {
                        if (!status.ok()) return done(status, {});
                        self->follow(topic, std::move(answer), kMaxRedirects, timeout,
                                     std::move(done));
                      });
}

void Lookup::follow(const std::string& topic, Answer answer, int redirects,
                    std::chrono::milliseconds timeout, Callback<BrokerAddress> done) {
  if (answer.connect) {
    pool_->options().log.debug("the lookup of " + topic + " found it at " + answer.next.logical);
    return done({}, answer.next);
  }
  if (redirects == 0) {
    return done(Status(errc::broker_error, "the lookup of " + topic + " was redirected " +
                                               std::to_string(kMaxRedirects) + " times (last to " +
                                               answer.next.logical + ")"),
                {});
  }
  pool_->options().log.debug("the lookup of " + topic + " is redirected to " + answer.next.logical);
  ask(topic, answer.service, answer.next, answer.authoritative, timeout, false,
      [self = shared_from_this(), topic, redirects, timeout, done = std::move(done)](
          const Status& status, Answer next) mutable {
        if (!status.ok()) return done(status, {});
        self->follow(topic, std::move(next), redirects - 1, timeout, std::move(done));
      });
}

void Lookup::ask(const std::string& topic, const BrokerAddress& service, const BrokerAddress& at,
                 bool authoritative, std::chrono::milliseconds timeout, bool failFast,
                 Callback<Answer> done) {
  auto connection = pool_->get(at);
  auto id = connection->newRequestId();
  connection->request(
      id, protocol::lookup(topic, id, authoritative), "LOOKUP " + topic,
      [topic, service, done = std::move(done)](Response response) {
        if (!response.status.ok()) return done(response.status, {});
        const auto& lookup = response.command.lookuptopicresponse();
        const auto& url = service.tls ? lookup.brokerserviceurltls() : lookup.brokerserviceurl();
        if (url.empty()) {
          return done(Status(errc::broker_error, "the lookup of " + topic + " named no " +
                                                     (service.tls ? "TLS " : "") + "broker URL"),
                      {});
        }
        Answer answer;
        answer.service = service;
        if (auto status = addressFor(url, lookup.proxy_through_service_url(), service, answer.next);
            !status.ok()) {
          return done(status, {});
        }
        answer.connect = lookup.response() == proto::CommandLookupTopicResponse::Connect;
        answer.authoritative = lookup.authoritative();
        done({}, std::move(answer));
      },
      timeout, failFast);
}

}  // namespace reconsume::detail::pulsar
