// The JSON-lines export: every property, text payloads as text, binary ones as base64.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "dlq/json_export.hpp"
#include "dlq_test_messages.hpp"

namespace reconsume::detail::dlq {
namespace {

using namespace std::chrono_literals;
using reconsume::testing::StoredMessage;

boost::json::object parsed(const StoredMessage& stored) {
  auto line = toJsonLine(DeadLetter::from(stored.build()));
  EXPECT_EQ(line.find('\n'), std::string::npos) << "one line per dead letter";
  boost::system::error_code ec;
  auto value = boost::json::parse(line, ec);
  EXPECT_FALSE(ec) << line;
  return value.is_object() ? value.as_object() : boost::json::object{};
}

TEST(DeadLetterJson, Base64FollowsRfc4648) {
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64("foob"), "Zm9vYg==");
  EXPECT_EQ(base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64(std::string("\x00\xff\xfe", 3)), "AP/+");
}

TEST(DeadLetterJson, Utf8Validity) {
  EXPECT_TRUE(isValidUtf8(""));
  EXPECT_TRUE(isValidUtf8("plain"));
  EXPECT_TRUE(isValidUtf8("Gr\xc3\xbc\xc3\x9f\x65 \xe2\x82\xac \xf0\x9f\x98\x80"));
  EXPECT_FALSE(isValidUtf8("\xff"));
  EXPECT_FALSE(isValidUtf8("\xc3"));                     // cut short
  EXPECT_FALSE(isValidUtf8("\xc0\xaf"));                 // overlong
  EXPECT_FALSE(isValidUtf8("\xed\xa0\x80"));             // surrogate
  EXPECT_FALSE(isValidUtf8(std::string("a\0\xfe", 3)));  // NUL is fine, 0xFE is not
  EXPECT_TRUE(isValidUtf8(std::string("a\0b", 3)));
}

TEST(DeadLetterJson, IsoTimesAreUtcWithMilliseconds) {
  using TimePoint = std::chrono::system_clock::time_point;
  EXPECT_EQ(isoUtc(TimePoint(1'704'067'200'123ms)), "2024-01-01T00:00:00.123Z");
  EXPECT_EQ(isoUtc(TimePoint(0ms)), "1970-01-01T00:00:00.000Z");
}

TEST(DeadLetterJson, TextPayloadAndEveryProperty) {
  StoredMessage stored;
  stored.payload = "{\"order\":7,\"note\":\"caf\xc3\xa9\"}";
  stored.key = "customer-7";
  stored.orderingKey = "ok";
  stored.eventTime = stored.publishTime - 5s;
  stored.properties = {{"DEAD_LETTER_CAUSE", "explicit"},
                       {"RECONSUME_REASON", "schema v3 \"unsupported\""},
                       {"REAL_TOPIC", "persistent://public/default/orders"},
                       {"tab\there", "line\nbreak"}};
  auto json = parsed(stored);
  EXPECT_EQ(json.at("id").as_string(), "7:3:-1");
  EXPECT_EQ(json.at("topic").as_string(), stored.topic);
  EXPECT_EQ(json.at("publishTime").as_int64(), 1'704'067'200'000);
  EXPECT_EQ(json.at("publishTimeUtc").as_string(), "2024-01-01T00:00:00.000Z");
  EXPECT_EQ(json.at("eventTime").as_int64(), 1'704'067'195'000);
  EXPECT_EQ(json.at("key").as_string(), "customer-7");
  EXPECT_EQ(json.at("keyIsBase64").as_bool(), false);
  EXPECT_EQ(json.at("orderingKey").as_string(), "ok");
  EXPECT_EQ(json.at("cause").as_string(), "explicit");
  EXPECT_EQ(json.at("reason").as_string(), "schema v3 \"unsupported\"");
  EXPECT_EQ(json.at("originTopic").as_string(), "persistent://public/default/orders");
  EXPECT_EQ(json.at("originBaseTopic").as_string(), "persistent://public/default/orders");
  EXPECT_TRUE(json.at("originMessageId").is_null());
  EXPECT_EQ(json.at("payloadEncoding").as_string(), "utf-8");
  EXPECT_EQ(json.at("payload").as_string(), stored.payload);
  EXPECT_EQ(json.at("payloadSize").as_int64(), static_cast<std::int64_t>(stored.payload.size()));
  const auto& properties = json.at("properties").as_object();
  EXPECT_EQ(properties.size(), stored.properties.size());
  for (const auto& [key, value] : stored.properties) {
    EXPECT_EQ(properties.at(key).as_string(), value) << key;
  }
}

TEST(DeadLetterJson, APartitionOriginIsShownAsStoredWithItsTopic) {
  StoredMessage stored;
  stored.properties = {{"REAL_TOPIC", "persistent://public/default/orders-partition-2"}};
  auto json = parsed(stored);
  EXPECT_EQ(json.at("originTopic").as_string(), "persistent://public/default/orders-partition-2");
  EXPECT_EQ(json.at("originBaseTopic").as_string(), "persistent://public/default/orders");
  stored.properties = {};
  json = parsed(stored);
  EXPECT_TRUE(json.at("originTopic").is_null());
  EXPECT_TRUE(json.at("originBaseTopic").is_null());
}

TEST(DeadLetterJson, BinaryPayloadIsBase64) {
  StoredMessage stored;
  stored.payload = std::string("\x89PNG\r\n\x1a\n\x00\xff", 10);
  auto json = parsed(stored);
  EXPECT_EQ(json.at("payloadEncoding").as_string(), "base64");
  EXPECT_EQ(json.at("payload").as_string(), base64(stored.payload));
  EXPECT_EQ(json.at("payloadSize").as_int64(), 10);
  EXPECT_TRUE(json.at("key").is_null());
  EXPECT_TRUE(json.at("eventTime").is_null());
  EXPECT_TRUE(json.at("orderingKey").is_null());
}

TEST(DeadLetterJson, BinaryOrderingKeyIsBase64UnderItsOwnName) {
  StoredMessage stored;
  stored.orderingKey = std::string("\x01\xfe", 2);
  auto json = parsed(stored);
  EXPECT_FALSE(json.contains("orderingKey"));
  EXPECT_EQ(json.at("orderingKeyBase64").as_string(), "Af4=");
}

TEST(DeadLetterJson, EmptyPayloadIsEmptyText) {
  StoredMessage stored;
  stored.payload = "";
  auto json = parsed(stored);
  EXPECT_EQ(json.at("payloadEncoding").as_string(), "utf-8");
  EXPECT_EQ(json.at("payload").as_string(), "");
}

}  // namespace
}  // namespace reconsume::detail::dlq
