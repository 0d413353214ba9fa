// Consumer options from a JSON file, including a redelivery backoff type the application
// registers under its own name (the counterpart of the Java client's className + params).
#include <cstdio>
#include <reconsume/consumer_config.hpp>
#include <reconsume/reconsume.hpp>

using namespace reconsume;
using namespace std::chrono_literals;

// The application's own backoff: a fixed step per redelivery.
class LinearBackoff : public RedeliveryBackoff {
 public:
  explicit LinearBackoff(std::chrono::milliseconds step) : step_(step) {}
  std::chrono::milliseconds next(int redeliveryCount) const override {
    return step_ * (redeliveryCount + 1);
  }

 private:
  std::chrono::milliseconds step_;
};

int main(int argc, char** argv) {
  BackoffRegistry registry;
  registry.add("linear", [](const BackoffParams& params) {
    return std::make_shared<LinearBackoff>(params.duration("step"));
  });

  const char* json = R"({
    "topics": ["orders"],
    "subscription": "billing",
    "retry": {"exponential": {"min": "1s", "max": "1m", "multiplier": 2, "jitter": "equal"},
              "maxRetries": 8},
    "ackTimeout": "30s",
    "ackTimeoutRedeliveryBackoff": {"type": "linear", "step": "5s"}
  })";
  // From a file: loadConsumerOptions(path, registry); examples/consumer.json shows every key.
  auto options = argc > 1 ? loadConsumerOptions(argv[1], registry)
                          : parseConsumerOptions(json, registry);
  std::printf("subscription %s on %zu topic(s), %s\n", options.subscription.c_str(),
              options.topics.size(), options.retry ? options.retry->describe().c_str() : "no retry");

  auto client = Client::connect("embedded://");
  auto consumer = client.subscribe(options);
  std::printf("retry topic %s\n", consumer.retryTopic().value_or("-").c_str());

  // A mistake in the file is an error naming the key and the value.
  try {
    parseConsumerOptions(R"({"topics": ["orders"], "subscription": "b", "ackTimeout": "soon"})");
  } catch (const Error& e) {
    std::printf("as expected: %s\n", e.what());
    return 0;
  }
  return 1;
}
