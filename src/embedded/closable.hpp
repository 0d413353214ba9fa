// What an embedded backend can do to every producer and consumer it made, when it closes.
#pragma once

namespace reconsume::detail::embedded {

class Closable {
 public:
  virtual ~Closable() = default;
  // Detaches from the broker; idempotent.
  virtual void closeNow() = 0;
};

}  // namespace reconsume::detail::embedded
