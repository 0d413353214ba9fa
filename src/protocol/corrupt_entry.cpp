#include "protocol/corrupt_entry.hpp"

namespace reconsume::detail::protocol {

std::optional<CorruptEntry> corruptEntryOf(const DecodeError& error) {
  if (!error.resumable || !error.command || error.command->type() != proto::BaseCommand::MESSAGE ||
      !error.command->has_message()) {
    return std::nullopt;
  }
  switch (error.kind) {
    case FrameError::checksum_mismatch:
    case FrameError::bad_magic:
    case FrameError::bad_broker_entry_metadata:
    case FrameError::bad_metadata:
      break;
    default:
      return std::nullopt;
  }
  const auto& message = error.command->message();
  CorruptEntry entry;
  entry.consumerId = message.consumer_id();
  entry.id = MessageId(static_cast<std::int64_t>(message.message_id().ledgerid()),
                       static_cast<std::int64_t>(message.message_id().entryid()));
  entry.why = error.message;
  return entry;
}

}  // namespace reconsume::detail::protocol
