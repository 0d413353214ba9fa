#include "dlq/json_export.hpp"

#include <cstdio>
#include <ctime>

#include "common/utf8.hpp"

namespace reconsume::detail::dlq {
namespace {

std::int64_t epochMs(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

// Appends `"name":` (names are plain ASCII written here).
void name(std::string& out, std::string_view key) {
  if (out.back() != '{') out += ',';
  out += '"';
  out += key;
  out += "\":";
}

void text(std::string& out, std::string_view key, std::string_view value) {
  name(out, key);
  appendJsonString(out, value);
}

void optionalText(std::string& out, std::string_view key, const std::optional<std::string>& value) {
  name(out, key);
  if (value) {
    appendJsonString(out, *value);
  } else {
    out += "null";
  }
}

void number(std::string& out, std::string_view key, std::int64_t value) {
  name(out, key);
  out += std::to_string(value);
}

}  // namespace

bool isValidUtf8(std::string_view text) {
  for (std::size_t at = 0; at < text.size();) {
    std::size_t length = utf8SequenceLength(text.substr(at));
    if (length == 0) return false;
    at += length;
  }
  return true;
}

std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  auto at = [&](std::size_t k) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[k]));
  };
  for (; i + 3 <= bytes.size(); i += 3) {
    std::uint32_t v = at(i) << 16 | at(i + 1) << 8 | at(i + 2);
    out += kAlphabet[v >> 18 & 63];
    out += kAlphabet[v >> 12 & 63];
    out += kAlphabet[v >> 6 & 63];
    out += kAlphabet[v & 63];
  }
  if (std::size_t rest = bytes.size() - i; rest > 0) {
    std::uint32_t v = at(i) << 16 | (rest == 2 ? at(i + 1) << 8 : 0);
    out += kAlphabet[v >> 18 & 63];
    out += kAlphabet[v >> 12 & 63];
    out += rest == 2 ? kAlphabet[v >> 6 & 63] : '=';
    out += '=';
  }
  return out;
}

std::string isoUtc(std::chrono::system_clock::time_point t) {
  auto ms = epochMs(t);
  auto seconds = static_cast<std::time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
  int millis = static_cast<int>(ms - static_cast<std::int64_t>(seconds) * 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buffer[96];  // room for any int the compiler cannot rule out
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
  return buffer;
}

std::string toJsonLine(const DeadLetter& deadLetter) {
  const Message& message = deadLetter.message;
  std::string out = "{";
  text(out, "id", message.id().toString());
  text(out, "topic", message.topic());
  number(out, "publishTime", epochMs(message.publishTime()));
  text(out, "publishTimeUtc", isoUtc(message.publishTime()));
  name(out, "eventTime");
  out += message.eventTime() ? std::to_string(epochMs(*message.eventTime())) : "null";
  optionalText(out, "key", message.key());
  name(out, "keyIsBase64");
  out += message.keyIsBase64() ? "true" : "false";
  // The ordering key is bytes on the wire; text only when it is text.
  auto orderingKey = message.orderingKey();
  if (orderingKey && !isValidUtf8(*orderingKey)) {
    text(out, "orderingKeyBase64", base64(*orderingKey));
  } else {
    optionalText(out, "orderingKey", orderingKey);
  }
  text(out, "producerName", message.producerName());
  text(out, "cause", deadLetter.cause);
  text(out, "reason", deadLetter.reason);
  optionalText(out, "category", deadLetter.category);
  optionalText(out, "originTopic", deadLetter.originTopic);
  optionalText(out, "originBaseTopic", deadLetter.originBaseTopic());
  optionalText(out, "originMessageId", deadLetter.originMessageId);
  number(out, "reconsumeTimes", deadLetter.reconsumeTimes);
  number(out, "replayCount", deadLetter.replayCount);
  name(out, "properties");
  out += '{';
  bool first = true;
  for (const auto& [key, value] : message.properties()) {
    if (!first) out += ',';
    first = false;
    appendJsonString(out, key);
    out += ':';
    appendJsonString(out, value);
  }
  out += '}';
  auto payload = message.data();
  number(out, "payloadSize", static_cast<std::int64_t>(payload.size()));
  bool utf8 = isValidUtf8(payload);
  text(out, "payloadEncoding", utf8 ? "utf-8" : "base64");
  name(out, "payload");
  if (utf8) {
    appendJsonString(out, payload);
  } else {
    appendJsonString(out, base64(payload));
  }
  out += '}';
  return out;
}

}  // namespace reconsume::detail::dlq
