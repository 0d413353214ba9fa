// Messages: the id Pulsar gives a stored message, a received message, and a message to send.
//
// Thread safety: MessageId and OutgoingMessage are plain values. A Message is an immutable,
// reference-counted view of a received message: copies are cheap and may be read from any thread.
#pragma once

#include <chrono>
#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace reconsume {

namespace detail {
struct MessageData;
}

// Where a message is stored: ledger, entry, partition (-1 when the topic is not partitioned) and,
// for a message that came in a batch, its index in the batch (-1 otherwise).
class MessageId {
 public:
  MessageId() = default;  // same as earliest()
  MessageId(std::int64_t ledger, std::int64_t entry, std::int32_t partition = -1,
            std::int32_t batchIndex = -1, std::int32_t batchSize = 0);

  std::int64_t ledger() const { return ledger_; }
  std::int64_t entry() const { return entry_; }
  std::int32_t partition() const { return partition_; }
  std::int32_t batchIndex() const { return batchIndex_; }
  std::int32_t batchSize() const { return batchSize_; }  // 0 when not batched or unknown

  // "ledger:entry:partition", plus ":batchIndex" when the message came in a batch — the form the
  // Java client writes into ORIGIN_MESSAGE_ID. The Go client writes "ledger:entry:partition" only
  // (no batch index; partition 0 on a non-partitioned topic); parse reads both.
  std::string toString() const;
  // Parses toString()'s form; throws Error(errc::invalid_argument) naming the text otherwise.
  static MessageId parse(std::string_view text);

  // Before the first and after the last message of any topic (for readers and seek).
  static MessageId earliest();
  static MessageId latest();

  // Orders by ledger, entry, then batch index (the partition is not compared: ids of different
  // partitions are not comparable in a meaningful way). batchSize is not part of the identity.
  friend bool operator==(const MessageId& a, const MessageId& b) {
    return a.ledger_ == b.ledger_ && a.entry_ == b.entry_ && a.partition_ == b.partition_ &&
           a.batchIndex_ == b.batchIndex_;
  }
  friend std::strong_ordering operator<=>(const MessageId& a, const MessageId& b) {
    if (auto c = a.ledger_ <=> b.ledger_; c != 0) return c;
    if (auto c = a.entry_ <=> b.entry_; c != 0) return c;
    if (auto c = a.batchIndex_ <=> b.batchIndex_; c != 0) return c;
    return a.partition_ <=> b.partition_;
  }

 private:
  std::int64_t ledger_ = -1;
  std::int64_t entry_ = -1;
  std::int32_t partition_ = -1;
  std::int32_t batchIndex_ = -1;
  std::int32_t batchSize_ = 0;
};

// A message as a consumer or reader received it.
class Message {
 public:
  Message() = default;  // an empty message: every accessor returns an empty value
  explicit Message(std::shared_ptr<const detail::MessageData> data);

  std::string_view data() const;
  const std::map<std::string, std::string>& properties() const;
  std::optional<std::string> property(std::string_view key) const;
  std::optional<std::string> key() const;  // partition key, as sent (base64 text if so flagged)
  bool keyIsBase64() const;
  std::optional<std::string> orderingKey() const;
  const std::string& topic() const;  // full name, persistent://tenant/ns/name[-partition-N]
  MessageId id() const;
  int redeliveryCount() const;  // how often the broker redelivered it on this subscription
  std::chrono::system_clock::time_point publishTime() const;
  std::optional<std::chrono::system_clock::time_point> eventTime() const;
  const std::string& producerName() const;

  explicit operator bool() const { return data_ != nullptr; }
  const std::shared_ptr<const detail::MessageData>& impl() const { return data_; }

 private:
  std::shared_ptr<const detail::MessageData> data_;
};

// A message to send. Set at most one of deliverAfter / deliverAt; delayed delivery takes effect
// on Shared and Key_Shared subscriptions only (as in Pulsar).
struct OutgoingMessage {
  std::string payload;
  std::optional<std::string> key, orderingKey;
  bool keyIsBase64{false};
  std::map<std::string, std::string> properties;
  std::optional<std::chrono::milliseconds> deliverAfter;
  std::optional<std::chrono::system_clock::time_point> deliverAt;
  std::optional<std::chrono::system_clock::time_point> eventTime;
  // The payload as bytes the caller shares instead of handing over: sent without a copy of its
  // own (as Java's `value(byte[])` keeps the caller's array), so one buffer can go out in many
  // messages. The string must not change while the library holds it: until the send completed
  // (on embedded://, as long as the in-memory broker stores the message: it keeps these bytes). Set
  // this or `payload`, not both: a send with both set fails with errc::invalid_argument naming both
  // sizes.
  std::shared_ptr<const std::string> sharedPayload;
};

}  // namespace reconsume
