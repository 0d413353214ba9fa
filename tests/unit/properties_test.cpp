// Flat message properties (common/properties.hpp), shared payload bytes (common/bytes.hpp) and the
// std::map a Message builds from them on first use.
#include "common/properties.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <sstream>
#include <thread>
#include <vector>

#include "common/bytes.hpp"
#include "common/message_data.hpp"

namespace reconsume::detail {
namespace {

using Map = std::map<std::string, std::string>;

TEST(Properties, AnEmptyOneHoldsNothing) {
  Properties none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.size(), 0u);
  EXPECT_EQ(none.contentBytes(), 0u);
  EXPECT_FALSE(none.find("anything"));
  EXPECT_TRUE(none.toMap().empty());
  EXPECT_EQ(none.begin(), none.end());
  EXPECT_EQ(none, Properties::fromMap({}));
}

TEST(Properties, KeepTheMapsOrderAndValues) {
  const Map map{{"tenant", "acme"}, {"RECONSUMETIMES", "2"}, {"", "empty key"}, {"empty", ""}};
  const auto properties = Properties::fromMap(map);
  EXPECT_EQ(properties.size(), 4u);
  EXPECT_EQ(properties.toMap(), map);
  std::vector<std::string> keys;
  for (const auto [key, value] : properties) keys.emplace_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"", "RECONSUMETIMES", "empty", "tenant"}));
  EXPECT_EQ(properties.find("tenant"), "acme");
  EXPECT_EQ(properties.find(""), "empty key");
  EXPECT_EQ(properties.find("empty"), "");
  EXPECT_FALSE(properties.find("tenan"));
  EXPECT_FALSE(properties.find("tenants"));
  EXPECT_EQ(properties.at("RECONSUMETIMES"), "2");
  EXPECT_EQ(properties.contentBytes(),
            std::string("tenantacmeRECONSUMETIMES2empty keyempty").size());
}

TEST(Properties, AMissingKeyIsNamed) {
  try {
    Properties{{"a", "1"}}.at("RECONSUME_LEVEL");
    FAIL() << "no exception";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("RECONSUME_LEVEL"), std::string::npos) << e.what();
  }
}

TEST(Properties, PairsInAnyOrderAreSortedAndARepeatedKeyKeepsItsLastValue) {
  const Properties::Entry pairs[] = {{"z", "last"}, {"k", "first"}, {"a", "1"}, {"k", "second"}};
  const auto properties = Properties::fromPairs(pairs);
  EXPECT_EQ(properties.toMap(), (Map{{"a", "1"}, {"k", "second"}, {"z", "last"}}));
  // Built in another order, the same content is the same block.
  EXPECT_EQ(properties, (Properties{{"a", "1"}, {"z", "last"}, {"k", "second"}}));
}

TEST(Properties, AWriterPutsOutOfOrderEntriesRight) {
  PropertiesWriter writer;
  writer.add("m", "middle");
  writer.add("b", "before");
  writer.beginValue("z");
  writer.append("built ");
  writer.appendWith([](std::string& block) { block += "in"; });
  writer.append(' ');
  writer.appendNumber(-42);
  writer.appendWritten(writer.written().find("built"), 5);
  writer.add("b", "again");
  const auto properties = std::move(writer).finish();
  EXPECT_EQ(properties.toMap(), (Map{{"b", "again"}, {"m", "middle"}, {"z", "built in -42built"}}));
}

// The writer's room grows under a value written in pieces, and a copy of an earlier value taken
// as it grows (appendWritten reads from the block it may have to move) stays whole.
TEST(Properties, AWriterGrowsWhileAValueIsWrittenInPieces) {
  PropertiesWriter writer(0, PropertiesWriter::Keys::ascending);
  const std::string text(300, 'x');
  writer.beginValue("a");  // the key at 0, its value from 1 on
  writer.append(text);
  writer.appendNumber(1'700'000'016'000);
  writer.appendWith([&](std::string& block) { block.append(text); });
  writer.beginValue("b");
  for (int i = 0; i < 4; ++i) writer.appendWritten(1, text.size() + 13);
  const auto map = std::move(writer).finish().toMap();
  const std::string first = text + "1700000016000";
  EXPECT_EQ(map.at("a"), first + text);
  EXPECT_EQ(map.at("b"), first + first + first + first);
}

TEST(Properties, ManyEntriesAndLongValues) {
  Map map;
  for (int i = 0; i < 200; ++i) {
    map["key-" + std::to_string(i)] = std::string(static_cast<std::size_t>(i * 7), 'v');
  }
  const auto properties = Properties::fromMap(map);
  EXPECT_EQ(properties.size(), 200u);
  EXPECT_EQ(properties.toMap(), map);
  for (const auto& [key, value] : map) EXPECT_EQ(properties.find(key), value) << key;
  const auto copy = properties;  // NOLINT: a copy is its own block
  EXPECT_EQ(copy, properties);
}

TEST(Properties, PrintAsAnObject) {
  std::ostringstream out;
  out << Properties{{"b", "2"}, {"a", "1"}};
  EXPECT_EQ(out.str(), R"({"a": "1", "b": "2"})");
}

TEST(Bytes, SlicesShareTheirOwner) {
  auto whole = Bytes::adopt(std::string("first|second"));
  auto second = whole.slice(6, 6);
  whole = Bytes();
  EXPECT_EQ(second, "second");  // still alive through the slice
  EXPECT_EQ(second.size(), 6u);
  EXPECT_TRUE(Bytes::copy("").empty());
  EXPECT_EQ(Bytes::copy("abc").toString(), "abc");
}

TEST(MessagePropertyMap, IsBuiltOnceFromTheFlatPropertiesEvenWhenAskedFromManyThreads) {
  auto data = std::make_shared<MessageData>();
  data->properties = Properties{{"tenant", "acme"}, {"RECONSUMETIMES", "3"}};
  const Message message(data);
  EXPECT_EQ(message.property("RECONSUMETIMES"), "3");
  EXPECT_FALSE(message.property("none"));

  std::atomic<int> ready{0};
  std::vector<const Map*> seen(8, nullptr);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    threads.emplace_back([&, i] {
      ++ready;
      while (ready.load() < static_cast<int>(seen.size())) {
      }
      seen[i] = &message.properties();
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto* map : seen) EXPECT_EQ(map, seen[0]) << "every thread sees the one map";
  EXPECT_EQ(*seen[0], (Map{{"tenant", "acme"}, {"RECONSUMETIMES", "3"}}));

  // A copy of the data (a redelivery with another count) builds its own.
  auto copy = std::make_shared<MessageData>(*data);
  copy->redeliveryCount = 1;
  const Message again(copy);
  EXPECT_NE(&again.properties(), seen[0]);
  EXPECT_EQ(again.properties(), *seen[0]);
}

}  // namespace
}  // namespace reconsume::detail
