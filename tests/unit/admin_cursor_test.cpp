// Admin::cursor: what a subscription acknowledged, from the embedded broker and from Pulsar's
// internal stats (parsed here from the JSON Pulsar answers with).
#include <gtest/gtest.h>

#include <atomic>

#include "admin/admin_json.hpp"
#include "expect_error.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume {
namespace {

using namespace std::chrono_literals;

TEST(SubscriptionCursor, EverythingUpToTheMarkDeletePositionAndInTheRangesIsAcknowledged) {
  SubscriptionCursor cursor;
  cursor.markDeletePosition = MessageId(5, 3);
  cursor.acknowledgedRanges = {{MessageId(5, 5), MessageId(5, 7)},
                               {MessageId(5, 9), MessageId(6, 1)}};
  auto acked = [&](std::int64_t ledger, std::int64_t entry) {
    return cursor.isAcknowledged(MessageId(ledger, entry, 2, 4));
  };
  EXPECT_TRUE(acked(4, 100));
  EXPECT_TRUE(acked(5, 0));
  EXPECT_TRUE(acked(5, 3));
  EXPECT_FALSE(acked(5, 4));
  EXPECT_FALSE(acked(5, 5)) << "a range is open at its start";
  EXPECT_TRUE(acked(5, 6));
  EXPECT_TRUE(acked(5, 7)) << "and closed at its end";
  EXPECT_FALSE(acked(5, 8));
  EXPECT_FALSE(acked(5, 9));
  EXPECT_TRUE(acked(5, 10));
  EXPECT_TRUE(acked(6, 0));
  EXPECT_TRUE(acked(6, 1));
  EXPECT_FALSE(acked(6, 2));
}

TEST(SubscriptionCursor, MarkDeleteAtEntryMinusOneCoversNothingOfThatLedger) {
  SubscriptionCursor cursor;
  cursor.markDeletePosition = MessageId(9, -1);
  EXPECT_FALSE(cursor.isAcknowledged(MessageId(9, 0)));
  EXPECT_TRUE(cursor.isAcknowledged(MessageId(8, 40)));
}

TEST(HttpAdminCursor, ParsesPulsarsInternalStats) {
  // The shape of GET .../internalStats (Pulsar 3 and 4), trimmed.
  std::string body = R"({
    "entriesAddedCounter": 12, "numberOfEntries": 12, "currentLedgerEntries": 12,
    "ledgers": [{"ledgerId": 49, "entries": 0, "size": 0, "offloaded": false}],
    "cursors": {
      "reconsume-dlq": {
        "markDeletePosition": "49:2", "readPosition": "49:12", "waitingReadOp": true,
        "messagesConsumedCounter": 6, "cursorLedger": -1, "cursorLedgerLastEntry": -1,
        "individuallyDeletedMessages": "[(49:3..49:5], (49:8..49:9]]",
        "state": "NoLedger", "active": true, "properties": {}
      },
      "other": {"markDeletePosition": "49:-1", "individuallyDeletedMessages": "[]"}
    }
  })";
  SubscriptionCursor cursor;
  ASSERT_TRUE(detail::admin::parseCursor(body, "GET x", "reconsume-dlq", 3, cursor));
  EXPECT_EQ(cursor.markDeletePosition, MessageId(49, 2, 3));
  ASSERT_EQ(cursor.acknowledgedRanges.size(), 2u);
  EXPECT_EQ(cursor.acknowledgedRanges[0].after, MessageId(49, 3, 3));
  EXPECT_EQ(cursor.acknowledgedRanges[0].upTo, MessageId(49, 5, 3));
  EXPECT_EQ(cursor.acknowledgedRanges[1].after, MessageId(49, 8, 3));
  EXPECT_EQ(cursor.acknowledgedRanges[1].upTo, MessageId(49, 9, 3));

  ASSERT_TRUE(detail::admin::parseCursor(body, "GET x", "other", -1, cursor));
  EXPECT_EQ(cursor.markDeletePosition, MessageId(49, -1));
  EXPECT_TRUE(cursor.acknowledgedRanges.empty());

  EXPECT_FALSE(detail::admin::parseCursor(body, "GET x", "absent", -1, cursor));
  EXPECT_FALSE(detail::admin::parseCursor(R"({"ledgers":[]})", "GET x", "any", -1, cursor));
}

