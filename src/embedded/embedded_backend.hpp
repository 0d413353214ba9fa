// embedded://: the in-process broker behind the Backend and AdminBackend seams.
//
// Every Backend operation completes inline, on the caller's thread, after the broker's locks are
// released. Messages reach sinks with a topic's lock held (see MessageSink in backend.hpp).
// Delayed messages are released by a timer on the broker's clock (ManualClock: inside advance).
//
// Thread safety: every function and every object returned may be used from any thread.
#pragma once

#include <memory>

#include "client/backend_factory.hpp"
#include "common/service_url.hpp"
#include "reconsume/clock.hpp"

namespace reconsume::detail {

// connectEmbedded and connectEmbeddedAdmin are declared in client/backend_factory.hpp.

namespace embedded {
class Broker;
// The adapters on a given broker, outside the registry (tests build brokers with their own
// BrokerConfig).
std::shared_ptr<Backend> makeBackend(std::shared_ptr<Broker> broker);
std::shared_ptr<AdminBackend> makeAdmin(std::shared_ptr<Broker> broker);
}  // namespace embedded

}  // namespace reconsume::detail
