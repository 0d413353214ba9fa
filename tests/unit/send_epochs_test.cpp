// SendEpochs, what Producer::flush waits for: every send joined before the flush and nothing
// joined after, whatever order the sends complete in, with the first failure of the sends since
// the previous flush.
#include "client/send_epochs.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <thread>
#include <vector>

namespace reconsume::detail::client {
namespace {

// What a flush's callback got, if it ran.
struct Flushed {
  std::optional<Status> status;
  Callback<> callback() {
    return [this](const Status& got) {
      ASSERT_FALSE(status) << "a flush completed twice";
      status = got;
    };
  }
};

TEST(SendEpochs, AFlushWithNothingInFlightCompletesAtOnce) {
  SendEpochs epochs;
  Flushed flushed;
  epochs.flush(flushed.callback());
  ASSERT_TRUE(flushed.status);
  EXPECT_TRUE(flushed.status->ok());
}

TEST(SendEpochs, AFlushWaitsForEverySendBeforeItAndForNoneAfter) {
  SendEpochs epochs;
  auto* first = epochs.join();
  auto* second = epochs.join();
  Flushed flushed;
  epochs.flush(flushed.callback());
  auto* later = epochs.join();
  SendEpochs::complete(later, {});  // a later send completing first does not count
  EXPECT_FALSE(flushed.status);
  SendEpochs::complete(second, {});
  EXPECT_FALSE(flushed.status);
  auto* stillLater = epochs.join();
  SendEpochs::complete(first, {});
  ASSERT_TRUE(flushed.status) << "completed with the last send before it";
  EXPECT_TRUE(flushed.status->ok());
  SendEpochs::complete(stillLater, {});
}

TEST(SendEpochs, AFlushWaitsForTheFlushesBeforeItsSendsToo) {
  SendEpochs epochs;
  auto* early = epochs.join();
  Flushed first, second;
  epochs.flush(first.callback());
  auto* middle = epochs.join();
  epochs.flush(second.callback());
  SendEpochs::complete(middle, {});
  EXPECT_FALSE(second.status) << "the send before the first flush is still in flight";
  SendEpochs::complete(early, {});
  ASSERT_TRUE(first.status);
  ASSERT_TRUE(second.status);
}

TEST(SendEpochs, EachFailureIsReportedToTheFlushAfterItsSendOnly) {
  SendEpochs epochs;
  auto* failing = epochs.join();
  auto* alsoFailing = epochs.join();
  SendEpochs::complete(failing, Status(errc::too_large, "message of 9 bytes is too large"));
  SendEpochs::complete(alsoFailing, Status(errc::timeout, "no receipt"));
  Flushed first;
  epochs.flush(first.callback());
  ASSERT_TRUE(first.status);
  EXPECT_EQ(first.status->code, errc::too_large) << "the first failure";
  EXPECT_EQ(first.status->message, "message of 9 bytes is too large");

  auto* fine = epochs.join();
  Flushed second;
  epochs.flush(second.callback());
  SendEpochs::complete(fine, {});
  ASSERT_TRUE(second.status);
  EXPECT_TRUE(second.status->ok()) << second.status->message;
}

TEST(SendEpochs, SendsAndFlushesFromManyThreadsCompleteEveryFlushOnce) {
  SendEpochs epochs;
  constexpr int kThreads = 4, kSends = 2000;
  std::vector<Flushed> flushes(kThreads * (kSends / 100));
  std::atomic<std::size_t> nextFlush{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      std::vector<SendEpochs::Epoch*> inFlight;
      for (int i = 1; i <= kSends; ++i) {
        inFlight.push_back(epochs.join());
        if (i % 3 == 0) {  // out of order: the newest first
          SendEpochs::complete(inFlight.back(), {});
          inFlight.pop_back();
        }
        if (i % 100 == 0) epochs.flush(flushes[nextFlush++].callback());
      }
      for (auto* epoch : inFlight) SendEpochs::complete(epoch, {});
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& flushed : flushes) {
    ASSERT_TRUE(flushed.status);
    EXPECT_TRUE(flushed.status->ok());
  }
}

}  // namespace
}  // namespace reconsume::detail::client
