// Exponential backoff with jitter: delays grow ×2 from 20 ms up to 200 ms, each drawn at random
// below that bound ("full" jitter), so retries of many messages do not arrive in lockstep.
#include <cstdio>
#include <reconsume/reconsume.hpp>
#include <string>

using namespace reconsume;
using namespace std::chrono_literals;

int main() {
  auto client = Client::connect("embedded://");
  ExponentialBackoff backoff;
  backoff.min = 20ms;
  backoff.max = 200ms;
  backoff.multiplier = 2.0;
  backoff.jitter = Jitter::full;

  ConsumerOptions options;
  options.topics = {"emails"};
  options.subscription = "sender";
  options.retry = RetryPolicy::exponential(backoff, /*maxRetries=*/5);
  auto consumer = client.subscribe(options);
  std::printf("policy: %s\n", options.retry->describe().c_str());
  client.createProducer("emails").send("welcome mail");

  auto message = consumer.receive(5s);
  for (int n = 1; n <= 5 && message; ++n) {
    consumer.reconsumeLater(*message);
    message = consumer.receive(5s);
    if (!message) return 1;
    long delay = std::stol(message->property("DELAY_TIME").value_or("-1"));
    long bound = std::min(200L, 20L << (n - 1));
    std::printf("retry %d waited %ld ms (bound %ld ms)\n", n, delay, bound);
    if (delay < 0 || delay > bound) return 1;
  }
  if (!message) return 1;
  consumer.acknowledge(*message);
  return 0;
}
