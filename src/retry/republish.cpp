#include "retry/republish.hpp"

namespace reconsume::detail::retry {

OutgoingMessage republished(const Message& original, std::map<std::string, std::string> properties,
                            const Route& route) {
  OutgoingMessage outgoing;
  outgoing.properties = std::move(properties);
  outgoing.payload = std::string(original.data());
  outgoing.key = original.key();
  outgoing.keyIsBase64 = original.keyIsBase64();
  outgoing.orderingKey = original.orderingKey();
  outgoing.eventTime = original.eventTime();
  if (route.destination == Destination::retryTopic) outgoing.deliverAfter = route.delay;
  return outgoing;
}

}  // namespace reconsume::detail::retry
