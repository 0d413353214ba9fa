// The async API in C++20 coroutines: every blocking call has an async form taking an Asio
// completion token (a callback, asio::use_future, or asio::use_awaitable as here).
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cstdio>
#include <reconsume/reconsume.hpp>

namespace asio = boost::asio;
using namespace reconsume;

asio::awaitable<int> handleOrders(Consumer& consumer, int count) {
  int processed = 0;
  while (processed < count) {
    Message message = co_await consumer.asyncReceive(asio::use_awaitable);
    if (message.redeliveryCount() == 0 && !message.property("RECONSUMETIMES")) {
      // First attempt fails: come back one level later. The coroutine is suspended while the
      // retry is published and the original acknowledged.
      co_await consumer.asyncReconsumeLater(message, asio::use_awaitable);
      continue;
    }
    co_await consumer.asyncAcknowledge(message, asio::use_awaitable);
    std::printf("processed %s after %s retry\n", std::string(message.data()).c_str(),
                message.property("RECONSUMETIMES").value_or("0").c_str());
    ++processed;
  }
  co_return processed;
}

int main() {
  auto client = Client::connect("embedded://");
  ConsumerOptions options;
  options.topics = {"orders"};
  options.subscription = "async";
  options.retry = RetryPolicy::levels(DelayLevels::parse("20ms"));
  auto consumer = client.subscribe(options);
  auto producer = client.createProducer("orders");
  for (int i = 1; i <= 3; ++i) producer.send("order " + std::to_string(i));

  asio::io_context io;  // the application's own event loop; handlers complete on it
  int processed = 0;
  asio::co_spawn(io, handleOrders(consumer, 3), [&](std::exception_ptr error, int n) {
    if (error) std::rethrow_exception(error);
    processed = n;
  });
  io.run();
  return processed == 3 ? 0 : 1;
}
