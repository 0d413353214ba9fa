// `reconsume perf` against Pulsar: besides its rates and costs, how many entries the broker read
// back from its bookies in each phase (tools/broker_reads.hpp), from the broker's metrics.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "integration/dlq_cli_support.hpp"

namespace reconsume::integration {
namespace {

TEST(PerfCli, SaysHowManyEntriesEachPhaseReadFromTheBookies) {
  // cli() puts the connection's options after the first two words: whole words there.
  auto run = cli({"perf", "--json", "--messages=2000", "--timeout=30s"});
  ASSERT_EQ(run.code, 0) << run.err;
  auto result = boost::json::parse(run.out).as_object();
  EXPECT_FALSE(result.contains("bookieEntryReadsProblem")) << run.out;
  const auto& phases = result.at("phases").as_array();
  ASSERT_EQ(phases.size(), 3u) << run.out;
  for (const auto& phase : phases) {
    const auto& reads = phase.as_object().at("bookieEntryReads");
    ASSERT_TRUE(reads.is_int64()) << run.out;
    EXPECT_GE(reads.as_int64(), 0) << run.out;
  }

  auto table = cli({"perf", "--messages=500", "--timeout=30s"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("read back from the bookies, not the broker's cache (entries):\n"
                           "    publish "),
            std::string::npos)
      << table.out;
}

}  // namespace
}  // namespace reconsume::integration
