// The data behind a reconsume::Message, filled in by a backend when it delivers a message.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "reconsume/message.hpp"

namespace reconsume::detail {

struct MessageData {
  std::string topic;  // full name, with -partition-N for a partition
  MessageId id;
  std::string payload;
  std::map<std::string, std::string> properties;
  std::optional<std::string> partitionKey;
  bool partitionKeyIsBase64{false};
  std::optional<std::string> orderingKey;
  std::uint64_t publishTimeMs{0};
  std::optional<std::uint64_t> eventTimeMs;
  // When a delayed message (deliverAt, deliverAfter) was due; its lateness is measured from it.
  std::optional<std::uint64_t> deliverAtMs;
  std::string producerName;
  std::uint64_t sequenceId{0};
  std::optional<std::string> replicatedFrom;
  int redeliveryCount{0};
  // Backend bookkeeping carried with the message until it is acknowledged (for example the
  // network backend's tracker of which indexes of a batch entry are acknowledged).
  std::shared_ptr<void> backendState;
};

}  // namespace reconsume::detail
