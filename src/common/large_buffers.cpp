#include "common/large_buffers.hpp"

#include <memory>

namespace reconsume::detail {

namespace {

// Owns a buffer and gives it back when the last Bytes sharing it is gone.
struct Returning {
  LargeBuffers& to;
  std::string buffer;
  Returning(LargeBuffers& pool, std::string&& taken) : to(pool), buffer(std::move(taken)) {}
  Returning(const Returning&) = delete;
  Returning& operator=(const Returning&) = delete;
  ~Returning() { to.give(std::move(buffer)); }
};

}  // namespace

LargeBuffers::LargeBuffers(std::size_t keptBytes) : mostBytes_(keptBytes) {
  kept_.reserve(keptBytes / kSmallestKept);
}

LargeBuffers& LargeBuffers::shared() {
  static auto* buffers = new LargeBuffers;
  return *buffers;
}

std::string LargeBuffers::take(std::size_t capacity) {
  std::string buffer;
  {
    std::lock_guard lock(mutex_);
    // The most recently kept first: its memory is the likeliest to be in the cache still.
    for (auto it = kept_.rbegin(); it != kept_.rend(); ++it) {
      if (it->capacity() < capacity) continue;
      buffer = std::move(*it);
      kept_.erase(std::next(it).base());
      keptBytes_ -= buffer.capacity();
      break;
    }
  }
  buffer.reserve(capacity);
  return buffer;
}

void LargeBuffers::give(std::string&& buffer) noexcept {
  const auto capacity = buffer.capacity();
  if (capacity < kSmallestKept || capacity > kLargestKept) return;
  std::lock_guard lock(mutex_);
  if (keptBytes_ + capacity > mostBytes_ || kept_.size() == kept_.capacity()) return;
  buffer.clear();
  kept_.push_back(std::move(buffer));
  keptBytes_ += capacity;
}

Bytes LargeBuffers::adopt(std::string&& buffer, std::size_t offset, std::size_t count) {
  auto owner = std::make_shared<const Returning>(*this, std::move(buffer));
  return Bytes(owner, std::string_view(owner->buffer).substr(offset, count));
}

}  // namespace reconsume::detail
