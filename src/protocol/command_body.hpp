// Whether a command holds the body its type names. A frame whose type says MESSAGE but that holds
// no CommandMessage is as unusable as one that does not parse, so the frame decoder refuses it
// (FrameError::bad_command); the response decoders can then read the body without checking.
//
// Thread safety: pure functions.
#pragma once

#include "PulsarApi.pb.h"

namespace reconsume::detail::protocol {

// True also for commands whose body this library does not declare (their fields are kept as
// unknown fields), and for PING and PONG, whose bodies are empty.
bool hasBody(const proto::BaseCommand& command);

}  // namespace reconsume::detail::protocol
