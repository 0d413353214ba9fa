#include "common/outgoing_data.hpp"

namespace reconsume::detail {

OutgoingData::OutgoingData(const OutgoingMessage& message)
    : payload(message.sharedPayload ? Bytes::share(message.sharedPayload)
                                    : Bytes::copy(message.payload)),
      key(message.key),
      orderingKey(message.orderingKey),
      keyIsBase64(message.keyIsBase64),
      properties(Properties::fromMap(message.properties)),
      deliverAfter(message.deliverAfter),
      deliverAt(message.deliverAt),
      eventTime(message.eventTime) {}

OutgoingData::OutgoingData(OutgoingMessage&& message)
    : payload(message.sharedPayload ? Bytes::share(std::move(message.sharedPayload))
                                    : Bytes::adopt(std::move(message.payload))),
      key(std::move(message.key)),
      orderingKey(std::move(message.orderingKey)),
      keyIsBase64(message.keyIsBase64),
      properties(Properties::fromMap(message.properties)),
      deliverAfter(message.deliverAfter),
      deliverAt(message.deliverAt),
      eventTime(message.eventTime) {}

}  // namespace reconsume::detail