TEST(HttpAdminCursor, AnUnexpectedShapeIsAProtocolErrorNamingTheRequest) {
  SubscriptionCursor cursor;
  for (const char* body : {R"([])", R"({"cursors":{"s":{"markDeletePosition":"x"}}})",
                           R"({"cursors":{"s":{"markDeletePosition":"1:2",
                              "individuallyDeletedMessages":"[(1:2..]"}}})",
                           R"({"cursors":{"s":{}}})"}) {
    try {
      detail::admin::parseCursor(body, "GET /admin/v2/persistent/t/n/x/internalStats", "s", -1,
                                 cursor);
      ADD_FAILURE() << "accepted " << body;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::protocol_error);
      EXPECT_TRUE(testing::mentions(e.what(), "internalStats"));
    }
  }
}

std::string uniqueBroker() {
  static std::atomic<int> counter{0};
  return "embedded://admin-cursor-" + std::to_string(++counter);
}

TEST(EmbeddedAdminCursor, FollowsAcknowledgementsInAnyOrder) {
  auto url = uniqueBroker();
  auto client = Client::connect(url);
  auto admin = Admin::connect(url);
  auto topic = "persistent://public/default/cursor";
  auto producer = client.createProducer(topic);
  ConsumerOptions options;
  options.topics = {topic};
  options.subscription = "sub";
  options.initialPosition = InitialPosition::earliest;
  options.acknowledgmentGroupTime = 0ms;  // each acknowledgement on the cursor when it returns
  auto consumer = client.subscribe(options);
  std::vector<Message> received;
  for (int i = 0; i < 8; ++i) producer.send("m" + std::to_string(i));
  for (int i = 0; i < 8; ++i) received.push_back(*consumer.receive(5s));

  auto cursor = admin.cursor(topic, "sub");
  auto ledger = received[0].id().ledger();
  EXPECT_EQ(cursor.markDeletePosition, MessageId(ledger, -1));
  EXPECT_TRUE(cursor.acknowledgedRanges.empty());

  for (int i : {0, 1, 3, 5, 6}) consumer.acknowledge(received[static_cast<std::size_t>(i)]);
  cursor = admin.cursor(topic, "sub");
  EXPECT_EQ(cursor.markDeletePosition, MessageId(ledger, 1));
  ASSERT_EQ(cursor.acknowledgedRanges.size(), 2u);
  EXPECT_EQ(cursor.acknowledgedRanges[0].after, MessageId(ledger, 2));
  EXPECT_EQ(cursor.acknowledgedRanges[0].upTo, MessageId(ledger, 3));
  EXPECT_EQ(cursor.acknowledgedRanges[1].after, MessageId(ledger, 4));
  EXPECT_EQ(cursor.acknowledgedRanges[1].upTo, MessageId(ledger, 6));
  for (std::size_t i = 0; i < received.size(); ++i) {
    bool acked = i == 0 || i == 1 || i == 3 || i == 5 || i == 6;
    EXPECT_EQ(cursor.isAcknowledged(received[i].id()), acked) << "message " << i;
  }
  client.close();
}

TEST(EmbeddedAdminCursor, PartitionsAreAskedOneByOne) {
  auto url = uniqueBroker();
  auto client = Client::connect(url);
  auto admin = Admin::connect(url);
  auto topic = std::string("persistent://public/default/cursor-partitioned");
  admin.createPartitionedTopic(topic, 2);
  ConsumerOptions options;
  options.topics = {topic};
  options.subscription = "sub";
  auto consumer = client.subscribe(options);
  auto cursor = admin.cursor(topic + "-partition-1", "sub");
  EXPECT_EQ(cursor.markDeletePosition.partition(), 1);
  auto text = testing::invalidArgumentText([&] { admin.cursor(topic, "sub"); });
  EXPECT_TRUE(testing::mentions(text, "partitioned"));
  client.close();
}

TEST(EmbeddedAdminCursor, UnknownTopicOrSubscriptionIsNotFound) {
  auto url = uniqueBroker();
  auto client = Client::connect(url);
  auto admin = Admin::connect(url);
  client.createProducer("persistent://public/default/exists");
  for (auto [topic, subscription] :
       {std::pair{"persistent://public/default/missing", "sub"},
        std::pair{"persistent://public/default/exists", "missing-sub"}}) {
    try {
      admin.cursor(topic, subscription);
      ADD_FAILURE() << topic << " " << subscription;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::not_found) << e.what();
      EXPECT_TRUE(testing::mentions(e.what(), topic));
    }
  }
  client.close();
}

}  // namespace
}  // namespace reconsume
