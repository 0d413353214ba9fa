// Admin::cursor on Pulsar (GET .../internalStats): what a subscription acknowledged, as
// dead-letter inspection reads it. Messages and acknowledgements come from the Java client.
#include <gtest/gtest.h>

#include "integration/http_admin_backend.hpp"
#include "integration/java_interop.hpp"
#include "integration/pulsar_environment.hpp"
#include "reconsume/error.hpp"

namespace reconsume::integration {
namespace {

MessageId idOf(const boost::json::object& line) {
  return MessageId(line.at("ledgerId").as_int64(), line.at("entryId").as_int64());
}

TEST(HttpAdminCursor, TheMarkDeletePositionFollowsAcknowledgements) {
  auto backend = admin();
  std::string topic = uniqueTopic("cursor");
  java("consume", {"--topic", topic, "--subscription", "sub", "--count", "0"});
  auto sent = java("produce", {"--topic", topic, "--count", "5"}).events("sent");
  ASSERT_EQ(sent.size(), 5u);

  auto before = backend->cursor(topic, "sub");
  for (const auto& line : sent) EXPECT_FALSE(before.isAcknowledged(idOf(line)));

  java("consume", {"--topic", topic, "--subscription", "sub", "--count", "2"});
  auto after = backend->cursor(topic, "sub");
  EXPECT_EQ(after.markDeletePosition.ledger(), idOf(sent[1]).ledger());
  EXPECT_EQ(after.markDeletePosition.entry(), idOf(sent[1]).entry());
  EXPECT_TRUE(after.acknowledgedRanges.empty());
  for (std::size_t i = 0; i < sent.size(); ++i) {
    EXPECT_EQ(after.isAcknowledged(idOf(sent[i])), i < 2) << "message " << i;
  }
}

TEST(HttpAdminCursor, UnknownSubscriptionOrTopicIsNotFoundAndPartitionsAreAskedOneByOne) {
  auto backend = admin();
  std::string topic = uniqueTopic("cursor-missing");
  java("produce", {"--topic", topic, "--count", "1"});
  for (auto [name, subscription] : {std::pair{topic, std::string("nobody")},
                                    std::pair{uniqueTopic("cursor-no-topic"), std::string("s")}}) {
    try {
      backend->cursor(name, subscription);
      ADD_FAILURE() << name << " " << subscription;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::not_found) << e.what();
    }
  }
  std::string partitioned = uniqueTopic("cursor-partitioned");
  backend->createPartitionedTopic(partitioned, 2);
  java("consume", {"--topic", partitioned, "--subscription", "sub", "--count", "0"});
  try {
    backend->cursor(partitioned, "sub");
    ADD_FAILURE() << "a partitioned topic's base name was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument) << e.what();
  }
  auto partition = backend->cursor(partitioned + "-partition-1", "sub");
  EXPECT_EQ(partition.markDeletePosition.partition(), 1);
}

}  // namespace
}  // namespace reconsume::integration
