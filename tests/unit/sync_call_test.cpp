#include "common/sync_call.hpp"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <string>
#include <thread>

#include "reconsume/error.hpp"

namespace reconsume::detail {
namespace {

BlockingCall callOn(boost::asio::io_context& io) {
  return BlockingCall{io, "Test::call", "asyncCall"};
}

TEST(SyncCall, ACallbackRunInsideStartGivesItsResults) {
  boost::asio::io_context io;
  auto [text, number] = syncCall<std::string, int>(
      callOn(io), [](Callback<std::string, int> done) { done({}, "inline", 7); });
  EXPECT_EQ(text, "inline");
  EXPECT_EQ(number, 7);
}

TEST(SyncCall, AFailureInsideStartIsThrown) {
  boost::asio::io_context io;
  try {
    syncCall<int>(callOn(io), [](Callback<int> done) {
      done(Status(errc::invalid_argument, "value 'x' is bad"), 0);
    });
    FAIL() << "no Error thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("value 'x' is bad"), std::string::npos) << e.what();
  }
}

TEST(SyncCall, ACallbackFromAnotherThreadIsWaitedFor) {
  boost::asio::io_context io;
  std::thread completer;
  auto [number] = syncCall<int>(callOn(io), [&](Callback<int> done) {
    // Completed on another thread, before or after start() returns: the caller waits for it.
    completer = std::thread([done = std::move(done)] { done({}, 42); });
  });
  completer.join();
  EXPECT_EQ(number, 42);
}

TEST(SyncCall, AFailureFromAnotherThreadIsThrown) {
  boost::asio::io_context io;
  std::thread completer;
  EXPECT_THROW(syncCall<>(callOn(io),
                          [&](Callback<> done) {
                            completer = std::thread([done = std::move(done)] {
                              done(Status(errc::timeout, "no answer from 'broker-1'"));
                            });
                          }),
               Error);
  completer.join();
}

TEST(SyncCall, IsRefusedOnTheIoThreadItWouldWaitFor) {
  boost::asio::io_context io;
  std::error_code code;
  bool started = false;
  boost::asio::post(io, [&] {
    try {
      syncCall<>(callOn(io), [&](Callback<> done) {
        started = true;
        done({});
      });
    } catch (const Error& e) {
      code = e.code();
    }
  });
  io.run();
  EXPECT_EQ(code, errc::would_deadlock);
  EXPECT_FALSE(started);
}

}  // namespace
}  // namespace reconsume::detail
