// embedded://: the in-process broker behind the Backend and AdminBackend seams.
//
// Every Backend operation completes inline, on the caller's thread, after the broker's locks are
// released. Messages reach sinks with a topic's lock held (see MessageSink in client/backend.hpp).
// Delayed messages are released, and transactions still open at their timeout aborted, by timers
// on the broker's clock (ManualClock: inside advance).
//
// Thread safety: every function and every object returned may be used from any thread.
#pragma once

#include <memory>

#include "client/admin_backend.hpp"
#include "client/backend.hpp"
#include "common/service_url.hpp"
#include "reconsume/clock.hpp"

namespace reconsume::detail::embedded {

class Broker;

struct EmbeddedConnection {
  std::shared_ptr<client::Backend> backend;
  std::shared_ptr<Clock> clock;  // the broker's clock
};

// `url.kind == embedded`; url.host is the broker's name ("" = the process's default broker).
// Brokers are shared by name and live while a Backend or AdminBackend holds them. The first
// connect creates the broker with `clock` (null: SystemClock::shared()) and url.options
// (maxMessageSize=<bytes>, default 5242880); a later connect with a null clock adopts the
// broker's clock. Throws Error(invalid_argument) naming the broker for a different non-null clock
// or a different maxMessageSize, and naming the option for an unknown option or a bad value.
EmbeddedConnection connectEmbedded(const ServiceUrl& url, std::shared_ptr<Clock> clock);
std::shared_ptr<client::AdminBackend> connectEmbeddedAdmin(const ServiceUrl& url);

// The adapters on a given broker, outside the registry (tests build brokers with their own
// BrokerConfig).
std::shared_ptr<client::Backend> makeBackend(std::shared_ptr<Broker> broker);
std::shared_ptr<client::AdminBackend> makeAdmin(std::shared_ptr<Broker> broker);

}  // namespace reconsume::detail::embedded
