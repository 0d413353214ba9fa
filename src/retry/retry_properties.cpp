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

using Properties = std::map<std::string, std::string>;

// The keys this function writes or removes, in the map's (byte-wise) order, so that the new
// properties are built in one ordered pass over the incoming ones: each entry is appended at the
// end of the map, with no lookups and no copies of values that are replaced (a republish is on
// the hot path of a failing consumer; bench/bench_routing.cpp measures it).
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

const std::string& keyString(Key key) {
  static const auto strings = [] {
    std::array<std::string, kKeys.size()> out;
    for (std::size_t i = 0; i < kKeys.size(); ++i) out[i] = std::string(kKeys[i]);
    return out;
  }();
  return strings[static_cast<std::size_t>(key)];
}

const std::string* find(const Properties& properties, Key key) {
  auto it = properties.find(keyString(key));
  return it == properties.end() ? nullptr : &it->second;
}

class Builder {
 public:
  Builder(const Properties& incoming, std::string_view originTopic, std::string_view subscription,
          const MessageId& originId, const Route& route, std::chrono::system_clock::time_point now,
          std::string_view reason)
      : incoming_(incoming),
        originTopic_(originTopic),
        subscription_(subscription),
        originId_(originId),
        route_(route),
        now_(now),
        reason_(truncateUtf8(reason, kReasonMaxBytes)),
        toRetryTopic_(route.destination == Destination::retryTopic) {}

  Properties build() {
    next_ = incoming_.begin();
    for (std::size_t i = 0; i < kKeys.size(); ++i) {
      const Key key = static_cast<Key>(i);
      copyIncomingBefore(kKeys[i]);
      const std::string* present = nullptr;
      if (next_ != incoming_.end() && next_->first == kKeys[i]) {
        present = &next_->second;
        ++next_;
      }
      apply(key, present);
    }
    copyIncomingBefore({});
    return std::move(out_);
  }

 private:
  // Copies the incoming properties that sort before `key` (all of them for an empty key).
  void copyIncomingBefore(std::string_view key) {
    while (next_ != incoming_.end() && (key.empty() || next_->first < key)) {
      out_.emplace_hint(out_.end(), *next_);
      ++next_;
    }
  }

  void put(Key key, std::string value) {
    out_.emplace_hint(out_.end(), keyString(key), std::move(value));
  }
  void keep(Key key, const std::string* present) {
    if (present) put(key, *present);
  }
  // First hop wins: an existing value is kept.
  template <typename MakeValue>
  void keepOr(Key key, const std::string* present, MakeValue makeValue) {
    put(key, present ? *present : makeValue());
  }

  // The two origin keys carry the same value. A message that has only one of them (older Java
  // and Go clients write only the legacy key) keeps that origin under the other key as well,
  // rather than taking the id of this hop's message.
  // Worked out once for both keys.
  const std::string& origin() {
    if (!origin_) {
      if (const auto* modern = find(incoming_, Key::originMessageId)) {
        origin_ = *modern;
      } else if (const auto* legacy = find(incoming_, Key::originMessageIdLegacy)) {
        origin_ = *legacy;
      } else {
        origin_ = originId_.toString();
      }
    }
    return *origin_;
  }

  std::int64_t nowMs() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(now_.time_since_epoch()).count();
  }

  void apply(Key key, const std::string* present) {
    switch (key) {
      case Key::deadLetterCause:
        // A retry drops a cause left from an earlier trip to the dead-letter topic.
        if (!toRetryTopic_) {
          put(key, std::string(toString(route_.cause.value_or(DeadLetterCause::explicitCall))));
        }
        break;
      case Key::delayTime:
        if (toRetryTopic_) {
          put(key, std::to_string(route_.delay.count()));
        } else {
          keep(key, present);
        }
        break;
      case Key::firstFailureTime:
        keepOr(key, present, [&] { return std::to_string(nowMs()); });
        break;
      case Key::originMessageId:
      case Key::originMessageIdLegacy:
        keepOr(key, present, [&] { return origin(); });
        break;
      case Key::realSubscription:
        keepOr(key, present, [&] { return std::string(subscription_); });
        break;
      case Key::realTopic:
        keepOr(key, present, [&] { return baseTopicName(originTopic_); });
        break;
      case Key::reconsumeTimes:
        put(key, std::to_string(route_.count));
        break;
      case Key::reconsumeCategory:
        // This hop's category; a hop without one drops an earlier one (the history keeps it).
        if (route_.category) put(key, *route_.category);
        break;
      case Key::reconsumeHistory: {
        HistoryEntry entry{route_.count, now_,
                           toRetryTopic_ ? route_.delay : std::chrono::milliseconds(0), reason_,
                           route_.category ? std::string_view(*route_.category) : ""};
        put(key, appendHistory(present, entry));
        break;
      }
      case Key::reconsumeLevel:
        // On the retry topic, a hop without a level removes the incoming one, so the next "next
        // step" counts from RECONSUMETIMES; the dead-letter topic keeps it for inspection.
        if (toRetryTopic_ && route_.level) {
          put(key, std::to_string(*route_.level));
        } else if (!toRetryTopic_) {
          keep(key, present);
        }
        break;
      case Key::reconsumeReason:
        // Without a reason, an incoming one described an earlier hop (the history keeps it).
        if (!reason_.empty()) put(key, std::string(reason_));
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
  bool toRetryTopic_;

  Properties::const_iterator next_;
  Properties out_;
  std::optional<std::string> origin_;
};

}  // namespace

Properties buildProperties(const Properties& incoming, std::string_view originTopic,
                           std::string_view subscription, const MessageId& originId,
                           const Route& route, std::chrono::system_clock::time_point now,
                           std::string_view reason, const Properties& custom) {
  Properties out =
      Builder(incoming, originTopic, subscription, originId, route, now, reason).build();
  for (const auto& [key, value] : custom) {
    if (key != keys::reconsumeTimes) out.insert_or_assign(key, value);
  }
  return out;
}

}  // namespace reconsume::detail::retry
