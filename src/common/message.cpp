#include "reconsume/message.hpp"

#include <charconv>
#include <limits>
#include <vector>

#include "common/epoch_time.hpp"
#include "common/message_data.hpp"
#include "reconsume/error.hpp"

namespace reconsume {

MessageId::MessageId(std::int64_t ledger, std::int64_t entry, std::int32_t partition,
                     std::int32_t batchIndex, std::int32_t batchSize)
    : ledger_(ledger),
      entry_(entry),
      partition_(partition),
      batchIndex_(batchIndex),
      batchSize_(batchSize) {}

std::string MessageId::toString() const {
  std::string text =
      std::to_string(ledger_) + ':' + std::to_string(entry_) + ':' + std::to_string(partition_);
  if (batchIndex_ >= 0) text += ':' + std::to_string(batchIndex_);
  return text;
}

namespace {

template <typename Int>
bool parseInt(std::string_view text, Int& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

}  // namespace

MessageId MessageId::parse(std::string_view text) {
  std::vector<std::string_view> parts;
  for (std::size_t begin = 0; parts.size() <= 4;) {
    auto colon = text.find(':', begin);
    parts.push_back(text.substr(begin, colon - begin));
    if (colon == std::string_view::npos) break;
    begin = colon + 1;
  }
  std::int64_t ledger = 0, entry = 0;
  std::int32_t partition = -1, batch = -1;
  bool ok = (parts.size() == 3 || parts.size() == 4) && parseInt(parts[0], ledger) &&
            parseInt(parts[1], entry) && parseInt(parts[2], partition) &&
            (parts.size() == 3 || parseInt(parts[3], batch)) && batch >= -1;
  // A batch index below -1 is refused: toString() leaves out negative indexes, so it would not
  // come back as itself (-1, "not batched", is accepted since it prints as the 3-part form).
  if (!ok) {
    throw Error(errc::invalid_argument,
                "message id '" + std::string(text) +
                    "' is not of the form ledger:entry:partition[:batchIndex]");
  }
  return MessageId(ledger, entry, partition, batch);
}

MessageId MessageId::earliest() {
  return MessageId(-1, -1, -1, -1);
}

MessageId MessageId::latest() {
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  return MessageId(max, max, -1, -1);
}

Message::Message(std::shared_ptr<const detail::MessageData> data) : data_(std::move(data)) {}

namespace {
const detail::MessageData& emptyData() {
  static const detail::MessageData empty;
  return empty;
}
}  // namespace

#define RECONSUME_DATA (data_ ? *data_ : emptyData())

std::string_view Message::data() const {
  return RECONSUME_DATA.payload.view();
}
const std::map<std::string, std::string>& Message::properties() const {
  const auto& data = RECONSUME_DATA;
  return data.propertyMap.get(data.properties);
}
std::optional<std::string> Message::property(std::string_view key) const {
  auto value = RECONSUME_DATA.properties.find(key);
  if (!value) return std::nullopt;
  return std::string(*value);
}
std::optional<std::string> Message::key() const {
  return RECONSUME_DATA.partitionKey;
}
bool Message::keyIsBase64() const {
  return RECONSUME_DATA.partitionKeyIsBase64;
}
std::optional<std::string> Message::orderingKey() const {
  return RECONSUME_DATA.orderingKey;
}
const std::string& Message::topic() const {
  return RECONSUME_DATA.topic.str();
}
MessageId Message::id() const {
  return RECONSUME_DATA.id;
}
int Message::redeliveryCount() const {
  return RECONSUME_DATA.redeliveryCount;
}
std::chrono::system_clock::time_point Message::publishTime() const {
  return detail::fromEpochMillis(RECONSUME_DATA.publishTimeMs);
}
std::optional<std::chrono::system_clock::time_point> Message::eventTime() const {
  const auto& ms = RECONSUME_DATA.eventTimeMs;
  if (!ms) return std::nullopt;
  return detail::fromEpochMillis(*ms);
}
const std::string& Message::producerName() const {
  return RECONSUME_DATA.producerName.str();
}

#undef RECONSUME_DATA

}  // namespace reconsume

namespace reconsume::detail {

const PropertyMapCache::Map& PropertyMapCache::get(const Properties& properties) const {
  if (const Map* built = map_.load(std::memory_order_acquire)) return *built;
  auto made = std::make_unique<const Map>(properties.toMap());
  const Map* expected = nullptr;
  if (map_.compare_exchange_strong(expected, made.get(), std::memory_order_acq_rel,
                                   std::memory_order_acquire)) {
    return *made.release();
  }
  return *expected;  // another thread built it first
}

}  // namespace reconsume::detail
