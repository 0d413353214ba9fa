// How internal async operations report: a callback with a Status and the results. Every layer
// below the public API speaks it; the public classes turn it into Asio completion handlers.
//
// Contract wherever a Callback is taken: it runs exactly once, never while a lock of the library
// is held.
#pragma once

#include <functional>

#include "common/status.hpp"

namespace reconsume::detail {

template <typename... Results>
using Callback = std::function<void(const Status&, Results...)>;

}  // namespace reconsume::detail
