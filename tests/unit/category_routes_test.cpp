// CategoryRoutes (src/retry/category_routes.hpp): which dead-letter producer a failure's category
// uses — its own topic's, shared by every category naming that topic, or the consumer's, which a
// category naming the consumer's own dead-letter topic shares rather than opening a second producer
// on it (two producers of one topic would not keep one thread's dead letters in call order).
#include "retry/category_routes.hpp"

#include <gtest/gtest.h>

#include <future>

namespace reconsume::detail::retry {
namespace {

const std::string kConsumersDeadLetters = "persistent://public/default/orders-sub-DLQ";
const std::string kFraudDeadLetters = "persistent://public/default/orders-fraud";

struct CategoryRoutesTest : ::testing::Test {
  std::shared_ptr<client::ClientImpl> client =
      client::ClientImpl::connect("embedded://category-routes", ClientOptions{});
  std::shared_ptr<LazyProducer> consumersDeadLetters = std::make_shared<LazyProducer>(client, [] {
    ProducerOptions options;
    options.topic = kConsumersDeadLetters;
    return options;
  }());

  ~CategoryRoutesTest() override {
    std::promise<void> closed;
    client->close([&](const Status&) { closed.set_value(); });
    closed.get_future().wait();
  }
};

TEST_F(CategoryRoutesTest, ACategoryNamingTheConsumersDeadLetterTopicSharesTheConsumersProducer) {
  ConsumerOptions options;
  options.deadLetterTopic = kConsumersDeadLetters;
  options.categories["invalid"].deadLetter = true;
  options.categories["invalid"].deadLetterTopic = kConsumersDeadLetters;
  options.categories["fraud"].deadLetter = true;
  options.categories["fraud"].deadLetterTopic = kFraudDeadLetters;
  options.categories["chargeback"].deadLetterTopic = kFraudDeadLetters;
  CategoryRoutes routes(options, client, consumersDeadLetters);

  EXPECT_EQ(routes.choose("invalid").deadLetters, consumersDeadLetters);
  EXPECT_EQ(routes.choose(std::nullopt).deadLetters, consumersDeadLetters);
  EXPECT_EQ(routes.choose("no such category").deadLetters, consumersDeadLetters);
  auto fraud = routes.choose("fraud").deadLetters;
  ASSERT_NE(fraud, nullptr);
  EXPECT_NE(fraud, consumersDeadLetters);
  EXPECT_EQ(fraud->topic(), kFraudDeadLetters);
  EXPECT_EQ(routes.choose("chargeback").deadLetters, fraud) << "one producer per topic";

  // close() closes the categories' own producers only: the consumer's stays usable.
  std::promise<void> closed;
  routes.close([&](const Status&) { closed.set_value(); });
  closed.get_future().wait();
  Status fraudAfterClose, ownAfterClose;
  fraud->get([&](const Status& status, std::shared_ptr<client::ProducerImpl>) {
    fraudAfterClose = status;
  });
  EXPECT_EQ(fraudAfterClose.code, errc::closed);
  std::promise<Status> own;
  consumersDeadLetters->get(
      [&](const Status& status, std::shared_ptr<client::ProducerImpl>) { own.set_value(status); });
  ownAfterClose = own.get_future().get();
  EXPECT_TRUE(ownAfterClose.ok()) << ownAfterClose.message;
  std::promise<void> ownClosed;
  consumersDeadLetters->close([&](const Status&) { ownClosed.set_value(); });
  ownClosed.get_future().wait();
}

}  // namespace
}  // namespace reconsume::detail::retry
