// How internal async operations report: a callback with a Status and the results. Every layer
// below the public API speaks it; the public classes turn it into Asio completion handlers.
//
// Contract wherever a Callback is taken: it runs exactly once, never while a lock of the library
// is held.
#pragma once

#include "common/inline_function.hpp"
#include "common/status.hpp"

namespace reconsume::detail {

// An InlineFunction (common/inline_function.hpp): a completion capturing a couple of shared
// pointers is kept without a heap allocation.
template <typename... Results>
using Callback = InlineFunction<void(const Status&, Results...)>;

// What a backend's send and acknowledge take, on the path of every publish and acknowledgement:
// the client layer wraps the caller's Callback in one that counts and gives back room, and a
// Callback can never fit inside another of its own size — here that wrapper is kept without a
// heap allocation. Same contract as Callback; a Callback converts to it.
template <typename... Results>
using BackendCallback = InlineFunction<void(const Status&, Results...), 120>;

}  // namespace reconsume::detail
