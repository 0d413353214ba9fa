#include <gtest/gtest.h>

#include "client/key_hash.hpp"
#include "protocol_test_util.hpp"
#include "reconsume/error.hpp"

namespace reconsume::detail::client {
namespace {

// Where the expected values come from: computed from the definitions in key_hash.hpp with a
// separate Python implementation (MurmurHash3_x86_32 written from Austin Appleby's description;
// String.hashCode as h = 31 * h + u over the UTF-16 code units Python's 'utf-16-be' codec gives).
// The murmur values of "hello" (0x248bfa47) and of "The quick brown fox jumps over the lazy dog"
// (0x2e4ff723) are also the published seed-0 reference values, and 99162322 is the well-known
// Java "hello".hashCode().

TEST(KeyHash, Murmur3MatchesReferenceValues) {
  EXPECT_EQ(murmur3_32(""), 0u);
  EXPECT_EQ(murmur3_32("a"), 0x3c2569b2u);
  EXPECT_EQ(murmur3_32("hello"), 0x248bfa47u);
  EXPECT_EQ(murmur3_32("key-1"), 0x98b115a0u);
  EXPECT_EQ(murmur3_32("The quick brown fox jumps over the lazy dog"), 0x2e4ff723u);
  EXPECT_EQ(murmur3_32("\xc3\xa9"), 0x10110787u);          // é
  EXPECT_EQ(murmur3_32("\xf0\x9f\x98\x80"), 0xbeb42efau);  // 😀
  EXPECT_EQ(murmur3_32("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x82\xad\xe3\x83\xbc"),
            0xdffdd7d8u);  // 日本語キー
}

TEST(KeyHash, Murmur3HashMasksTheSignBitAsPulsarDoes) {
  EXPECT_EQ(murmur3Hash("key-1"), 414258592);  // 0x98b115a0 & 0x7fffffff
  EXPECT_EQ(murmur3Hash("hello"), 613153351);  // sign bit already clear
  EXPECT_EQ(murmur3Hash("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x82\xad\xe3\x83\xbc"),
            1610471384);
}

TEST(KeyHash, JavaStringHashUsesUtf16CodeUnits) {
  EXPECT_EQ(client::javaStringHash(""), 0);
  EXPECT_EQ(client::javaStringHash("a"), 97);
  EXPECT_EQ(client::javaStringHash("hello"), 99162322);
  EXPECT_EQ(client::javaStringHash("key-1"), 101943363);
  EXPECT_EQ(client::javaStringHash("order-42"), 1234255197);
  EXPECT_EQ(client::javaStringHash("The quick brown fox jumps over the lazy dog"), 1538055507);
  EXPECT_EQ(client::javaStringHash("\xc3\xa9"), 233);              // é is one unit, U+00E9
  EXPECT_EQ(client::javaStringHash("\xf0\x9f\x98\x80"), 1772899);  // 😀 is two: D83D DE00
  EXPECT_EQ(client::javaStringHash("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x82\xad\xe3\x83\xbc"),
            1289065926);
}

TEST(KeyHash, JavaStringHashReplacesInvalidUtf8AsJavaDecodes) {
  // "ab" FF "cd" ED A0 80 (an encoded surrogate) "x" E2 82 (cut short): FF, ED, A0, 80 and
  // E2 82 each become one U+FFFD, giving "ab\uFFFDcd\uFFFD\uFFFD\uFFFDx\uFFFD".
  EXPECT_EQ(client::javaStringHash(protocol::test::bytes("6162ff6364eda08078e282")), 1986378853);
}

TEST(KeyHash, PartitionForKeyFollowsTheChosenScheme) {
  EXPECT_EQ(client::partitionForKey("hello", 7), 0);  // 99162322 % 7
  EXPECT_EQ(client::partitionForKey("key-1", 7), 4);  // 101943363 % 7
  EXPECT_EQ(client::partitionForKey("key-1", 10), 3);
  EXPECT_EQ(client::partitionForKey("order-42", 10), 7);
  EXPECT_EQ(client::partitionForKey("hello", 7, client::HashingScheme::murmur3_32Hash),
            6);  // 613153351 % 7
  EXPECT_EQ(client::partitionForKey("key-1", 7, client::HashingScheme::murmur3_32Hash), 6);
  EXPECT_EQ(client::partitionForKey("anything", 1), 0);
}

TEST(KeyHash, RejectsANonPositivePartitionCount) {
  try {
    client::partitionForKey("k", 0);
    FAIL() << "accepted 0 partitions";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("partition count 0"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace reconsume::detail::client
