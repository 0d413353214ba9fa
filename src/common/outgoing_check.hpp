// What every backend refuses in the same way before sending a message: a negative deliverAfter,
// or both deliverAfter and deliverAt set.
#pragma once

#include "common/outgoing_data.hpp"
#include "common/status.hpp"

namespace reconsume::detail {

// A failed Status naming the value, or ok.
Status checkOutgoing(const OutgoingData& message);

}  // namespace reconsume::detail
