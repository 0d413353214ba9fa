// The message a move publishes: the original's payload, keys and event time with the properties
// of SPEC.md section 2, and the delivery delay on the retry topic.
//
// Thread safety: pure function.
#pragma once

#include <map>
#include <string>

#include "reconsume/message.hpp"
#include "retry/routing.hpp"

namespace reconsume::detail::retry {

OutgoingMessage republished(const Message& original, std::map<std::string, std::string> properties,
                            const Route& route);

}  // namespace reconsume::detail::retry
