// The data behind a reconsume::Message, filled in by a backend when it delivers a message and not
// changed after it is handed out.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "common/bytes.hpp"
#include "common/properties.hpp"
#include "common/shared_text.hpp"
#include "reconsume/message.hpp"

namespace reconsume::detail {

// Message::properties()'s std::map, built from the flat properties the first time the
// application asks (several threads may ask at once: one map wins, the others are dropped).
// A copy of the message builds its own.
class PropertyMapCache {
 public:
  using Map = std::map<std::string, std::string>;

  PropertyMapCache() = default;
  PropertyMapCache(const PropertyMapCache&) {}
  PropertyMapCache& operator=(const PropertyMapCache&) {
    delete map_.exchange(nullptr);
    return *this;
  }
  ~PropertyMapCache() { delete map_.load(); }

  const Map& get(const Properties& properties) const;

 private:
  mutable std::atomic<const Map*> map_{nullptr};
};

struct MessageData {
  SharedText topic;  // full name, with -partition-N for a partition
  MessageId id;
  Bytes payload;
  Properties properties;
  std::optional<std::string> partitionKey;
  bool partitionKeyIsBase64{false};
  std::optional<std::string> orderingKey;
  std::uint64_t publishTimeMs{0};
  std::optional<std::uint64_t> eventTimeMs;
  // When a delayed message (deliverAt, deliverAfter) was due; its lateness is measured from it.
  std::optional<std::uint64_t> deliverAtMs;
  SharedText producerName;
  std::uint64_t sequenceId{0};
  std::optional<std::string> replicatedFrom;
  int redeliveryCount{0};
  // Backend bookkeeping carried with the message until it is acknowledged (for example the
  // network backend's tracker of which indexes of a batch entry are acknowledged).
  std::shared_ptr<void> backendState;
  PropertyMapCache propertyMap;
};

// The data behind `message`; an empty one for an empty Message.
inline const MessageData& dataOf(const Message& message) {
  static const MessageData none;
  return message.impl() ? *message.impl() : none;
}

}  // namespace reconsume::detail
