// SPEC.md section 1, "Delivery guarantees", under the faults that decide them, made deterministic
// on the embedded broker: an acknowledgement's answer lost, a commit's answer lost, a commit
// refused. Each test states the exact outcome: what the call reports, and where the message is.
#include <gtest/gtest.h>

#include "embedded/broker.hpp"
#include "embedded/broker_registry.hpp"
#include "embedded/faults.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume {
namespace {

using namespace std::chrono_literals;

class DeliveryGuarantees : public ::testing::Test {
 protected:
  void SetUp() override {
    name_ = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    ClientOptions options;
    options.clock = clock_;
    options.logger = [](LogLevel, std::string_view) {};
    client_ = Client::connect("embedded://guarantees-" + name_, options);
    admin_ = Admin::connect("embedded://guarantees-" + name_);
  }
  void TearDown() override { client_.close(); }

  detail::embedded::Faults& faults() {
    return detail::embedded::findBroker("guarantees-" + name_)->faults();
  }

  Consumer subscribe(bool transactional) {
    ConsumerOptions options;
    options.topics = {topic_};
    options.subscription = "sub";
    options.initialPosition = InitialPosition::earliest;
    options.negativeAckRedeliveryDelay = 1s;
    options.retry = RetryPolicy::levels(DelayLevels::parse("1m"), 3);
    options.transactionalRetry = transactional;
    return client_.subscribe(options);
  }

  // The message on its way through: published, received.
  Message oneMessage(Consumer& consumer) {
    client_.createProducer(topic_).send("order-7");
    auto message = consumer.receive(1s);
    EXPECT_TRUE(message);
    return *message;
  }

  std::size_t storedIn(const std::string& topic) {
    auto reader = client_.createReader(topic);
    std::size_t count = 0;
    while (reader.hasMessageAvailable()) count += reader.readNext(1s) ? 1 : 0;
    return count;
  }

  // Where the message is after the call: still on its topic (delivered again once the
  // negative-ack delay and any retry delay pass), and how many copies the retry topic holds.
  bool backOnItsTopic(Consumer& consumer, const Message& original) {
    clock_->advance(1s);
    auto again = consumer.receive(0ms);
    return again && again->id() == original.id();
  }

  std::string name_;
  std::string topic_ = "persistent://public/default/guarantees";
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>();
  Client client_;
  Admin admin_;
};

TEST_F(DeliveryGuarantees,
       AtLeastOnceAnAcknowledgementAnswerLostOnceIsSentAgainAndTheCallSucceeds) {
  auto consumer = subscribe(false);
  auto message = oneMessage(consumer);
  faults().loseNextAcknowledgementAnswers(1);
  consumer.reconsumeLater(message);
  EXPECT_EQ(storedIn(*consumer.retryTopic()), 1u);
  EXPECT_EQ(admin_.backlog(topic_, "sub"), 0);
  EXPECT_FALSE(backOnItsTopic(consumer, message));
}

TEST_F(DeliveryGuarantees, AtLeastOnceAnAcknowledgementNeverConfirmedIsReportedAsUnconfirmed) {
  auto consumer = subscribe(false);
  auto message = oneMessage(consumer);
  faults().loseNextAcknowledgementAnswers(2);
  try {
    consumer.reconsumeLater(message);
    FAIL() << "the call succeeded although no acknowledgement was confirmed";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::acknowledgement_unconfirmed) << e.what();
    EXPECT_FALSE(isRetryable(e.code()));
    EXPECT_NE(std::string(e.what()).find(message.id().toString()), std::string::npos) << e.what();
  }
  // The broker applied the acknowledgement; only its answers were lost: one copy, no fork.
  EXPECT_EQ(storedIn(*consumer.retryTopic()), 1u);
  EXPECT_FALSE(backOnItsTopic(consumer, message));
}

TEST_F(DeliveryGuarantees, TransactionalACommitAnswerLostIsAnUnknownOutcomeWithOneCopy) {
  auto consumer = subscribe(true);
  auto message = oneMessage(consumer);
  faults().loseNextCommitAnswers(1);
  try {
    consumer.reconsumeLater(message);
    FAIL() << "the call succeeded although the commit's answer was lost";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::transaction_not_found) << e.what();
    EXPECT_NE(std::string(e.what()).find("unknown"), std::string::npos) << e.what();
  }
  // The commit took effect: exactly one place, the retry topic.
  EXPECT_EQ(storedIn(*consumer.retryTopic()), 1u);
  EXPECT_EQ(admin_.backlog(topic_, "sub"), 0);
  EXPECT_FALSE(backOnItsTopic(consumer, message));
}

TEST_F(DeliveryGuarantees, TransactionalARefusedCommitLeavesTheMessageOnlyOnItsTopic) {
  auto consumer = subscribe(true);
  auto message = oneMessage(consumer);
  faults().refuseNextCommits(1);
  try {
    consumer.reconsumeLater(message);
    FAIL() << "the call succeeded although the commit was refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::broker_error) << e.what();
  }
  EXPECT_EQ(storedIn(*consumer.retryTopic()), 0u) << "the copy is discarded with the abort";
  EXPECT_TRUE(backOnItsTopic(consumer, message));
}

TEST_F(DeliveryGuarantees, TransactionalAnAcknowledgementAnswerLostAbortsAndLeavesOnePlace) {
  auto consumer = subscribe(true);
  auto message = oneMessage(consumer);
  faults().loseNextAcknowledgementAnswers(1);
  EXPECT_THROW(consumer.reconsumeLater(message), Error);
  // Whatever the broker did with the acknowledgement, the transaction aborted: the copy is gone
  // and the original is back.
  EXPECT_EQ(storedIn(*consumer.retryTopic()), 0u);
  EXPECT_TRUE(backOnItsTopic(consumer, message));
}

}  // namespace
}  // namespace reconsume
