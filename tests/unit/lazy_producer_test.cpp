// LazyProducer (src/retry/lazy_producer.hpp): one creation for every first use, and uses that keep
// their order around it. On the client's I/O thread a first use queues; a use made from a queued
// use's callback stands for one that another thread makes while the queued ones run:
// deterministic, where a second thread would have to hit that moment. On an application's thread
// a first use waits for the producer and runs on that thread.
#include "retry/lazy_producer.hpp"

#include <gtest/gtest.h>

#include <boost/asio/post.hpp>
#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "client/client_impl.hpp"

namespace reconsume::detail::retry {
namespace {

using ProducerPtr = std::shared_ptr<client::ProducerImpl>;

struct LazyProducerTest : ::testing::Test {
  std::shared_ptr<client::ClientImpl> client =
      client::ClientImpl::connect("embedded://lazy-producer", ClientOptions{});
  std::shared_ptr<LazyProducer> lazy = std::make_shared<LazyProducer>(client, [] {
    ProducerOptions options;
    options.topic = "orders-sub-RETRY";
    return options;
  }());

  ~LazyProducerTest() override {
    std::promise<void> producerClosed, clientClosed;
    lazy->close([&](const Status&) { producerClosed.set_value(); });
    producerClosed.get_future().wait();
    client->close([&](const Status&) { clientClosed.set_value(); });
    clientClosed.get_future().wait();
  }
};

TEST_F(LazyProducerTest, AUseMadeWhileTheWaitingUsesRunIsAnsweredAfterThem) {
  // Written by the callbacks only, read once the last has run.
  std::vector<std::string> order;
  ProducerPtr first, second;
  std::promise<void> secondRan;
  // Made on the client's I/O thread (as a handler would): it queues.
  boost::asio::post(client->io(), [&] {
    lazy->get([&](const Status& status, ProducerPtr producer) {
      ASSERT_TRUE(status.ok()) << status.message;
      first = producer;
      order.push_back("first begins");
      // Not made yet for a caller that skips get(): it would be sent ahead of this use.
      EXPECT_EQ(lazy->created(), nullptr);
      lazy->get([&](const Status& status, ProducerPtr producer) {
        EXPECT_TRUE(status.ok()) << status.message;
        second = producer;
        order.push_back("second");
        secondRan.set_value();
      });
      order.push_back("first ends");
    });
  });

  ASSERT_EQ(secondRan.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(order, (std::vector<std::string>{"first begins", "first ends", "second"}));
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(second, first);  // one creation

  // A later use on this thread is answered inside its call — once the producer counts as made,
  // which may be just after the queued uses ran.
  bool third = false;
  lazy->get([&](const Status& status, ProducerPtr producer) {
    EXPECT_TRUE(status.ok()) << status.message;
    EXPECT_EQ(producer, first);
    third = true;
  });
  EXPECT_TRUE(third);
  EXPECT_EQ(lazy->created(), first.get());
}

TEST_F(LazyProducerTest, AFirstUseOnAnApplicationThreadWaitsForTheProducerAndRunsOnThatThread) {
  const auto caller = std::this_thread::get_id();
  std::thread::id ranOn;
  ProducerPtr got;
  lazy->get([&](const Status& status, ProducerPtr producer) {
    EXPECT_TRUE(status.ok()) << status.message;
    ranOn = std::this_thread::get_id();
    got = producer;
  });
  // Answered inside the call: there, a send that finds no room waits for it, as later ones do.
  EXPECT_EQ(ranOn, caller);
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(lazy->created(), got.get());
}

TEST_F(LazyProducerTest, AfterCloseAUseIsRefusedNamingTheTopic) {
  std::promise<void> made, closed;
  lazy->get([&](const Status&, ProducerPtr) { made.set_value(); });
  made.get_future().wait();
  lazy->close([&](const Status& status) {
    EXPECT_TRUE(status.ok()) << status.message;
    closed.set_value();
  });
  closed.get_future().wait();
  EXPECT_EQ(lazy->created(), nullptr);
  Status refused;
  lazy->get([&](const Status& status, ProducerPtr producer) {
    refused = status;
    EXPECT_EQ(producer, nullptr);
  });
  EXPECT_EQ(refused.code, errc::closed);
  EXPECT_NE(refused.message.find("orders-sub-RETRY"), std::string::npos) << refused.message;
}

// On the application's thread (where each use waits inside get()) and on the client's I/O thread
// (where the uses queue).
void expectAFailedCreationReportedAndTriedAgain(const std::shared_ptr<client::ClientImpl>& client,
                                                bool onIoThread) {
  ProducerOptions options;
  options.topic = "not-a/topic";
  auto failing = std::make_shared<LazyProducer>(client, options);
  std::vector<Status> answers;  // written by the callbacks only, read once both have run
  std::promise<void> bothRan;
  auto firstUse = [&] {
    failing->get([&](const Status& status, ProducerPtr producer) {
      EXPECT_EQ(producer, nullptr);
      answers.push_back(status);
      // A use after the failure starts a creation of its own rather than waiting for none.
      failing->get([&](const Status& again, ProducerPtr) {
        answers.push_back(again);
        bothRan.set_value();
      });
    });
  };
  if (onIoThread) {
    boost::asio::post(client->io(), firstUse);
  } else {
    firstUse();
  }
  ASSERT_EQ(bothRan.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  ASSERT_EQ(answers.size(), 2u);
  for (const auto& answer : answers) {
    EXPECT_EQ(answer.code, errc::invalid_argument);
    EXPECT_NE(answer.message.find("not-a/topic"), std::string::npos) << answer.message;
  }
  EXPECT_EQ(failing->created(), nullptr);
}

TEST_F(LazyProducerTest, AFailedCreationIsReportedToTheWaitingUsesAndTriedAgainOnTheNext) {
  expectAFailedCreationReportedAndTriedAgain(client, /*onIoThread=*/false);
  expectAFailedCreationReportedAndTriedAgain(client, /*onIoThread=*/true);
}

}  // namespace
}  // namespace reconsume::detail::retry
