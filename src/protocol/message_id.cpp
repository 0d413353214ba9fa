#include "protocol/message_id.hpp"

namespace reconsume::detail::protocol {

proto::MessageIdData entryIdData(const MessageId& id) {
  proto::MessageIdData data;
  data.set_ledgerid(static_cast<std::uint64_t>(id.ledger()));
  data.set_entryid(static_cast<std::uint64_t>(id.entry()));
  return data;
}

proto::MessageIdData toMessageIdData(const MessageId& id) {
  proto::MessageIdData data = entryIdData(id);
  data.set_partition(id.partition());
  if (id.batchIndex() >= 0) data.set_batch_index(id.batchIndex());
  if (id.batchSize() > 0) data.set_batch_size(id.batchSize());
  return data;
}

MessageId toMessageId(const proto::MessageIdData& data) {
  return toMessageId(data, data.partition());
}

MessageId toMessageId(const proto::MessageIdData& data, std::int32_t partition) {
  return MessageId(static_cast<std::int64_t>(data.ledgerid()),
                   static_cast<std::int64_t>(data.entryid()), partition, data.batch_index(),
                   data.has_batch_size() ? data.batch_size() : 0);
}

}  // namespace reconsume::detail::protocol
