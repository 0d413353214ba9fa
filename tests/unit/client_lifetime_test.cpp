// The last handle of a client dropped by a handler that runs on the client's own I/O thread: the
// client closes and its I/O context outlives that thread's run() (under ASan, a use after free
// otherwise).
#include <gtest/gtest.h>

#include <future>

#include "reconsume/reconsume.hpp"

namespace reconsume {
namespace {

using namespace std::chrono_literals;

// Holds the last copies; drops them in its destructor, then says so.
struct LastHandles {
  Client client;
  Consumer consumer;
  std::shared_ptr<std::promise<void>> gone;
  LastHandles(Client c, Consumer k, std::shared_ptr<std::promise<void>> g)
      : client(std::move(c)), consumer(std::move(k)), gone(std::move(g)) {}
  LastHandles(LastHandles&&) = default;
  ~LastHandles() {
    if (!gone) return;  // moved from
    consumer = Consumer();
    client = Client();
    gone->set_value();
  }
};

TEST(ClientLifetime, TheLastHandleDroppedByAHandlerOnTheClientsOwnThread) {
  auto gone = std::make_shared<std::promise<void>>();
  auto dropped = gone->get_future();
  {
    auto client = Client::connect("embedded://client-lifetime");
    ConsumerOptions options;
    options.topics = {"lifetime"};
    options.subscription = "sub";
    auto consumer = client.subscribe(options);
    auto handles = std::make_shared<LastHandles>(client, consumer, gone);
    consumer.asyncReceive(
        [handles = std::move(handles)](boost::system::error_code ec, Message message) mutable {
          EXPECT_FALSE(ec) << ec.message();
          EXPECT_EQ(message.data(), "last");
          handles.reset();  // the last Client and Consumer go with it, on the I/O thread
        });
    client.createProducer("lifetime").send("last");
  }
  EXPECT_EQ(dropped.wait_for(10s), std::future_status::ready);
}

}  // namespace
}  // namespace reconsume
