#include "pulsar/lookup.hpp"

#include "protocol/commands.hpp"

namespace reconsume::detail::pulsar {

void Lookup::partitions(const std::string& topic, std::chrono::milliseconds timeout,
                        MetadataCreation creation, Callback<int> done) {
  auto connection = pool_->get(service_);
  auto id = connection->newRequestId();
  bool create = creation == MetadataCreation::allowed;
  connection->request(
      id, protocol::partitionedMetadata(topic, id, create), "PARTITIONED_METADATA " + topic,
      [create, done = std::move(done)](Response response) {
        // Without auto-creation a topic that does not exist is an answer, not a failure.
        if (!create && response.status.code == errc::not_found) return done({}, 0);
        if (!response.status.ok()) return done(response.status, 0);
        done({}, static_cast<int>(response.command.partitionmetadataresponse().partitions()));
      },
      timeout);
}

void Lookup::broker(const std::string& topic, std::chrono::milliseconds timeout,
                    Callback<BrokerAddress> done) {
  ask(topic, service_, false, kMaxRedirects, timeout, std::move(done));
}

Status Lookup::addressFor(const std::string& url, bool throughProxy, BrokerAddress& out) const {
  return throughProxy ? BrokerAddress::proxied(url, service_.physical, out)
                      : BrokerAddress::direct(url, out);
}

void Lookup::ask(const std::string& topic, const BrokerAddress& at, bool authoritative,
                 int redirects, std::chrono::milliseconds timeout, Callback<BrokerAddress> done) {
  auto connection = pool_->get(at);
  auto id = connection->newRequestId();
  connection->request(
      id, protocol::lookup(topic, id, authoritative), "LOOKUP " + topic,
      [self = shared_from_this(), topic, redirects, timeout,
       done = std::move(done)](Response response) {
        if (!response.status.ok()) return done(response.status, {});
        const auto& answer = response.command.lookuptopicresponse();
        const auto& url =
            self->service_.tls ? answer.brokerserviceurltls() : answer.brokerserviceurl();
        if (url.empty()) {
          return done(
              Status(errc::broker_error, "the lookup of " + topic + " named no " +
                                             (self->service_.tls ? "TLS " : "") + "broker URL"),
              {});
        }
        BrokerAddress next;
        if (auto status = self->addressFor(url, answer.proxy_through_service_url(), next);
            !status.ok()) {
          return done(status, {});
        }
        if (answer.response() == proto::CommandLookupTopicResponse::Connect) {
          return done({}, next);
        }
        if (redirects == 0) {
          return done(Status(errc::broker_error, "the lookup of " + topic + " was redirected " +
                                                     std::to_string(kMaxRedirects) +
                                                     " times (last to " + url + ")"),
                      {});
        }
        self->ask(topic, next, answer.authoritative(), redirects - 1, timeout, done);
      },
      timeout);
}

}  // namespace reconsume::detail::pulsar
