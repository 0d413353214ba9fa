#include "retry/poison_dead_letters.hpp"

#include "client/consumer_impl.hpp"
#include "common/message_data.hpp"
#include "retry/move_metrics.hpp"
#include "retry/property_keys.hpp"
#include "retry/republish.hpp"
#include "retry/retry_properties.hpp"

namespace reconsume::detail::retry {

void PoisonDeadLetters::onPoison(const Message& message,
                                 const std::shared_ptr<client::ConsumerImpl>& consumer) {
  auto& client = consumer->client();
  Route route;
  route.destination = Destination::deadLetterTopic;
  route.cause = DeadLetterCause::redelivered;
  // Not a retry: the message keeps its own count.
  auto count = message.property(keys::reconsumeTimes);
  route.count = static_cast<int>(
      std::min<std::int64_t>(parsePropertyCount(count.value_or("0")).value_or(0), INT32_MAX));
  std::string reason = "delivered " + std::to_string(message.redeliveryCount() + 1) +
                       " times (maxRedeliverCount " + std::to_string(maxRedeliverCount_) + ")";
  OutgoingData outgoing;
  try {
    outgoing =
        republished(message,
                    buildProperties(dataOf(message).properties, message.topic(), subscription_,
                                    message.id(), route, client.clock()->now(), reason, {}),
                    route);
  } catch (const Error& e) {
    client.log().error("poison message " + message.id().toString() + " of " + message.topic() +
                       " cannot be dead-lettered: " + e.what());
    return;
  }
  auto failed = [consumer, message, target = deadLetters_->topic()](const Status& status) {
    consumer->client().log().warn("dead-lettering poison message " + message.id().toString() +
                                  " to " + target + " failed (" + status.message +
                                  "); it is redelivered and tried again");
    consumer->negativeAcknowledge(message);
  };
  deadLetters_->get([consumer, message, outgoing = std::move(outgoing), failed, route](
                        const Status& status, std::shared_ptr<client::ProducerImpl> producer) {
    if (!status.ok()) return failed(status);
    producer->send(
        outgoing, [consumer, message, failed, route](const Status& sent, const MessageId&) {
          if (!sent.ok()) return failed(sent);
          consumer->acknowledge(
              message,
              [consumer, message, route](const Status& acked) {
                if (acked.ok()) {
                  MoveMetrics(consumer->client().metricsPtr(), consumer->options().subscription)
                      .counted(route);
                  return;
                }
                consumer->client().log().warn(
                    "poison message " + message.id().toString() +
                    " is dead-lettered but its acknowledgement failed: " + acked.message);
              },
              client::ConsumerImpl::AckDispatch::confirmed);
        });
  });
}

}  // namespace reconsume::detail::retry
