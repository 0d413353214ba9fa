#include "common/outgoing_check.hpp"

#include <string>

#include "common/duration.hpp"

namespace reconsume::detail {

Status checkOutgoing(const OutgoingData& message) {
  if (message.deliverAfter && message.deliverAt) {
    return Status(errc::invalid_argument, "a message sets both deliverAfter (" +
                                              std::to_string(message.deliverAfter->count()) +
                                              "ms) and deliverAt; set at most one");
  }
  if (message.deliverAfter && message.deliverAfter->count() < 0) {
    return Status(
        errc::invalid_argument,
        "deliverAfter " + std::to_string(message.deliverAfter->count()) + "ms is negative");
  }
  if (message.eventTime) {
    // Pulsar stores an event time as unsigned milliseconds since the epoch, 0 meaning "none": an
    // earlier one would wrap to the far future, one within the first millisecond would vanish.
    auto ms = std::chrono::floor<std::chrono::milliseconds>(message.eventTime->time_since_epoch());
    if (ms.count() < 1) {
      return Status(errc::invalid_argument,
                    "eventTime " + std::to_string(ms.count()) +
                        "ms since the epoch is not after 1970-01-01T00:00:00Z; Pulsar keeps "
                        "event times as positive milliseconds since then");
    }
  }
  if (message.deliverAfter) {
    if (auto why = tooLong(*message.deliverAfter); !why.empty()) {
      return Status(errc::invalid_argument, "deliverAfter " + why);
    }
  }
  return {};
}

}  // namespace reconsume::detail
