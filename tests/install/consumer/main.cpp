// Compiled against the installed headers and library only: publish, fail once, retry.
#include <cstdio>
#include <reconsume/reconsume.hpp>

using namespace std::chrono_literals;

int main() {
  auto clock = std::make_shared<reconsume::ManualClock>();
  reconsume::ClientOptions clientOptions;
  clientOptions.clock = clock;
  auto client = reconsume::Client::connect("embedded://installed", clientOptions);
  reconsume::ConsumerOptions options;
  options.topics = {"orders"};
  options.subscription = "installed";
  options.retry = reconsume::RetryPolicy::levels(reconsume::DelayLevels::defaultTable());
  auto consumer = client.subscribe(options);
  client.createProducer("orders").send("hello");
  consumer.reconsumeLater(consumer.receive());
  clock->advance(1s);
  auto retried = consumer.receive(1s);
  std::printf("retried: %s\n", retried ? retried->property("RECONSUMETIMES")->c_str() : "nothing");
  return retried && retried->property("RECONSUMETIMES") == "1" ? 0 : 1;
}
