#include "dlq/picked_receiver.hpp"

#include "reconsume/error.hpp"

namespace reconsume::detail::dlq {

PickedReceiver::PickedReceiver(Client& client, const std::string& topic,
                               const std::string& subscription,
                               const std::vector<MessageId>& picked)
    : pending_(picked.begin(), picked.end()) {
  ConsumerOptions options;
  options.topics = {topic};
  options.subscription = subscription;
  // Shared: other consumers of the subscription (a running dead-letter processor) may stay.
  options.subscriptionType = SubscriptionType::shared;
  options.initialPosition = InitialPosition::earliest;
  // A replayed or purged dead letter is reported once the broker confirmed its acknowledgement.
  options.acknowledgmentGroupTime = std::chrono::milliseconds(0);
  consumer_ = client.subscribe(options);
}

PickedReceiver::~PickedReceiver() {
  try {
    close();
  } catch (const Error&) {
    // Only a closed client or a lost connection: the broker returns the messages either way.
  }
}

std::optional<Message> PickedReceiver::next(std::chrono::milliseconds patience) {
  auto deadline = std::chrono::steady_clock::now() + patience;
  while (!pending_.empty()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    auto message = consumer_.receive(left);
    if (!message) return std::nullopt;
    // Not picked (or a second delivery of one handed out): not acknowledged, not touched.
    if (pending_.erase(message->id()) > 0) return message;
  }
  return std::nullopt;
}

void PickedReceiver::close() {
  if (closed_) return;
  closed_ = true;
  consumer_.close();
}

}  // namespace reconsume::detail::dlq
