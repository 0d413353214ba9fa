// Dead letters: a message the handler can never process goes straight to the dead-letter topic
// with a reason; one that keeps failing lands there when the policy is used up. The dead-letter
// topic keeps them (it is created with a subscription) until someone replays or purges them.
#include <cstdio>
#include <reconsume/reconsume.hpp>

using namespace reconsume;
using namespace std::chrono_literals;

int main() {
  auto client = Client::connect("embedded://");
  ConsumerOptions options;
  options.topics = {"invoices"};
  options.subscription = "archiver";
  options.retry = RetryPolicy::levels(DelayLevels::parse("10ms"), /*maxRetries=*/1);
  auto consumer = client.subscribe(options);

  auto producer = client.createProducer("invoices");
  producer.send("{\"invoice\": 1, \"currency\": \"XXX\"}");
  producer.send("{\"invoice\": 2}");

  auto invalid = consumer.receive(5s);
  if (!invalid) return 1;
  consumer.deadLetter(*invalid, "unknown currency 'XXX'");  // no retry can fix this one

  auto flaky = consumer.receive(5s);
  if (!flaky) return 1;
  consumer.reconsumeLater(*flaky);  // first failure: retried after 10 ms
  flaky = consumer.receive(5s);
  if (!flaky) return 1;
  consumer.reconsumeLater(*flaky);  // second failure: maxRetries (1) is used up

  auto reader = client.createReader(*consumer.deadLetterTopic());
  int count = 0;
  while (reader.hasMessageAvailable()) {
    auto dead = reader.readNext(5s);
    if (!dead) return 1;
    ++count;
    std::printf("%s  cause=%s reason=%s from %s\n", std::string(dead->data()).c_str(),
                dead->property("DEAD_LETTER_CAUSE").value_or("?").c_str(),
                dead->property("RECONSUME_REASON").value_or("-").c_str(),
                dead->property("REAL_TOPIC").value_or("?").c_str());
  }
  Admin admin = Admin::connect("embedded://");
  std::printf("kept on subscription reconsume-dlq: %lld\n",
              static_cast<long long>(admin.backlog(*consumer.deadLetterTopic(), "reconsume-dlq")));
  return count == 2 ? 0 : 1;
}
