// Producer::flush (SPEC.md section 11), on every backend: it writes what waits in open batches at
// once, completes after every send started before it — their handlers first — and reports the
// first failure among the sends since the previous flush, once. embedded:// holds nothing back for
// batching, and the same holds there.
#include <future>
#include <mutex>
#include <vector>

#include "fixture.hpp"

namespace reconsume::behaviour {
namespace {

class Flush : public BehaviourTest {
 protected:
  std::size_t limit() const { return embedded() ? 64 * 1024 : 5 * 1024 * 1024; }
};

TEST_P(Flush, WritesOpenBatchesAtOnceAndCompletesAfterEverySendBeforeIt) {
  auto topic = uniqueTopic("flush");
  auto consumer = client().subscribe(plainOptions(topic));
  ProducerOptions options;
  options.topic = topic;
  options.batching.maxPublishDelay = std::chrono::hours(1);  // only a flush sends them now
  auto producer = client().createProducer(options);
  std::mutex mutex;
  std::vector<std::string> completed;
  auto record = [&](std::string what) {
    std::lock_guard lock(mutex);
    completed.push_back(std::move(what));
  };
  for (int i = 0; i < 5; ++i) {
    producer.asyncSend(OutgoingMessage{.payload = "m" + std::to_string(i)},
                       [&record, i](boost::system::error_code ec, MessageId) {
                         record((ec ? "failed " : "sent ") + std::to_string(i));
                       });
  }
  std::promise<boost::system::error_code> flushed;
  producer.asyncFlush([&](boost::system::error_code ec) {
    record("flushed");
    flushed.set_value(ec);
  });
  auto done = flushed.get_future();
  ASSERT_EQ(done.wait_for(kDueWithin), std::future_status::ready)
      << "the batch waited for its delay";
  EXPECT_FALSE(done.get());
  {
    std::lock_guard lock(mutex);
    EXPECT_EQ(completed, (std::vector<std::string>{"sent 0", "sent 1", "sent 2", "sent 3", "sent 4",
                                                   "flushed"}));
  }
  for (int i = 0; i < 5; ++i) EXPECT_EQ(receiveNow(consumer).data(), "m" + std::to_string(i));
  EXPECT_NO_THROW(producer.flush()) << "nothing in flight";
}

TEST_P(Flush, ReportsAFailedSendToOneFlushAndClosedAfterClose) {
  auto producer = client().createProducer(uniqueTopic("flush-failure"));
  std::mutex mutex;
  std::vector<std::string> completed;
  auto record = [&](std::string what) {
    return [&mutex, &completed, what](boost::system::error_code ec, MessageId) {
      std::lock_guard lock(mutex);
      completed.push_back(what + (ec ? " failed" : " sent"));
    };
  };
  producer.asyncSend(OutgoingMessage{.payload = std::string(limit(), 'x')}, record("too large"));
  producer.asyncSend(OutgoingMessage{.payload = "fine"}, record("fine"));
  try {
    producer.flush();
    FAIL() << "the flush after a failed send succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::too_large) << e.what();
  }
  {
    // Their handlers ran first: on the client's I/O executor, queued before the flush's end.
    std::lock_guard lock(mutex);
    EXPECT_EQ(completed, (std::vector<std::string>{"too large failed", "fine sent"}));
  }
  EXPECT_NO_THROW(producer.flush()) << "reported to the first flush only";
  producer.close();
  try {
    producer.flush();
    FAIL() << "a flush of a closed producer succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::closed) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Flush, ::testing::ValuesIn(serviceUrls()), backendName);

}  // namespace
}  // namespace reconsume::behaviour
