// Placeholder until the network backend lands.
#include "client/backend_factory.hpp"

namespace reconsume::detail {

std::shared_ptr<Backend> connectPulsar(const ServiceUrl& url, const ClientOptions&,
                                       boost::asio::io_context&, std::shared_ptr<Clock>, Log) {
  throw Error(errc::unsupported, "pulsar:// is not available yet (" + url.text + ")");
}

}  // namespace reconsume::detail
