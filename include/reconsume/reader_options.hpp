// ReaderOptions: where a Reader starts (Client::createReader checks them).
//
// Thread safety: a plain value.
#pragma once

#include <string>

#include "reconsume/message.hpp"

namespace reconsume {

struct ReaderOptions {
  std::string topic;
  // The reader reads what follows this message: MessageId::earliest() from the first message,
  // MessageId::latest() what is published after the reader was created (SPEC.md section 13).
  MessageId startMessageId = MessageId::earliest();
  // The start message itself first; from MessageId::latest(), the topic's last message first.
  bool startMessageIdInclusive{false};
  int receiverQueueSize{1000};
  std::string readerName;  // empty: ten random hexadecimal digits
};

}  // namespace reconsume
