// Which broker serves a topic, and how many partitions it has, asked over the service URL's
// connection: PARTITIONED_METADATA, and LOOKUP following Redirect answers (with the
// `authoritative` flag the broker gives) up to a limit. When the answer says to proxy through
// the service URL, the result is the broker reached through the service URL's host (a Pulsar
// proxy). One pass each: the callers decide about retrying.
//
// Thread safety: every member may be called from any thread; callbacks run on a connection's
// strand.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "client/backend.hpp"
#include "pulsar/broker_address.hpp"
#include "pulsar/connection_pool.hpp"

namespace reconsume::detail::pulsar {

// Whether asking for a topic's partitions may create it: Pulsar creates the metadata of a
// partitioned topic it is asked about when allowAutoTopicCreationType=partitioned.
enum class MetadataCreation { allowed, off };

class Lookup : public std::enable_shared_from_this<Lookup> {
 public:
  static constexpr int kMaxRedirects = 20;

  Lookup(std::shared_ptr<ConnectionPool> pool, BrokerAddress service)
      : pool_(std::move(pool)), service_(std::move(service)) {}

  const BrokerAddress& service() const { return service_; }
  // With MetadataCreation::off: PARTITIONED_METADATA with metadata_auto_creation_enabled false
  // (PIP-344, as the Java client asks about its legacy retry and dead-letter names); a broker
  // that knows the flag answers TopicNotFound for a topic that does not exist (reported as 0), an
  // older one ignores it and answers 0.
  void partitions(const std::string& topic, std::chrono::milliseconds timeout,
                  MetadataCreation creation, Callback<int> done);
  void partitions(const std::string& topic, std::chrono::milliseconds timeout, Callback<int> done) {
    partitions(topic, timeout, MetadataCreation::allowed, std::move(done));
  }
  void broker(const std::string& topic, std::chrono::milliseconds timeout,
              Callback<BrokerAddress> done);

 private:
  void ask(const std::string& topic, const BrokerAddress& at, bool authoritative, int redirects,
           std::chrono::milliseconds timeout, Callback<BrokerAddress> done);
  Status addressFor(const std::string& url, bool throughProxy, BrokerAddress& out) const;

  const std::shared_ptr<ConnectionPool> pool_;
  const BrokerAddress service_;
};

}  // namespace reconsume::detail::pulsar
