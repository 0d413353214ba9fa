// How many bytes a message counts against a broker's maximum message size when a producer sends
// it alone: its MessageMetadata (properties, keys, producer name, sequence id, publish time,
// delivery time, compression) plus its payload after compression. A pulsar:// producer refuses a
// message over the broker's limit by this count (checkMessageSize, outgoing.hpp); the embedded
// broker applies the same count, so that what one backend refuses the other refuses too.
//
// Thread safety: a pure function.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/outgoing_data.hpp"
#include "reconsume/producer_options.hpp"

namespace reconsume::detail::protocol {

// Encodes the metadata and compresses the payload to count them: a caller far under the limit
// skips it (see wireSizeAtMost).
std::size_t wireSize(const OutgoingData& message, const std::string& producerName,
                     std::uint64_t sequenceId, std::uint64_t publishTimeMs,
                     Compression compression);

// An upper bound of wireSize() without encoding anything: the payload, properties and keys, the
// framing of each field, and for a compressed payload what the codec may add (snappy, the worst,
// up to a sixth of the input).
std::size_t wireSizeAtMost(const OutgoingData& message, const std::string& producerName,
                           Compression compression);

}  // namespace reconsume::detail::protocol
