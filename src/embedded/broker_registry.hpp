// The process-wide registry of embedded brokers, by name. Brokers are held weakly: every client
// and admin connecting to the same name shares one broker, which lives while any of them holds
// it; the next connect after the last one let go starts a fresh, empty broker.
//
// Thread safety: acquireBroker and findBroker may be called from any thread.
#pragma once

#include <memory>
#include <string>

#include "common/service_url.hpp"
#include "embedded/broker.hpp"
#include "reconsume/clock.hpp"

namespace reconsume::detail::embedded {

// The broker named url.host, created with `clock` (null: SystemClock::shared()) and url.options
// when none is running. Throws Error(invalid_argument) naming the broker when `clock` is not null
// and differs from the running broker's, or when url.options sets maxMessageSize to another value
// than the running broker's; naming the option for an unknown option or a bad value.
std::shared_ptr<Broker> acquireBroker(const ServiceUrl& url, std::shared_ptr<Clock> clock);

// The running broker named `name` (the host of its embedded:// URL; "" for the default one), or
// null when none runs. Starts nothing. For tests: findBroker(name)->faults() (faults.hpp).
std::shared_ptr<Broker> findBroker(const std::string& name);

}  // namespace reconsume::detail::embedded
