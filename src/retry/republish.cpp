#include "retry/republish.hpp"

#include "common/message_data.hpp"

namespace reconsume::detail::retry {

OutgoingData republished(const Message& original, Properties properties, const Route& route) {
  const MessageData& data = dataOf(original);
  OutgoingData outgoing;
  outgoing.properties = std::move(properties);
  outgoing.payload = data.payload;
  outgoing.key = data.partitionKey;
  outgoing.keyIsBase64 = data.partitionKeyIsBase64;
  outgoing.orderingKey = data.orderingKey;
  outgoing.eventTime = original.eventTime();
  if (route.destination == Destination::retryTopic) outgoing.deliverAfter = route.delay;
  return outgoing;
}

}  // namespace reconsume::detail::retry
