#include "retry/retry_properties.hpp"

#include <algorithm>
#include <array>
#include <optional>

#include "common/topic_name.hpp"
#include "common/utf8.hpp"
#include "retry/property_keys.hpp"
#include "retry/retry_history.hpp"

namespace reconsume::detail::retry {
namespace {

// The keys this function writes or removes, in byte-wise order (the order of a Properties block).
enum class Key {
  deadLetterCause,
  delayTime,
  firstFailureTime,
  originMessageId,
  originMessageIdLegacy,
  realSubscription,
  realTopic,
  reconsumeTimes,
  reconsumeCategory,
  reconsumeHistory,
  reconsumeLevel,
  reconsumeReason,
};
constexpr std::array<std::string_view, 12> kKeys{
    keys::deadLetterCause,
    keys::delayTime,
    keys::firstFailureTime,
    keys::originMessageId,
    keys::originMessageIdLegacy,
    keys::realSubscription,
    keys::realTopic,
    keys::reconsumeTimes,
    keys::reconsumeCategory,
    keys::reconsumeHistory,
    keys::reconsumeLevel,
    keys::reconsumeReason,
};
static_assert(std::is_sorted(kKeys.begin(), kKeys.end()), "kKeys must be in the map's order");

// "ledger:entry:partition[:batchIndex]", as MessageId::toString writes it.
void appendMessageId(PropertiesWriter& out, const MessageId& id) {
  out.appendNumber(id.ledger());
  out.append(':');
  out.appendNumber(id.entry());
  out.append(':');
  out.appendNumber(id.partition());
  if (id.batchIndex() >= 0) {
    out.append(':');
    out.appendNumber(id.batchIndex());
  }
}

// Byte-wise order, as std::string_view::compare gives it. The keys compared here are mostly the
// application's against ours (all capitals), which differ in their first byte: decided without a
// call to memcmp (≈190 instructions fewer for a first retry with three properties of its own;
// docs/PERFORMANCE.md, the twenty-eighth look).
int compareKeys(std::string_view a, std::string_view b) {
  if (!a.empty() && !b.empty() && a.front() != b.front()) {
    return static_cast<unsigned char>(a.front()) < static_cast<unsigned char>(b.front()) ? -1 : 1;
  }
  return a.compare(b);
}

// Writes the new properties in one ordered pass over three sorted sources: the incoming
// properties, the keys of this function (kKeys) and the caller's custom properties. For each key,
// a custom value wins (except for RECONSUMETIMES), then what apply() makes of ours, then the
// incoming value. Each entry is appended to one block (common/properties.hpp): no lookups, no
// copies of values that are replaced, one allocation (a republish is on the hot path of a failing
// consumer; bench/bench_routing.cpp measures it).
class Builder {
 public:
  Builder(const Properties& incoming, std::string_view originTopic, std::string_view subscription,
          const MessageId& originId, const Route& route, std::chrono::system_clock::time_point now,
          std::string_view reason, const std::map<std::string, std::string>& custom)
      : incoming_(incoming),
        originTopic_(originTopic),
        subscription_(subscription),
        originId_(originId),
        route_(route),
        now_(now),
        reason_(truncateUtf8(reason, kReasonMaxBytes)),
        custom_(custom),
        toRetryTopic_(route.destination == Destination::retryTopic),
        // The incoming properties, our dozen keys with a history entry, a reason and the topic.
        // build() writes the keys in ascending order.
        out_(incoming.contentBytes() + 512 + 2 * reason_.size(),
             PropertiesWriter::Keys::ascending) {}

  Properties build() {
    const std::size_t inCount = incoming_.size();
    std::size_t in = 0, ours = 0;
    Properties::Entry next = inCount > 0 ? incoming_[0] : Properties::Entry{};
    auto custom = custom_.begin();
    for (;;) {
      // The smallest key among the three heads and which heads carry it, with one comparison
      // per pair of heads (a key comparison is a memcmp call; this loop runs for every key).
      std::string_view key;
      bool fromIn = false, fromOurs = false, fromCustom = false;
      auto consider = [&](std::string_view candidate, bool& from) {
        if (!fromIn && !fromOurs && !fromCustom) {
          key = candidate;
          from = true;
          return;
        }
        const int order = compareKeys(candidate, key);
        if (order < 0) {
          key = candidate;
          fromIn = fromOurs = fromCustom = false;
        }
        if (order <= 0) from = true;
      };
      if (in < inCount) consider(next.key, fromIn);
      if (ours < kKeys.size()) consider(kKeys[ours], fromOurs);
      if (custom != custom_.end()) consider(custom->first, fromCustom);
      if (!fromIn && !fromOurs && !fromCustom) break;

      // The incoming value, if any, by pointer: a std::optional<std::string_view> built here and
      // passed by value cost a store-forwarding stall for each of our keys (perf annotate).
      std::string_view presentValue;
      const std::string_view* present = nullptr;
      if (fromIn) {
        presentValue = next.value;
        present = &presentValue;
        if (++in < inCount) next = incoming_[in];
      }
      const std::string* customValue = fromCustom ? &(custom++)->second : nullptr;
      // A custom value wins, except over RECONSUMETIMES (one of ours).
      const bool customWins =
          customValue && !(fromOurs && static_cast<Key>(ours) == Key::reconsumeTimes);

      if (customWins) {
        out_.add(key, *customValue);
      } else if (fromOurs) {
        apply(static_cast<Key>(ours), present);
      } else if (present) {
        out_.add(key, *present);
      }
      if (fromOurs) ++ours;
    }
    return std::move(out_).finish();
  }

