// A message on its way to a backend: OutgoingMessage as the layers below the public API carry it,
// with its properties flat (common/properties.hpp) and its payload shared (common/bytes.hpp). The
// retry layer builds one directly; the public API converts the application's OutgoingMessage.
//
// Thread safety: a plain value.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "common/bytes.hpp"
#include "common/properties.hpp"
#include "reconsume/message.hpp"

namespace reconsume::detail {

struct OutgoingData {
  Bytes payload;
  std::optional<std::string> key, orderingKey;
  bool keyIsBase64{false};
  Properties properties;
  std::optional<std::chrono::milliseconds> deliverAfter;
  std::optional<std::chrono::system_clock::time_point> deliverAt;
  std::optional<std::chrono::system_clock::time_point> eventTime;

  OutgoingData() = default;
  // Implicit: every send takes an OutgoingMessage as readily. The first copies the payload; the
  // second takes it over.
  OutgoingData(const OutgoingMessage& message);  // NOLINT
  OutgoingData(OutgoingMessage&& message);       // NOLINT

  // The payload, the keys and every property's name and value: what the send limits count.
  std::size_t contentBytes() const {
    return payload.size() + (key ? key->size() : 0) + (orderingKey ? orderingKey->size() : 0) +
           properties.contentBytes();
  }
};

}  // namespace reconsume::detail
