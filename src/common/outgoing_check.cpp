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
  if (message.deliverAfter) {
    if (auto why = tooLong(*message.deliverAfter); !why.empty()) {
      return Status(errc::invalid_argument, "deliverAfter " + why);
    }
  }
  return {};
}

}  // namespace reconsume::detail
