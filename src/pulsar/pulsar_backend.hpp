// pulsar:// and pulsar+ssl://: the Backend seam over Pulsar's binary protocol.
//
// Thread safety: the backend may be used from any thread.
#pragma once

#include <boost/asio/io_context.hpp>
#include <memory>

#include "client/backend.hpp"
#include "common/log.hpp"
#include "common/metrics_registry.hpp"
#include "common/service_url.hpp"
#include "common/steady_clock.hpp"
#include "reconsume/client_options.hpp"

namespace reconsume::detail::pulsar {

// `url.kind` is pulsar or pulsarTls. The backend runs its connections on `io`; its timeouts,
// keep-alives and backoffs run on `clock` (null: the real steady clock). Throws
// Error(invalid_argument) naming the URL or the option for a bad one. Reconnects are counted in
// `metrics` (null: not counted).
std::shared_ptr<client::Backend> connectPulsar(const ServiceUrl& url, const ClientOptions& options,
                                               boost::asio::io_context& io, Log log,
                                               std::shared_ptr<SteadyClock> clock = nullptr,
                                               std::shared_ptr<MetricsRegistry> metrics = nullptr);

}  // namespace reconsume::detail::pulsar
