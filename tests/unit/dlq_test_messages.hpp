// Test helper: Messages as a backend would deliver them, for the pure parts of dead-letter
// inspection (src/dlq).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "common/message_data.hpp"
#include "reconsume/message.hpp"

namespace reconsume::testing {

struct StoredMessage {
  std::string topic = "persistent://public/default/orders-billing-DLQ";
  MessageId id{7, 3, -1};
  std::string payload = "payload";
  std::map<std::string, std::string> properties;
  std::optional<std::string> key;
  bool keyIsBase64 = false;
  std::optional<std::string> orderingKey;
  std::chrono::system_clock::time_point publishTime =
      std::chrono::system_clock::time_point(std::chrono::milliseconds(1'704'067'200'000));
  std::optional<std::chrono::system_clock::time_point> eventTime;

  Message build() const {
    auto data = std::make_shared<detail::MessageData>();
    data->topic = topic;
    data->id = id;
    data->payload = detail::Bytes::copy(payload);
    data->properties = detail::Properties::fromMap(properties);
    data->partitionKey = key;
    data->partitionKeyIsBase64 = keyIsBase64;
    data->orderingKey = orderingKey;
    data->publishTimeMs = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(publishTime.time_since_epoch())
            .count());
    if (eventTime) {
      data->eventTimeMs = static_cast<std::uint64_t>(
          std::chrono::duration_cast<std::chrono::milliseconds>(eventTime->time_since_epoch())
              .count());
    }
    data->producerName = "dlq-producer";
    return Message(std::move(data));
  }
};

}  // namespace reconsume::testing
