// Which broker serves a topic, and how many partitions it has, asked over the service URL's
// connection: PARTITIONED_METADATA, and LOOKUP following Redirect answers (with the
// `authoritative` flag the broker gives) up to a limit. When the answer says to proxy through
// the service URL, the result is the broker reached through the service URL's host (a Pulsar
// proxy). One pass each: the callers decide about retrying.
//
// A service URL may name several hosts (the brokers of a cluster). A pass asks the host that
// answered last; when it cannot be reached (connection lost, timeout, not ready) the pass asks
// the next host, each at most once, and the host that answers becomes the one asked first. A
// request to a host that is not the last one left ends at its first failed attempt to connect
// instead of waiting out its timeout.
//
// Thread safety: every member may be called from any thread; callbacks run on a connection's
// strand.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

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

  // `services`: not empty.
  Lookup(std::shared_ptr<ConnectionPool> pool, std::vector<BrokerAddress> services)
      : pool_(std::move(pool)), services_(std::move(services)) {}

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
  // Runs `attempt` on the service hosts from the preferred one on, moving on while the outcome
  // says the host could not be reached.
  // `failFast`: whether the request may end at a failed attempt to connect (another host is left).
  template <typename T>
  using Attempt =
      std::function<void(const BrokerAddress& service, bool failFast, Callback<T> done)>;
  template <typename T>
  void acrossHosts(Attempt<T> attempt, std::size_t tried, Callback<T> done);
  // One LOOKUP answer, interpreted.
  struct Answer {
    BrokerAddress service;  // the service host the pass started from (proxying goes through it)
    BrokerAddress next;     // the broker named
    bool connect{false};    // true: `next` serves the topic; false: ask `next` (a redirect)
    bool authoritative{false};
  };
  void ask(const std::string& topic, const BrokerAddress& service, const BrokerAddress& at,
           bool authoritative, std::chrono::milliseconds timeout, bool failFast,
           Callback<Answer> done);
  void follow(const std::string& topic, Answer answer, int redirects,
              std::chrono::milliseconds timeout, Callback<BrokerAddress> done);

  const std::shared_ptr<ConnectionPool> pool_;
  const std::vector<BrokerAddress> services_;
  std::atomic<std::size_t> preferred_{0};
};

}  // namespace reconsume::detail::pulsar
