// Waits of a length — negative-ack delay, ack timeout, a transaction's timeout — run on the clock's
// monotonic time: a step of the wall clock (NTP) neither fires them early nor holds them back.
// Delayed delivery (deliverAt is a wall-clock time) still follows the wall clock.
#include <gtest/gtest.h>

#include <vector>

#include "client/redelivery_scheduler.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume {
namespace {

using namespace std::chrono_literals;

TEST(WallClockStep, MovesWallTimersAndLeavesSteadyTimersWhereTheyWere) {
  ManualClock clock;
  std::vector<std::string> fired;
  clock.schedule(clock.now() + 1h, [&] { fired.push_back("wall"); });
  clock.scheduleSteady(clock.steadyNow() + 1h, [&] { fired.push_back("steady"); });

  auto steadyBefore = clock.steadyNow();
  clock.stepWallClock(2h);
  EXPECT_EQ(fired, std::vector<std::string>{"wall"});
  EXPECT_EQ(clock.steadyNow(), steadyBefore);

  clock.advance(1h - 1ms);
  EXPECT_EQ(fired.size(), 1u);
  clock.advance(1ms);
  EXPECT_EQ(fired, (std::vector<std::string>{"wall", "steady"}));
}

TEST(WallClockStep, AdvanceRunsBothKindsInTheOrderTheyFallDue) {
  ManualClock clock;
  std::vector<std::string> fired;
  clock.scheduleSteady(clock.steadyNow() + 2s, [&] { fired.push_back("steady 2s"); });
  clock.schedule(clock.now() + 1s, [&] { fired.push_back("wall 1s"); });
  clock.schedule(clock.now() + 3s, [&] { fired.push_back("wall 3s"); });
  clock.advance(5s);
  EXPECT_EQ(fired, (std::vector<std::string>{"wall 1s", "steady 2s", "wall 3s"}));
}

TEST(WallClockStep, RedeliveryWaitsDoNotShift) {
  auto clock = std::make_shared<ManualClock>();
  std::vector<MessageId> redelivered;
  auto scheduler = std::make_shared<detail::client::RedeliveryScheduler>(
      clock, [&](std::size_t, std::vector<MessageId> ids) {
        redelivered.insert(redelivered.end(), ids.begin(), ids.end());
      });
  MessageId id(7, 1, -1);
  scheduler->add(0, id, clock->steadyNow() + 1min);

  clock->stepWallClock(2h);  // forward: not early
  EXPECT_TRUE(redelivered.empty());
  clock->stepWallClock(-3h);  // back: not held back
  clock->advance(1min - 1ms);
  EXPECT_TRUE(redelivered.empty());
  clock->advance(1ms);
  EXPECT_EQ(redelivered, std::vector<MessageId>{id});
}

TEST(WallClockStep, NegativeAckDelayAndAckTimeoutOfAConsumerDoNotShift) {
  auto clock = std::make_shared<ManualClock>();
  ClientOptions clientOptions;
  clientOptions.clock = clock;
  auto client = Client::connect("embedded://wall-clock-step", clientOptions);
  ConsumerOptions options;
  options.topics = {"wall-clock-step"};
  options.subscription = "sub";
  options.negativeAckRedeliveryDelay = 1min;
  options.ackTimeout = 10min;
  auto consumer = client.subscribe(options);
  auto producer = client.createProducer("wall-clock-step");
  producer.send("nacked");
  producer.send("forgotten");

  auto nacked = consumer.receive(10s);
  ASSERT_TRUE(nacked);
  consumer.negativeAcknowledge(*nacked);
  ASSERT_TRUE(consumer.receive(10s));  // "forgotten": its ack timeout runs

  clock->stepWallClock(3h);
  EXPECT_FALSE(consumer.receive(0ms)) << "a forward step of the wall clock fired a wait";
  clock->stepWallClock(-6h);
  clock->advance(1min);
  auto again = consumer.receive(10s);
  ASSERT_TRUE(again) << "a backward step of the wall clock held the negative-ack delay back";
  EXPECT_EQ(again->data(), "nacked");
  consumer.acknowledge(*again);
  clock->advance(9min);
  auto timedOut = consumer.receive(10s);
  ASSERT_TRUE(timedOut);
  EXPECT_EQ(timedOut->data(), "forgotten");
  client.close();
}

}  // namespace
}  // namespace reconsume
