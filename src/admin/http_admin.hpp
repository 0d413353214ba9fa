// The admin backend for Pulsar: its admin REST API v2 (http://host:8080, https://host:8443),
// with the token as "Authorization: Bearer" and TLS verification from AdminOptions::tls.
//
// Thread safety: the backend is immutable after construction; every operation may run from
// several threads at once. Each operation is bounded by AdminOptions::timeout as a whole.
// Connecting does not touch the network: an unreachable broker shows at the first operation.
//
// Backlogs are Pulsar's msgBacklog: stored entries, so a batch counts once until every message in
// it is acknowledged (10 batched messages show a backlog of 1, and still 1 after 3 acks).
// partitions() is 0 for a topic that does not exist (Pulsar 4 answers 404 there).
#pragma once

#include <memory>

#include "client/admin_backend.hpp"
#include "common/service_url.hpp"
#include "reconsume/admin_options.hpp"

namespace reconsume::detail::admin {

// `url.kind` must be http or https (else invalid_argument naming the URL). Throws
// invalid_argument naming the file when a CA, certificate or key file cannot be loaded.
std::shared_ptr<client::AdminBackend> connectHttpAdmin(const ServiceUrl& url,
                                                       const AdminOptions& options);

}  // namespace reconsume::detail::admin
