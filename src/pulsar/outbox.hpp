// What a connection's session has to write: frames kept by reference (a producer's entries,
// which its send queue keeps too, to write again after a reconnection) and small frames copied
// together into one buffer (commands, acknowledgements, flow). The writer takes it all at once and
// writes it with one gathering write, so an entry's bytes are copied once on their way to the
// socket: by the kernel.
//
// Thread safety: none; used on the connection's strand.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/bytes.hpp"

namespace reconsume::detail::pulsar {

class Outbox {
 public:
  // Copied (a command, or anything small).
  void add(std::string_view bytes) { small_.append(bytes); }
  // Kept by reference: no copy.
  void add(Bytes frame) {
    seal();
    bytes_ += frame.size();
    frames_.push_back(std::move(frame));
  }

  bool empty() const { return frames_.empty() && small_.empty(); }
  std::size_t size() const { return bytes_ + small_.size(); }

  // Everything added so far, in order, into `out` (which the writer keeps until written).
  void takeInto(std::vector<Bytes>& out) {
    seal();
    out.swap(frames_);
    frames_.clear();
    bytes_ = 0;
  }

 private:
  void seal() {
    if (small_.empty()) return;
    bytes_ += small_.size();
    frames_.push_back(Bytes::adopt(std::move(small_)));
    small_.clear();
  }

  std::vector<Bytes> frames_;
  std::string small_;
  std::size_t bytes_ = 0;  // of frames_
};

}  // namespace reconsume::detail::pulsar
