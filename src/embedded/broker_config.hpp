// Settings of one embedded broker, fixed when the broker is created.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace reconsume::detail::embedded {

struct BrokerConfig {
  // Pulsar's default maxMessageSize (5 MiB). Counted over payload, properties and keys.
  std::uint64_t maxMessageSize{5 * 1024 * 1024};
  // How many fully acknowledged entries of a topic stay readable (by readers, seek) before the
  // oldest are dropped. Pulsar frees acknowledged data only when a ledger rolls over (50,000
  // entries by default), so recently acknowledged messages are still readable there too; keeping
  // a bounded tail keeps a long-running embedded broker's memory flat.
  std::int64_t retainedAcknowledgedEntries{50'000};

  // From the options of an embedded:// URL (only maxMessageSize=<bytes> is known). Throws
  // Error(invalid_argument) naming an unknown option or a bad value; `url` is quoted in the text.
  static BrokerConfig fromOptions(const std::map<std::string, std::string>& options,
                                  const std::string& url);
};

}  // namespace reconsume::detail::embedded
