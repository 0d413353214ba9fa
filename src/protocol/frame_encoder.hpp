// Serialises commands into frames (layout in frame.hpp).
//
// The encode functions return the bytes to write; the append forms add them to a buffer the
// caller owns, so several frames can go out in one write.
//
// Errors (thrown, since they are programming errors of the caller, never caused by the peer):
// Error(errc::invalid_argument) when the command misses a required field, naming it;
// Error(errc::too_large) when a frame would not fit Pulsar's 32-bit size field.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "PulsarApi.pb.h"
#include "common/bytes.hpp"

namespace reconsume::detail::protocol {

// [totalSize][commandSize][command]
std::string encodeFrame(const proto::BaseCommand& command);
void appendFrame(std::string& out, const proto::BaseCommand& command);

// [totalSize][commandSize][command][0x0e01][crc32c][metadataSize][metadata][payload]
// `payload` goes out as given: compress it first when metadata.compression() says so.
std::string encodePayloadFrame(const proto::BaseCommand& command,
                               const proto::MessageMetadata& metadata, std::string_view payload);
void appendPayloadFrame(std::string& out, const proto::BaseCommand& command,
                        const proto::MessageMetadata& metadata, std::string_view payload);

// The same frame written in front of its payload: `buffer` holds the payload from `payloadBegin`
// to its end, with room before it. When the frame's head (sizes, command, checksum, metadata)
// fits in that room it is written there and the payload is not copied: the frame is the tail of
// `buffer`. Otherwise the frame is written into a new buffer. Either way `buffer`'s memory goes
// back to the kept large buffers (common/large_buffers.hpp) when it is no longer needed.
Bytes encodePayloadFrameInPlace(std::string buffer, std::size_t payloadBegin,
                                const proto::BaseCommand& command,
                                const proto::MessageMetadata& metadata);

// The same with broker entry metadata ([0x0e02][size][BrokerEntryMetadata]) after the command, as
// a broker sends it. For tests and tools that play the broker's part.
void appendPayloadFrame(std::string& out, const proto::BaseCommand& command,
                        const proto::BrokerEntryMetadata& brokerEntryMetadata,
                        const proto::MessageMetadata& metadata, std::string_view payload);

}  // namespace reconsume::detail::protocol
