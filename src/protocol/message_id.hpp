// Converting between reconsume::MessageId and Pulsar's MessageIdData.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>

#include "PulsarApi.pb.h"
#include "reconsume/message.hpp"

namespace reconsume::detail::protocol {

// Every field that is set: ledger, entry, partition, and batch index and size for a message of a
// batch. Negative ledger and entry ids (MessageId::earliest()) go out as Pulsar's Java client
// sends them: the 64-bit two's complement, i.e. 2^64 - 1 for -1.
proto::MessageIdData toMessageIdData(const MessageId& id);

// Ledger and entry only: how acknowledgements and redelivery requests name an entry.
proto::MessageIdData entryIdData(const MessageId& id);

// The id Pulsar sent. `partition` overrides the partition in `data` (a consumer knows which
// partition it reads; brokers do not always fill the field in).
MessageId toMessageId(const proto::MessageIdData& data);
MessageId toMessageId(const proto::MessageIdData& data, std::int32_t partition);

}  // namespace reconsume::detail::protocol
