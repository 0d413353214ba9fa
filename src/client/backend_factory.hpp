// How a Client gets its backend: one factory per kind of service URL. Each lives in its
// backend's folder (src/embedded, src/pulsar); the client layer only sees this header.
#pragma once

#include <boost/asio/io_context.hpp>
#include <memory>

#include "client/admin_backend.hpp"
#include "client/backend.hpp"
#include "common/log.hpp"
#include "common/service_url.hpp"
#include "reconsume/client.hpp"

namespace reconsume::detail {

struct EmbeddedConnection {
  std::shared_ptr<Backend> backend;
  std::shared_ptr<Clock> clock;  // the broker's clock
};
// `url.kind == embedded`; url.host is the broker's name ("" = the process's default broker).
// Brokers are shared by name and live while a Backend or AdminBackend holds them. The first
// connect creates the broker with `clock` (null: SystemClock::shared()) and url.options
// (maxMessageSize=<bytes>, default 5242880); a later connect with a null clock adopts the
// broker's clock. Throws Error(invalid_argument) naming the broker for a different non-null clock
// or a different maxMessageSize, and naming the option for an unknown option or a bad value.
EmbeddedConnection connectEmbedded(const ServiceUrl& url, std::shared_ptr<Clock> clock);
std::shared_ptr<AdminBackend> connectEmbeddedAdmin(const ServiceUrl& url);

// `url.kind` is pulsar or pulsarTls. The backend runs its connections on `io`.
std::shared_ptr<Backend> connectPulsar(const ServiceUrl& url, const ClientOptions& options,
                                       boost::asio::io_context& io, std::shared_ptr<Clock> clock,
                                       Log log);

// `url.kind` is http or https.
std::shared_ptr<AdminBackend> connectHttpAdmin(const ServiceUrl& url, const AdminOptions& options);

}  // namespace reconsume::detail
