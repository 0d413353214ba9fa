// AckGrouper (client/ack_grouper.hpp): acknowledgements held for the group time, or until the
// group is full, then handed on together. Time is a ManualSteadyClock; its due waits run when the
// io_context is polled.
#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <memory>
#include <vector>

#include "client/ack_grouper.hpp"
#include "common/message_data.hpp"

namespace reconsume::detail::client {
namespace {

using namespace std::chrono_literals;

Message ackedMessageAt(std::int64_t entry) {
  auto data = std::make_shared<MessageData>();
  data->id = MessageId(7, entry);
  data->topic = "persistent://public/default/t";
  return Message(data);
}

struct Groups {
  std::vector<std::vector<MessageId>> flushed;
  boost::asio::io_context io;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work{
      io.get_executor()};  // poll() does not stop it when it runs out of work
  std::shared_ptr<ManualSteadyClock> clock = std::make_shared<ManualSteadyClock>();
  std::shared_ptr<AckGrouper> grouper;

  explicit Groups(std::chrono::milliseconds groupTime) {
    grouper =
        std::make_shared<AckGrouper>(io.get_executor(), clock, groupTime, [this](auto& group) {
          std::vector<MessageId> ids;
          for (auto& held : group) {
            ids.push_back(held.message.id());
            held.done({});
          }
          flushed.push_back(std::move(ids));
        });
  }
  void advance(std::chrono::milliseconds step) {
    clock->advance(step);
    io.poll();
  }
  void add(std::int64_t entry, int* answered = nullptr) {
    grouper->add({0, ackedMessageAt(entry),
                  [answered](const Status& status) {
                    if (answered != nullptr && status.ok()) ++*answered;
                  },
                  std::chrono::steady_clock::now()});
  }
};

TEST(AckGrouper, HoldsUntilTheGroupTimeAfterTheFirstThenHandsAllOnTogether) {
  Groups groups(100ms);
  int answered = 0;
  groups.add(1, &answered);
  groups.advance(60ms);
  groups.add(2, &answered);
  EXPECT_TRUE(groups.grouper->held().contains(0, MessageId(7, 1)));
  EXPECT_FALSE(groups.grouper->held().contains(1, MessageId(7, 1))) << "another slot";
  EXPECT_FALSE(groups.grouper->held().contains(0, MessageId(7, 3)));
  groups.advance(39ms);
  EXPECT_TRUE(groups.flushed.empty()) << "99 ms after the first";
  groups.advance(1ms);
  ASSERT_EQ(groups.flushed.size(), 1u);
  EXPECT_EQ(groups.flushed[0], (std::vector<MessageId>{MessageId(7, 1), MessageId(7, 2)}));
  EXPECT_EQ(answered, 2);
  EXPECT_FALSE(groups.grouper->held().contains(0, MessageId(7, 1)));
  EXPECT_EQ(groups.grouper->size(), 0u);

  // The next group's time starts with its own first acknowledgement.
  groups.advance(500ms);
  groups.add(3);
  groups.advance(99ms);
  EXPECT_EQ(groups.flushed.size(), 1u);
  groups.advance(1ms);
  EXPECT_EQ(groups.flushed.size(), 2u);
}

TEST(AckGrouper, AViewOfNothingHeldTakesNoLockAndAViewOfSomeSeesThemAll) {
  Groups groups(100ms);
  {
    auto nothing = groups.grouper->held();
    // Were the view holding the grouper's lock, this add() on the same thread would deadlock.
    groups.add(1);
    EXPECT_FALSE(nothing.contains(0, MessageId(7, 1))) << "taken before anything was held";
  }
  groups.add(2);
  auto some = groups.grouper->held();
  EXPECT_TRUE(some.contains(0, MessageId(7, 1)));
  EXPECT_TRUE(some.contains(0, MessageId(7, 2)));
  EXPECT_FALSE(some.contains(0, MessageId(7, 3)));
}

TEST(AckGrouper, AFullGroupGoesOutAtOnce) {
  Groups groups(1min);
  for (std::size_t i = 0; i + 1 < AckGrouper::kMaxGroupSize; ++i) groups.add(static_cast<int>(i));
  EXPECT_TRUE(groups.flushed.empty());
  groups.add(5000);
  ASSERT_EQ(groups.flushed.size(), 1u);
  EXPECT_EQ(groups.flushed[0].size(), AckGrouper::kMaxGroupSize);
  groups.advance(std::chrono::minutes(2));
  EXPECT_EQ(groups.flushed.size(), 1u) << "no timer left for an empty group";
}

TEST(AckGrouper, FlushNowHandsOnWhatIsHeldAndDisarmsTheTimer) {
  Groups groups(100ms);
  groups.grouper->flushNow();
  EXPECT_TRUE(groups.flushed.empty()) << "nothing held, nothing handed on";
  groups.add(1);
  groups.grouper->flushNow();
  ASSERT_EQ(groups.flushed.size(), 1u);
  groups.advance(1s);
  EXPECT_EQ(groups.flushed.size(), 1u) << "the timer went with the group";
}

TEST(AckGrouper, AGrouperGoneBeforeItsTimerHandsWhatItHeldOnAsItGoesAndOnlyThen) {
  Groups groups(100ms);
  int answered = 0;
  groups.add(1, &answered);
  groups.add(2, &answered);
  groups.grouper.reset();  // its consumer dropped without close()
  ASSERT_EQ(groups.flushed.size(), 1u) << "held callbacks are answered, not destroyed unanswered";
  EXPECT_EQ(groups.flushed[0], (std::vector<MessageId>{MessageId(7, 1), MessageId(7, 2)}));
  EXPECT_EQ(answered, 2);
  groups.advance(1s);
  EXPECT_EQ(groups.flushed.size(), 1u) << "the timer of a grouper that is gone does nothing";
}

}  // namespace
}  // namespace reconsume::detail::client
