// FailureLog (common/failure_log.hpp): the first failure of each kind in a burst is warned about
// with its text (and the first from each of a few more handles), the others of that kind are
// counted in one summary line when the burst's posted summary runs, and a failure after it begins a
// new burst.
#include "common/failure_log.hpp"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <string>
#include <utility>
#include <vector>

#include "reconsume/error.hpp"

namespace reconsume::detail {
namespace {

// Stand-ins for the handles whose failures are logged: only their addresses count.
int ordersProducer, paymentsProducer, auditProducer, eventsProducer;
const FailureSource kOrdersProducer{&ordersProducer, "producer"};

struct Capture {
  std::vector<std::string> lines;
  Log log() {
    return Log(
        [this](LogLevel level, std::string_view message) {
          lines.push_back((level == LogLevel::warn ? "warn " : "other ") + std::string(message));
        },
        LogLevel::warn);
  }
};

TEST(FailureLog, WarnsTheFirstOfEachKindAndCountsTheRestOfTheBurstInOneLine) {
  boost::asio::io_context io;
  Capture capture;
  auto failures = std::make_shared<FailureLog>(capture.log(), io.get_executor());
  const auto timeout = make_error_code(errc::timeout);
  for (int i = 0; i < 1000; ++i) {
    failures->warn("asyncSend", timeout, kOrdersProducer,
                   "asyncSend: no receipt within 30000 ms #" + std::to_string(i));
  }
  failures->warn("asyncSend", make_error_code(errc::closed), kOrdersProducer, "asyncSend: closed");
  failures->warn("asyncAcknowledge", timeout, kOrdersProducer, "asyncAcknowledge: no answer");
  failures->warn("asyncAcknowledge", timeout, kOrdersProducer, "asyncAcknowledge: no answer again");
  // The burst is still open: only the first of each kind so far.
  EXPECT_EQ(capture.lines, (std::vector<std::string>{
                               "warn asyncSend: no receipt within 30000 ms #0",
                               "warn asyncSend: closed",
                               "warn asyncAcknowledge: no answer",
                           }));
  io.run();  // the summary posted with the burst's first failure
  EXPECT_EQ(capture.lines,
            (std::vector<std::string>{
                "warn asyncSend: no receipt within 30000 ms #0",
                "warn asyncSend: closed",
                "warn asyncAcknowledge: no answer",
                "warn asyncSend: 999 more failed (timed out) since the warning above",
                "warn asyncAcknowledge: 1 more failed (timed out) since the warning above",
            }));
  // A new burst: warned about again, and nothing to count when it ends.
  capture.lines.clear();
  failures->warn("asyncSend", timeout, kOrdersProducer, "asyncSend: later");
  io.restart();
  io.run();
  EXPECT_EQ(capture.lines, (std::vector<std::string>{"warn asyncSend: later"}));
}

TEST(FailureLog, WarnsForEachOfTheFirstFewHandlesAndCountsTheHandlesInTheSummary) {
  boost::asio::io_context io;
  Capture capture;
  auto failures = std::make_shared<FailureLog>(capture.log(), io.get_executor());
  const auto timeout = make_error_code(errc::timeout);
  const FailureSource other{&paymentsProducer, "producer"}, third{&auditProducer, "producer"},
      fourth{&eventsProducer, "producer"};
  // Two producers on different topics time out together: both topics show, then one count.
  failures->warn("asyncSend", timeout, kOrdersProducer, "asyncSend: no receipt (orders)");
  failures->warn("asyncSend", timeout, kOrdersProducer, "asyncSend: no receipt (orders) again");
  failures->warn("asyncSend", timeout, other, "asyncSend: no receipt (payments)");
  failures->warn("asyncSend", timeout, other, "asyncSend: no receipt (payments) again");
  io.run();
  EXPECT_EQ(
      capture.lines,
      (std::vector<std::string>{
          "warn asyncSend: no receipt (orders)",
          "warn asyncSend: no receipt (payments)",
          "warn asyncSend: 2 more failed (timed out) since the warnings above, from 2 producers",
      }));
  // Past FailureLog::kWarnedHandles handles, the others are counted, not warned about.
  capture.lines.clear();
  static_assert(FailureLog::kWarnedHandles == 3);
  const std::pair<FailureSource, std::string> sends[] = {
      {kOrdersProducer, "orders"}, {other, "payments"}, {third, "audit"}, {fourth, "events"}};
  for (const auto& [source, topic] : sends) {
    failures->warn("asyncSend", timeout, source, "asyncSend: no receipt (" + topic + ")");
  }
  io.restart();
  io.run();
  EXPECT_EQ(
      capture.lines,
      (std::vector<std::string>{
          "warn asyncSend: no receipt (orders)",
          "warn asyncSend: no receipt (payments)",
          "warn asyncSend: no receipt (audit)",
          "warn asyncSend: 1 more failed (timed out) since the warnings above, from 4 producers",
      }));
}

TEST(FailureLog, FlushTellsWhatIsPendingAtOnceAndNothingIsCountedTwice) {
  boost::asio::io_context io;
  Capture capture;
  auto failures = std::make_shared<FailureLog>(capture.log(), io.get_executor());
  const auto lost = make_error_code(errc::connection_lost);
  failures->warn("asyncReconsumeLater", lost, kOrdersProducer, "asyncReconsumeLater: lost");
  failures->warn("asyncReconsumeLater", lost, kOrdersProducer, "asyncReconsumeLater: lost");
  failures->flush();  // as the client does when it closes
  io.run();           // the posted summary finds nothing left
  EXPECT_EQ(capture.lines,
            (std::vector<std::string>{
                "warn asyncReconsumeLater: lost",
                "warn asyncReconsumeLater: 1 more failed (connection lost) since the warning above",
            }));
}

TEST(FailureLog, WritesNothingWhenWarningsAreFilteredOut) {
  boost::asio::io_context io;
  std::vector<std::string> lines;
  auto failures = std::make_shared<FailureLog>(
      Log([&](LogLevel, std::string_view message) { lines.emplace_back(message); },
          LogLevel::error),
      io.get_executor());
  failures->warn("asyncSend", make_error_code(errc::timeout), kOrdersProducer,
                 "asyncSend: timed out");
  io.run();
  failures->flush();
  EXPECT_TRUE(lines.empty());
}

}  // namespace
}  // namespace reconsume::detail
