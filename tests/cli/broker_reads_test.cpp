// What `reconsume perf` reads from a broker's Prometheus exposition: the entries it read back from
// its bookies (broker_reads.hpp). Against Pulsar: tests/integration/perf_cli_test.cpp.
#include "broker_reads.hpp"

#include <gtest/gtest.h>

#include <string>

#include "reconsume/error.hpp"
#include "unit/refusing_port.hpp"

namespace reconsume::tools {
namespace {

// As Pulsar 4.0 writes it: the counter with its label set, then its creation time.
constexpr const char* kExposition =
    "# TYPE pulsar_ml_cache_pendingreads_entries_read counter\n"
    "pulsar_ml_cache_pendingreads_entries_read_total{cluster=\"standalone\"} 5322.0\n"
    "pulsar_ml_cache_pendingreads_entries_read_created{cluster=\"standalone\"} 1.795755316444E9\n"
    "# TYPE pulsar_ml_cache_pendingreads_entries_notread counter\n"
    "pulsar_ml_cache_pendingreads_entries_notread_total{cluster=\"standalone\"} 7.0\n";

TEST(BookieReadsScan, ReadsTheCounterAndNothingThatMerelyLooksLikeIt) {
  EXPECT_EQ(entriesReadFromBookies(kExposition), 5322);
  // Every label set counts (a broker with several clusters' labels), as does a sample without
  // labels, with or without a timestamp.
  EXPECT_EQ(entriesReadFromBookies(
                "pulsar_ml_cache_pendingreads_entries_read_total{cluster=\"a\"} 2\n"
                "pulsar_ml_cache_pendingreads_entries_read_total{cluster=\"b\"} 3 1700000000000\n"
                "pulsar_ml_cache_pendingreads_entries_read_total 4\r\n"),
            9);
  // Names that begin with the counter's are other metrics.
  EXPECT_EQ(entriesReadFromBookies("pulsar_ml_cache_pendingreads_entries_read_totally 8\n"),
            std::nullopt);
  EXPECT_EQ(entriesReadFromBookies("# pulsar_ml_cache_pendingreads_entries_read_total 8\n"),
            std::nullopt);
  EXPECT_EQ(entriesReadFromBookies(""), std::nullopt) << "an older broker: no such counter";
}

TEST(BookieReadsScan, PiecesCutAnywhereGiveTheSameCount) {
  const std::string text = kExposition;
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    BookieReadsScan scan;
    scan.feed(std::string_view(text).substr(0, cut));
    scan.feed(std::string_view(text).substr(cut));
    EXPECT_EQ(scan.finish(), 5322) << "cut at " << cut;
  }
  BookieReadsScan oneByOne;
  for (char c : text) oneByOne.feed(std::string_view(&c, 1));
  EXPECT_EQ(oneByOne.finish(), 5322);
  // The last line needs no newline.
  EXPECT_EQ(entriesReadFromBookies("pulsar_ml_cache_pendingreads_entries_read_total 12"), 12);
}

TEST(BookieReadsScan, AValueThatIsNotACountIsNamed) {
  for (const char* bad : {"pulsar_ml_cache_pendingreads_entries_read_total{cluster=\"x\"} many\n",
                          "pulsar_ml_cache_pendingreads_entries_read_total -3\n",
                          "pulsar_ml_cache_pendingreads_entries_read_total NaN\n",
                          "pulsar_ml_cache_pendingreads_entries_read_total{cluster=\"x\" 3\n"}) {
    try {
      entriesReadFromBookies(bad);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), errc::protocol_error) << bad;
      std::string sample(bad);
      sample.pop_back();  // the newline
      EXPECT_NE(std::string(e.what()).find(sample), std::string::npos) << e.what();
    }
  }
}

TEST(BrokerReads, EmbeddedHasNoBookiesAndAnUnreachableBrokerIsNamed) {
  ConnectionSettings embedded;
  embedded.adminUrl = "embedded://perf";
  BrokerReads none(embedded, std::chrono::seconds(5));
  EXPECT_EQ(none.read(), std::nullopt);
  EXPECT_NE(none.problem().find("no bookie"), std::string::npos) << none.problem();

  testing::RefusingPort port;
  ConnectionSettings refused;
  refused.adminUrl = "http://" + port.hostPort();
  BrokerReads unreachable(refused, std::chrono::seconds(5));
  EXPECT_EQ(unreachable.read(), std::nullopt);
  EXPECT_NE(unreachable.problem().find("http://" + port.hostPort() + "/metrics/"),
            std::string::npos)
      << unreachable.problem();
  EXPECT_EQ(unreachable.read(), std::nullopt) << "and stays unknown: a phase needs both readings";

  ConnectionSettings binary;
  binary.adminUrl = "pulsar://localhost:6650";
  try {
    BrokerReads wrong(binary, std::chrono::seconds(5));
    ADD_FAILURE() << "a pulsar:// admin URL was taken";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("pulsar://localhost:6650"), std::string::npos);
  }
}

}  // namespace
}  // namespace reconsume::tools
