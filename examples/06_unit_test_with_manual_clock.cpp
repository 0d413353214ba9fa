// Unit-testing your handler: run it on an embedded broker of its own with a ManualClock, so the
// two-hour last level of the default table takes microseconds. A GoogleTest program.
#include <gtest/gtest.h>

#include <reconsume/reconsume.hpp>

using namespace reconsume;
using namespace std::chrono_literals;

// The code under test: fails while the inventory is down, acknowledges otherwise.
struct InventoryHandler {
  bool inventoryUp = false;
  void handle(Consumer& consumer, const Message& message) {
    if (inventoryUp) {
      consumer.acknowledge(message);
    } else {
      consumer.reconsumeLater(message);
    }
  }
};

class InventoryHandlerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ClientOptions clientOptions;
    clientOptions.clock = clock;
    // A broker of its own per test: nothing leaks between tests.
    client = Client::connect("embedded://" + std::string(
                                 ::testing::UnitTest::GetInstance()->current_test_info()->name()),
                             clientOptions);
    ConsumerOptions options;
    options.topics = {"orders"};
    options.subscription = "inventory";
    options.retry = RetryPolicy::levels(DelayLevels::defaultTable());  // 1s 5s ... 1h 2h
    consumer = client.subscribe(options);
    client.createProducer("orders").send("order 1");
  }

  std::shared_ptr<ManualClock> clock = std::make_shared<ManualClock>();
  Client client;
  Consumer consumer;
  InventoryHandler handler;
};

TEST_F(InventoryHandlerTest, RetriesUntilTheInventoryIsBack) {
  handler.handle(consumer, *consumer.receive(1s));

  // Nothing comes back before the first level (1 s) has passed on the broker's clock.
  clock->advance(999ms);
  EXPECT_FALSE(consumer.receive(0ms));
  clock->advance(1ms);
  auto retried = consumer.receive(1s);
  ASSERT_TRUE(retried);
  EXPECT_EQ(retried->property("RECONSUMETIMES"), "1");

  handler.inventoryUp = true;
  handler.handle(consumer, *retried);
  clock->advance(3h);
  EXPECT_FALSE(consumer.receive(0ms)) << "acknowledged: it never comes back";
}

TEST_F(InventoryHandlerTest, DeadLettersAfterTheTwoHourLevel) {
  // 18 levels: 1s 5s ... 1h 2h. A day of the broker's time passes in microseconds.
  auto message = consumer.receive(1s);
  for (int level = 1; level <= 18; ++level) {
    handler.handle(consumer, *message);
    clock->advance(2h);
    message = consumer.receive(1s);
    ASSERT_TRUE(message) << "level " << level;
  }
  handler.handle(consumer, *message);  // the 19th failure passes maxRetries (18)
  auto deadLetters = client.createReader(*consumer.deadLetterTopic());
  auto dead = deadLetters.readNext(1s);
  ASSERT_TRUE(dead);
  EXPECT_EQ(dead->property("DEAD_LETTER_CAUSE"), "exhausted");
  EXPECT_EQ(dead->property("RECONSUMETIMES"), "19");
}