 private:
  // The two origin keys carry the same value. A message that has only one of them (older Java
  // and Go clients write only the legacy key) keeps that origin under the other key as well,
  // rather than taking the id of this hop's message. The modern key comes first in the merge, so
  // whether the incoming properties hold it is already known (`present`); only the legacy key,
  // still ahead in the merge, is looked up, and only when the modern one is absent.
  void writeModernOrigin(std::string_view key, const std::string_view* present) {
    if (present) {
      incomingOrigin_ = *present;
      return out_.add(key, *present);
    }
    out_.beginValue(key);
    writeComputedOrigin();
  }

  void writeLegacyOrigin(std::string_view key, const std::string_view* present) {
    if (present) return out_.add(key, *present);
    if (incomingOrigin_) return out_.add(key, *incomingOrigin_);
    out_.beginValue(key);
    if (originLength_ > 0) {
      out_.appendWritten(originBegin_, originLength_);  // what writeModernOrigin() wrote
    } else if (auto modern = incoming_.find(keys::originMessageId)) {
      out_.append(*modern);  // a custom property replaced the modern key: the rare path
    } else {
      writeComputedOrigin();
    }
  }

  // The origin of a message without the modern key: its legacy one, else this message's id.
  void writeComputedOrigin() {
    originBegin_ = out_.written().size();
    if (auto legacy = incoming_.find(keys::originMessageIdLegacy)) {
      out_.append(*legacy);
    } else {
      appendMessageId(out_, originId_);
    }
    originLength_ = out_.written().size() - originBegin_;
  }

  void writeNumber(std::string_view key, std::int64_t number) {
    out_.beginValue(key);
    out_.appendNumber(number);
  }

  std::int64_t nowMs() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(now_.time_since_epoch()).count();
  }

  void apply(Key key, const std::string_view* present) {
    const std::string_view name = kKeys[static_cast<std::size_t>(key)];
    // First hop wins: an existing value is kept.
    if (present &&
        (key == Key::firstFailureTime || key == Key::realSubscription || key == Key::realTopic)) {
      return out_.add(name, *present);
    }
    switch (key) {
      case Key::deadLetterCause:
        // A retry drops a cause left from an earlier trip to the dead-letter topic.
        if (!toRetryTopic_) {
          out_.add(name, toString(route_.cause.value_or(DeadLetterCause::explicitCall)));
        }
        break;
      case Key::delayTime:
        if (toRetryTopic_) {
          writeNumber(name, route_.delay.count());
        } else if (present) {
          out_.add(name, *present);
        }
        break;
      case Key::firstFailureTime:
        writeNumber(name, nowMs());
        break;
      case Key::originMessageId:
        writeModernOrigin(name, present);
        break;
      case Key::originMessageIdLegacy:
        writeLegacyOrigin(name, present);
        break;
      case Key::realSubscription:
        out_.add(name, subscription_);
        break;
      case Key::realTopic:
        if (auto base = canonicalBaseTopic(originTopic_)) {
          out_.add(name, *base);
        } else {
          out_.add(name, baseTopicName(originTopic_));  // throws naming a name that is not one
        }
        break;
      case Key::reconsumeTimes:
        writeNumber(name, route_.count);
        break;
      case Key::reconsumeCategory:
        // This hop's category; a hop without one drops an earlier one (the history keeps it).
        if (route_.category) out_.add(name, *route_.category);
        break;
      case Key::reconsumeHistory: {
        HistoryEntry entry{route_.count, now_,
                           toRetryTopic_ ? route_.delay : std::chrono::milliseconds(0), reason_,
                           route_.category ? std::string_view(*route_.category) : ""};
        out_.beginValue(name);
        out_.appendWith([&](std::string& block) {
          appendHistory(block, present ? std::optional<std::string_view>(*present) : std::nullopt,
                        entry);
        });
        break;
      }
      case Key::reconsumeLevel:
        // On the retry topic, a hop without a level removes the incoming one, so the next "next
        // step" counts from RECONSUMETIMES; the dead-letter topic keeps it for inspection.
        if (toRetryTopic_ && route_.level) {
          writeNumber(name, *route_.level);
        } else if (!toRetryTopic_ && present) {
          out_.add(name, *present);
        }
        break;
      case Key::reconsumeReason:
        // Without a reason, an incoming one described an earlier hop (the history keeps it).
        if (!reason_.empty()) out_.add(name, reason_);
        break;
    }
  }

  const Properties& incoming_;
  std::string_view originTopic_;
  std::string_view subscription_;
  const MessageId& originId_;
  const Route& route_;
  std::chrono::system_clock::time_point now_;
  std::string_view reason_;
  const std::map<std::string, std::string>& custom_;
  bool toRetryTopic_;
  PropertiesWriter out_;
  // The incoming modern origin, else where writeModernOrigin() wrote the origin in the block.
  std::optional<std::string_view> incomingOrigin_;
  std::size_t originBegin_ = 0, originLength_ = 0;
};

}  // namespace

Properties buildProperties(const Properties& incoming, std::string_view originTopic,
                           std::string_view subscription, const MessageId& originId,
                           const Route& route, std::chrono::system_clock::time_point now,
                           std::string_view reason,
                           const std::map<std::string, std::string>& custom) {
  return Builder(incoming, originTopic, subscription, originId, route, now, reason, custom).build();
}

}  // namespace reconsume::detail::retry
