// The library's HTTP admin backend (src/admin) connected to the test broker's admin URL, for the
// tests of that layer itself, beneath the public Admin facade.
#pragma once

#include <memory>

#include "admin/http_admin.hpp"
#include "common/service_url.hpp"
#include "integration/pulsar_environment.hpp"

namespace reconsume::integration {

inline std::shared_ptr<detail::client::AdminBackend> admin() {
  return detail::admin::connectHttpAdmin(detail::ServiceUrl::parse(pulsar().adminUrl),
                                         pulsar().adminOptions());
}

}  // namespace reconsume::integration
