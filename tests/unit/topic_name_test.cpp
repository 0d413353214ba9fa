#include "common/topic_name.hpp"

#include <gtest/gtest.h>

#include "reconsume/error.hpp"

namespace reconsume::detail {
namespace {

TEST(TopicName, ShortFormsMeanPersistentPublicDefault) {
  EXPECT_EQ(TopicName::parse("orders").toString(), "persistent://public/default/orders");
  EXPECT_EQ(TopicName::parse("acme/billing/orders").toString(), "persistent://acme/billing/orders");
  EXPECT_EQ(TopicName::parse("non-persistent://acme/billing/orders").domain(), "non-persistent");
}

TEST(TopicName, APartitionSuffixNamesThePartitionOfItsBase) {
  auto name = TopicName::parse("persistent://acme/billing/orders-partition-12");
  EXPECT_EQ(name.partition(), 12);
  EXPECT_EQ(name.base().toString(), "persistent://acme/billing/orders");
  EXPECT_EQ(name.base().partitionAt(3).toString(), "persistent://acme/billing/orders-partition-3");
  EXPECT_EQ(TopicName::parse("orders-partition-x").partition(), -1);
}

TEST(TopicName, BaseTopicNameIsTheBaseOfTheParsedName) {
  // The shortcut for canonical names must agree with the parser on every form, partitioned or not,
  // canonical or short, including suffixes that are not partitions.
  for (const char* text : {
           "persistent://public/default/orders",
           "persistent://public/default/orders-partition-0",
           "persistent://public/default/orders-partition-17",
           "non-persistent://acme/ns/t-partition-2",
           "persistent://acme/ns/orders-partition-",
           "persistent://acme/ns/orders-partition--1",
           "persistent://acme/ns/orders-partition-1x",
           "persistent://acme/ns/a-partition-1-partition-2",
           "orders-partition-4",
           "acme/ns/orders-partition-5",
           "acme/ns/orders",
       }) {
    EXPECT_EQ(baseTopicName(text), TopicName::parse(text).base().toString()) << text;
  }
}

TEST(TopicName, ThePartitionIsTheNumberAfterTheLastSuffix) {
  const std::pair<const char*, int> cases[] = {
      {"orders-partition-0", 0},
      {"orders-partition-17", 17},
      {"a-partition-1-partition-2", 2},
      {"a-partition-1-partition-", -1},
      {"orders-partition-007", 7},
      {"-partition-5", 5},
      {"orders-partition-", -1},
      {"orders-partition--1", -1},
      {"orders-partition-1x", -1},
      {"orders-partition-+1", -1},
      {"orders-partition-99999999999", -1},  // more than an int
      {"orders_partition-3", -1},
      {"partition-3", -1},
      {"orders-3", -1},
      {"orders", -1},
  };
  for (const auto& [local, partition] : cases) {
    EXPECT_EQ(TopicName::parse(std::string("persistent://acme/ns/") + local).partition(), partition)
        << local;
  }
  EXPECT_EQ(baseTopicName("persistent://acme/ns/a-partition-1-partition-2"),
            "persistent://acme/ns/a-partition-1");
}

TEST(TopicName, BaseTopicNameRefusesWhatTheParserRefuses) {
  for (const char* text : {"", "persistent://", "persistent:///ns/t", "persistent://a//t",
                           "persistent://a/ns/", "persistent://a/ns/t/u", "kafka://a/ns/t"}) {
    EXPECT_THROW(baseTopicName(text), Error) << text;
    EXPECT_THROW(TopicName::parse(text), Error) << text;
  }
}

}  // namespace
}  // namespace reconsume::detail
