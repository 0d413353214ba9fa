#include <gtest/gtest.h>

#include "reconsume/error.hpp"
#include "reconsume/message.hpp"

namespace reconsume {
namespace {

TEST(MessageId, PrintsLedgerEntryPartitionAndBatchIndexWhenBatched) {
  EXPECT_EQ(MessageId(12, 34, -1).toString(), "12:34:-1");
  EXPECT_EQ(MessageId(12, 34, 2, 5).toString(), "12:34:2:5");
}

TEST(MessageId, ParsesWhatItPrints) {
  for (const auto& id : {MessageId(1, 2, -1), MessageId(7, 0, 3, 9), MessageId::earliest()}) {
    EXPECT_EQ(MessageId::parse(id.toString()), id) << id.toString();
  }
}

TEST(MessageId, RejectsMalformedTextNamingIt) {
  for (const char* text : {"", "1:2", "1:2:x", "1:2:3:4:5", "a:b:c", "1::2", "1:2:3:"}) {
    try {
      MessageId::parse(text);
      FAIL() << "accepted '" << text << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find("'" + std::string(text) + "'"), std::string::npos)
          << e.what();
    }
  }
}

// Found by tests/fuzz/message_id_fuzzer.cpp: "1:2:3:-5" parsed to batch index -5, which prints as
// "1:2:3" and so came back as another id (batch index -1).
TEST(MessageId, RejectsABatchIndexBelowMinusOne) {
  EXPECT_THROW(MessageId::parse("1:2:3:-5"), Error);
  EXPECT_THROW(MessageId::parse("1:2:3:-2147483648"), Error);
  const auto notBatched = MessageId::parse("1:2:3:-1");
  EXPECT_EQ(notBatched, MessageId(1, 2, 3));
  EXPECT_EQ(MessageId::parse(notBatched.toString()), notBatched);
}

TEST(MessageId, OrdersByLedgerEntryThenBatchIndex) {
  EXPECT_LT(MessageId(1, 5), MessageId(2, 0));
  EXPECT_LT(MessageId(1, 5), MessageId(1, 6));
  EXPECT_LT(MessageId(1, 5, -1, 0), MessageId(1, 5, -1, 1));
  EXPECT_LT(MessageId::earliest(), MessageId(0, 0));
  EXPECT_LT(MessageId(1'000'000, 1'000'000), MessageId::latest());
}

}  // namespace
}  // namespace reconsume
