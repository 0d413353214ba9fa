// libFuzzer target: message-id text (MessageId::parse), as it arrives in ORIGIN_MESSAGE_ID from
// the Java and Go clients and on the command line.
//
// Input: the text. Besides "no crash", it aborts when
//   - parse throws anything but Error(errc::invalid_argument);
//   - a parsed id does not print (toString) to a text that parses to the same id, or that text
//     does not print the same again;
//   - an id made of the input's first 24 bytes (ledger, entry, partition, batch index >= -1) does
//     not survive toString and parse.
#include <cstdint>
#include <cstring>
#include <string_view>

#include "fuzz_check.hpp"
#include "reconsume/message.hpp"

using reconsume::MessageId;
using reconsume::fuzz::accepts;
using reconsume::fuzz::check;

namespace {

void roundTrip(const MessageId& id) {
  const std::string text = id.toString();
  MessageId again;
  check(accepts([&] { again = MessageId::parse(text); }), "a printed id does not parse");
  check(again == id, "a printed id parses to another id");
  check(again.toString() == text, "a re-parsed id prints differently");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  MessageId id;
  if (accepts([&] { id = MessageId::parse(text); })) roundTrip(id);

  if (size >= 24) {
    std::int64_t ledger = 0, entry = 0;
    std::int32_t partition = 0, batch = 0;
    std::memcpy(&ledger, data, 8);
    std::memcpy(&entry, data + 8, 8);
    std::memcpy(&partition, data + 16, 4);
    std::memcpy(&batch, data + 20, 4);
    // toString leaves out a batch index below zero: every such id is "not batched" (-1).
    roundTrip(MessageId(ledger, entry, partition, batch < 0 ? -1 : batch));
  }
  return 0;
}
