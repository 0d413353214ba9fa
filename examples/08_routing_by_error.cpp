// Routing by error: the handler keeps writing reconsumeLater(message, std::current_exception())
// in its catch block, and what it caught decides what happens next. A slow downstream gets a quick
// exponential retry for a few minutes, a rate limit the slow level table, an invalid order its own
// dead-letter topic at once; anything else the consumer's default policy. However it is retried,
// after 24 hours a message is dead-lettered with the cause "expired".
#include <cstdio>
#include <reconsume/reconsume.hpp>
#include <stdexcept>
#include <string>

using namespace reconsume;
using namespace std::chrono_literals;

struct DownstreamTimeout : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct RateLimited : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct InvalidOrder : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// The application's handler: fails differently depending on the order.
void handle(const Message& message) {
  std::string order(message.data());
  if (order == "slow") throw DownstreamTimeout("inventory did not answer in 2 s");
  if (order == "busy") throw RateLimited("payments said 429");
  if (order == "bad") throw InvalidOrder("amount -3 is negative");
  if (order == "odd") throw std::out_of_range("no warehouse 77");
}

int main() {
  auto client = Client::connect("embedded://");
  ConsumerOptions options;
  options.topics = {"orders"};
  options.subscription = "billing";
  // The default, for failures no rule names: the level table, at most 24 hours in all.
  options.retry = RetryPolicy::levels(DelayLevels::parse("20ms 40ms"), 2).withTimeLimit(24h);
  options.categories["downstream-timeout"].retry =
      RetryPolicy::exponential({.min = 10ms, .max = 80ms}, 3).withTimeLimit(5min);
  options.categories["rate-limited"].retry = RetryPolicy::levels(DelayLevels::parse("30ms"), 1);
  options.categories["invalid-order"].deadLetter = true;
  options.categories["invalid-order"].deadLetterTopic = "orders-invalid";
  // Most derived type wins: InvalidOrder would also match a rule for std::logic_error.
  options.errorRules.on<DownstreamTimeout>("downstream-timeout")
      .on<RateLimited>("rate-limited")
      .on<std::invalid_argument>("invalid-order");
  auto consumer = client.subscribe(options);

  auto producer = client.createProducer("orders");
  for (const char* order : {"slow", "busy", "bad", "odd"}) producer.send(order);

  // Every message fails until its category's policy is used up.
  while (auto message = consumer.receive(2s)) {
    try {
      handle(*message);
      consumer.acknowledge(*message);
    } catch (...) {
      std::printf("%-4s try %s, category %s\n", std::string(message->data()).c_str(),
                  message->property("RECONSUMETIMES").value_or("0").c_str(),
                  message->property("RECONSUME_CATEGORY").value_or("(default)").c_str());
      consumer.reconsumeLater(*message, std::current_exception());
    }
  }

  int dead = 0;
  for (const std::string& topic : {*consumer.deadLetterTopic(), std::string("orders-invalid")}) {
    auto reader = client.createReader(topic);
    while (reader.hasMessageAvailable()) {
      auto letter = reader.readNext(2s);
      if (!letter) return 1;
      ++dead;
      std::printf("dead letter %-4s in %s: cause=%s category=%s reason=%s\n",
                  std::string(letter->data()).c_str(), topic.c_str(),
                  letter->property("DEAD_LETTER_CAUSE").value_or("?").c_str(),
                  letter->property("RECONSUME_CATEGORY").value_or("(default)").c_str(),
                  letter->property("RECONSUME_REASON").value_or("-").c_str());
    }
  }
  return dead == 4 ? 0 : 1;
}
