// Choosing the wait yourself: a level of the table, or an exact delay — say, the Retry-After a
// downstream service sent back.
#include <cstdio>
#include <reconsume/reconsume.hpp>

using namespace reconsume;
using namespace std::chrono_literals;

int main() {
  auto client = Client::connect("embedded://");
  ConsumerOptions options;
  options.topics = {"payments"};
  options.subscription = "settlement";
  options.retry = RetryPolicy::levels(DelayLevels::parse("10ms 20ms 50ms 100ms"));
  auto consumer = client.subscribe(options);
  client.createProducer("payments").send("payment 77");

  auto message = consumer.receive(5s);
  if (!message) return 1;
  consumer.reconsumeLater(*message, 4);  // straight to level 4 (100 ms)

  message = consumer.receive(5s);
  if (!message) return 1;
  std::printf("back after level %s\n", message->property("RECONSUME_LEVEL").value_or("?").c_str());

  ReconsumeOptions retryAfter;
  retryAfter.delay = 30ms;  // exactly this long
  retryAfter.reason = "gateway said Retry-After: 30ms";
  consumer.reconsumeLater(*message, retryAfter);

  message = consumer.receive(5s);
  if (!message) return 1;
  std::printf("back after %sms: %s\n", message->property("DELAY_TIME").value_or("?").c_str(),
              message->property("RECONSUME_REASON").value_or("").c_str());
  consumer.acknowledge(*message);
  return message->property("DELAY_TIME") == "30" ? 0 : 1;
}
