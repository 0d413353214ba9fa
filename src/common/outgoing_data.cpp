#include "common/outgoing_data.hpp"

namespace reconsume::detail {
namespace {

// The caller's shared payload, kept alive by the view (no copy).
Bytes shared(std::shared_ptr<const std::string> text) {
  if (text->empty()) return Bytes();
  std::string_view view(*text);
  return Bytes(std::move(text), view);
}

}  // namespace

OutgoingData::OutgoingData(const OutgoingMessage& message)
    : payload(message.sharedPayload ? shared(message.sharedPayload) : Bytes::copy(message.payload)),
      key(message.key),
      orderingKey(message.orderingKey),
      keyIsBase64(message.keyIsBase64),
      properties(Properties::fromMap(message.properties)),
      deliverAfter(message.deliverAfter),
      deliverAt(message.deliverAt),
      eventTime(message.eventTime) {}

OutgoingData::OutgoingData(OutgoingMessage&& message)
    : payload(message.sharedPayload ? shared(std::move(message.sharedPayload))
                                    : Bytes::adopt(std::move(message.payload))),
      key(std::move(message.key)),
      orderingKey(std::move(message.orderingKey)),
      keyIsBase64(message.keyIsBase64),
      properties(Properties::fromMap(message.properties)),
      deliverAfter(message.deliverAfter),
      deliverAt(message.deliverAt),
      eventTime(message.eventTime) {}

}  // namespace reconsume::detail
