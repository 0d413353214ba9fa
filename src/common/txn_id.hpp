// The id of a Pulsar transaction: its coordinator's id in the most significant 64 bits and the
// coordinator's sequence number in the least, as NEW_TXN_RESPONSE hands it out and every
// transactional command repeats it (txnid_most_bits, txnid_least_bits).
//
// Thread safety: a value type; toString() is pure.
#pragma once

#include <cstdint>
#include <string>

namespace reconsume::detail {

struct TxnId {
  std::uint64_t mostBits{0};
  std::uint64_t leastBits{0};

  // "(1,42)": both halves as signed 64-bit decimals, as Java's TxnID.toString() prints its two
  // longs, so an id logged by a Java client and by this library reads the same.
  std::string toString() const {
    return "(" + std::to_string(static_cast<std::int64_t>(mostBits)) + "," +
           std::to_string(static_cast<std::int64_t>(leastBits)) + ")";
  }

  friend bool operator==(const TxnId&, const TxnId&) = default;
};

}  // namespace reconsume::detail
