// ReaderOptions: where a Reader starts (Client::createReader checks them).
//
// Thread safety: a plain value.
#pragma once

#include <string>

#include "reconsume/message.hpp"

namespace reconsume {

struct ReaderOptions {
  std::string topic;
  MessageId startMessageId = MessageId::earliest();
  bool startMessageIdInclusive{false};
  int receiverQueueSize{1000};
  std::string readerName;  // empty: generated
};

}  // namespace reconsume
