#include "embedded/broker_config.hpp"

#include <charconv>

#include "reconsume/error.hpp"

namespace reconsume::detail::embedded {

BrokerConfig BrokerConfig::fromOptions(const std::map<std::string, std::string>& options,
                                       const std::string& url) {
  BrokerConfig config;
  for (const auto& [name, value] : options) {
    if (name != "maxMessageSize") {
      throw Error(errc::invalid_argument, "unknown option '" + name + "' in '" + url +
                                              "' (the embedded broker knows maxMessageSize)");
    }
    std::uint64_t bytes = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), bytes);
    if (value.empty() || ec != std::errc() || end != value.data() + value.size() || bytes == 0) {
      throw Error(errc::invalid_argument, "maxMessageSize '" + value + "' in '" + url +
                                              "' is not a positive number of bytes");
    }
    config.maxMessageSize = bytes;
  }
  return config;
}

}  // namespace reconsume::detail::embedded
