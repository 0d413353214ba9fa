#include <gtest/gtest.h>

#include "pulsar/backoff.hpp"
#include "pulsar/health_check.hpp"

namespace reconsume::detail::pulsar {
namespace {

using namespace std::chrono_literals;

TEST(PulsarBackoff, DoublesFromTheInitialDelayUpToTheCeiling) {
  Backoff backoff({100ms, 1000ms, 0.2}, [] { return 0.0; });  // no jitter drawn
  std::vector<std::chrono::milliseconds> delays;
  for (int i = 0; i < 6; ++i) delays.push_back(backoff.next());
  EXPECT_EQ(delays,
            (std::vector<std::chrono::milliseconds>{100ms, 200ms, 400ms, 800ms, 1000ms, 1000ms}));
  backoff.reset();
  EXPECT_EQ(backoff.next(), 100ms);
}

TEST(PulsarBackoff, JitterCutsAtMostItsShare) {
  Backoff most({100ms, 30'000ms, 0.2}, [] { return 0.999999; });
  EXPECT_EQ(most.next(), 80ms);
  Backoff half({100ms, 30'000ms, 0.2}, [] { return 0.5; });
  EXPECT_EQ(half.next(), 90ms);
  EXPECT_EQ(half.next(), 180ms);
}

TEST(PulsarBackoff, ManyFailuresStayAtTheCeiling) {
  Backoff backoff({100ms, 30'000ms, 0.0}, [] { return 0.3; });
  for (int i = 0; i < 200; ++i) backoff.next();
  EXPECT_EQ(backoff.next(), 30'000ms);
}

TEST(PulsarHealthCheck, PingAfterOneIntervalOfSilenceDeadAfterTwo) {
  using TimePoint = HealthCheck::TimePoint;
  const TimePoint t0 = TimePoint() + 1h;
  HealthCheck health(30s);
  health.start(t0);
  EXPECT_EQ(health.nextCheck(), t0 + 30s);
  EXPECT_EQ(health.check(t0 + 29s), HealthCheck::Action::none);
  EXPECT_EQ(health.check(t0 + 30s), HealthCheck::Action::ping);
  EXPECT_EQ(health.check(t0 + 31s), HealthCheck::Action::none) << "one PING per silence";
  EXPECT_EQ(health.nextCheck(), t0 + 60s);
  EXPECT_EQ(health.check(t0 + 60s), HealthCheck::Action::dead);

  health.onRead(t0 + 45s);  // the PONG came
  EXPECT_EQ(health.check(t0 + 60s), HealthCheck::Action::none);
  EXPECT_EQ(health.check(t0 + 75s), HealthCheck::Action::ping);
  EXPECT_EQ(health.silence(t0 + 75s), 30s);
}

}  // namespace
}  // namespace reconsume::detail::pulsar
