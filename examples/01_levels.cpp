// A delay-level table: each failure of a message brings it back one level later, and after the
// last level it goes to the dead-letter topic. Runs on the embedded broker in real time.
#include <cstdio>
#include <reconsume/reconsume.hpp>

using namespace reconsume;
using namespace std::chrono_literals;

int main() {
  auto client = Client::connect("embedded://");

  ConsumerOptions options;
  options.topics = {"orders"};
  options.subscription = "billing";
  options.retry = RetryPolicy::levels(DelayLevels::parse("50ms 100ms 200ms"));
  auto consumer = client.subscribe(options);

  client.createProducer("orders").send("order 1001");

  // The handler fails every time: the message walks the three levels, then dead-letters.
  for (int attempt = 0; attempt <= 3; ++attempt) {
    auto message = consumer.receive(5s);
    if (!message) return 1;
    std::printf("attempt %d from %s, RECONSUMETIMES=%s\n", attempt, message->topic().c_str(),
                message->property("RECONSUMETIMES").value_or("-").c_str());
    consumer.reconsumeLater(*message);
  }

  auto deadLetters = client.createReader(*consumer.deadLetterTopic());
  auto dead = deadLetters.readNext(5s);
  if (!dead) return 1;
  std::printf("dead-lettered: %s (cause %s)\n", std::string(dead->data()).c_str(),
              dead->property("DEAD_LETTER_CAUSE").value_or("?").c_str());
  return dead->property("DEAD_LETTER_CAUSE") == "exhausted" ? 0 : 1;
}
