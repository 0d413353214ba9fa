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

}  // namespace reconsume::detail
