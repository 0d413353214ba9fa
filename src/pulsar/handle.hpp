// What a pulsar:// backend can do to every producer and consumer it made, when it closes.
#pragma once

#include "common/status.hpp"

namespace reconsume::detail::pulsar {

class Handle {
 public:
  virtual ~Handle() = default;
  // Ends the object for good: every operation in flight and every later one fails with `why`.
  virtual void shutdown(const Status& why) = 0;
};

}  // namespace reconsume::detail::pulsar
