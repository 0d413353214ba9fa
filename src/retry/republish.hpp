// The message a move publishes: the original's payload (shared, not copied), keys and event time
// with the properties of SPEC.md section 2, and the delivery delay on the retry topic.
//
// Thread safety: pure function.
#pragma once

#include "common/outgoing_data.hpp"
#include "reconsume/message.hpp"
#include "retry/routing.hpp"

namespace reconsume::detail::retry {

OutgoingData republished(const Message& original, Properties properties, const Route& route);

}  // namespace reconsume::detail::retry
