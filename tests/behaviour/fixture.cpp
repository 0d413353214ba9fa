#include "fixture.hpp"

#include <algorithm>
#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/use_future.hpp>
#include <cstdint>
#include <cstdlib>
#include <future>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>

namespace reconsume::behaviour {

std::vector<std::string> serviceUrls() {
  const char* env = std::getenv("RECONSUME_SERVICE_URLS");
  std::string list = env && *env ? env : "embedded://";
  std::vector<std::string> urls;
  std::stringstream stream(list);
  for (std::string url; std::getline(stream, url, ',');) {
    if (!url.empty()) urls.push_back(url);
  }
  return urls;
}

std::string backendName(const ::testing::TestParamInfo<std::string>& info) {
  auto scheme = info.param.substr(0, info.param.find(':'));
  std::erase_if(scheme, [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); });
  return scheme + std::to_string(info.index);
}

namespace {

std::mutex latenessMutex;
std::vector<std::chrono::milliseconds> lateness;

class LatenessReport : public ::testing::Environment {
 public:
  void TearDown() override {
    std::lock_guard lock(latenessMutex);
    if (lateness.empty()) return;
    std::sort(lateness.begin(), lateness.end());
    auto at = [](double q) {
      return lateness[static_cast<std::size_t>(q * (lateness.size() - 1))];
    };
    std::printf(
        "[ lateness ] %zu delayed deliveries on a real broker: p50 %lld ms, p99 %lld ms, "
        "max %lld ms\n",
        lateness.size(), static_cast<long long>(at(0.5).count()),
        static_cast<long long>(at(0.99).count()), static_cast<long long>(lateness.back().count()));
  }
};

const auto* const latenessReport = ::testing::AddGlobalTestEnvironment(new LatenessReport);

// "<run>-<n>": a random run number of 48 bits, so that a standalone whose data outlives many test
// runs never hands one run a topic (and its subscriptions) left by another (five decimal digits
// collided on a developer's standalone after some hundred runs).
std::string uniqueSuffix() {
  static std::atomic<int> counter{0};
  static const std::string run = [] {
    std::random_device random;
    const std::uint64_t bits = (std::uint64_t{random()} << 32 | random()) & 0xffffffffffffULL;
    std::ostringstream text;
    text << std::hex << bits;
    return text.str();
  }();
  return run + "-" + std::to_string(++counter);
}

std::string adminUrlFor(const std::string& serviceUrl) {
  if (const char* env = std::getenv("RECONSUME_PULSAR_ADMIN_URL"); env && *env) return env;
  auto host = serviceUrl.substr(serviceUrl.find("://") + 3);
  host = host.substr(0, host.find(':'));
  return "http://" + host + ":8080";
}

}  // namespace

void recordLateness(std::chrono::milliseconds late) {
  std::lock_guard lock(latenessMutex);
  lateness.push_back(late);
}

void BehaviourTest::SetUp() {
  url_ = GetParam();
  if (url_.starts_with("embedded:")) {
    // A broker of its own per test, on a ManualClock.
    manualClock_ = std::make_shared<ManualClock>();
    url_ = "embedded://test-" + uniqueSuffix() + "?maxMessageSize=65536";
    ClientOptions options;
    options.clock = manualClock_;
    client_ = Client::connect(url_, options);
    admin_ = Admin::connect(url_);
  } else {
    client_ = Client::connect(url_);
    admin_ = Admin::connect(adminUrlFor(url_));
  }
}

void BehaviourTest::TearDown() {
  client_.close();
}

std::string BehaviourTest::uniqueTopic(const std::string& prefix) {
  return "persistent://public/default/" + prefix + "-" + uniqueSuffix();
}

Client BehaviourTest::connectAnotherClient() {
  return Client::connect(url_);
}

Client BehaviourTest::connectAnotherClient(ClientOptions options) {
  if (manualClock_) options.clock = manualClock_;
  return Client::connect(url_, std::move(options));
}

Clock::time_point BehaviourTest::now() const {
  return manualClock_ ? manualClock_->now() : std::chrono::system_clock::now();
}

void BehaviourTest::letPass(std::chrono::milliseconds d) {
  if (manualClock_) manualClock_->advance(d);
}

Message BehaviourTest::receiveAt(Consumer& consumer, Clock::time_point due,
                                 std::chrono::milliseconds slack) {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  if (manualClock_) {
    if (manualClock_->now() < due - 1ms) manualClock_->set(due - 1ms);
    auto early = consumer.receive(20ms);
    EXPECT_FALSE(early) << "a message arrived 1 ms before its due time: "
                        << (early ? early->id().toString() : "");
    if (manualClock_->now() < due) manualClock_->set(due);
    return receiveNow(consumer);
  }
  auto wait = duration_cast<milliseconds>(due - std::chrono::system_clock::now()) + slack;
  auto message = consumer.receive(std::max(wait, milliseconds(1)));
  auto arrived = std::chrono::system_clock::now();
  if (!message) {
    ADD_FAILURE() << "no message within " << wait.count() << " ms";
    throw std::runtime_error("no delayed message arrived");
  }
  EXPECT_GE(arrived, due) << "message " << message->id().toString() << " arrived "
                          << duration_cast<milliseconds>(due - arrived).count()
                          << " ms before its due time";
  recordLateness(duration_cast<milliseconds>(arrived - due));
  return *message;
}

Message BehaviourTest::receiveNow(Consumer& consumer, std::chrono::milliseconds timeout) {
  auto message = consumer.receive(timeout);
  if (!message) {
    ADD_FAILURE() << "no message within " << timeout.count() << " ms";
    throw std::runtime_error("no message arrived");
  }
  return *message;
}

void BehaviourTest::expectNothing(Consumer& consumer, std::chrono::milliseconds wait) {
  auto message = consumer.receive(manualClock_ ? 20ms : wait);
  EXPECT_FALSE(message) << "unexpected message " << message->id().toString() << " on "
                        << message->topic() << ": " << message->data();
}

bool BehaviourTest::runUntil(boost::asio::io_context& own, const std::function<bool()>& finished,
                             std::chrono::milliseconds timeout) {
  // run_for returns early once `own` has no work left (every handler bound to it has run), and
  // leaves it stopped: restart() lets the test run it again.
  own.restart();
  own.run_for(timeout);
  if (finished()) return true;
  client_.close();
  own.restart();
  own.run_for(10s);
  return false;
}

void BehaviourTest::closeAndRunPendingHandlers() {
  client_.close();
  // Completions run on the client's thread in the order they were queued (one I/O thread, the
  // default): once this marker has run, so have the handlers of every operation close() ended.
  auto reached = std::make_shared<std::promise<void>>();
  auto marker = reached->get_future();
  boost::asio::post(client_.executor(), [reached] { reached->set_value(); });
  if (marker.wait_for(10s) != std::future_status::ready) {
    ADD_FAILURE() << "the client's thread did not run a posted function within 10 s of close()";
  }
}

std::vector<MessageId> BehaviourTest::sendInOneEntry(const std::string& topic, int count) {
  ProducerOptions options;
  options.topic = topic;
  options.batching.maxPublishDelay = 100ms;
  auto producer = client().createProducer(options);
  std::vector<std::future<MessageId>> sent;
  for (int i = 0; i < count; ++i) {
    sent.push_back(producer.asyncSend(OutgoingMessage{.payload = "m" + std::to_string(i)},
                                      boost::asio::use_future));
  }
  std::vector<MessageId> ids;
  for (auto& done : sent) ids.push_back(done.get());
  if (!embedded() && ids.front().entry() != ids.back().entry()) {
    ADD_FAILURE() << "the " << count
                  << " sends were expected in one entry: " << ids.front().toString() << " .. "
                  << ids.back().toString();
    throw std::runtime_error("the sends did not share an entry");
  }
  return ids;
}

std::vector<Message> BehaviourTest::readAll(const std::string& topic) {
  auto reader = client_.createReader(topic);
  std::vector<Message> messages;
  while (reader.hasMessageAvailable()) {
    auto message = reader.readNext(kDueWithin);
    if (!message) {
      ADD_FAILURE() << "hasMessageAvailable said yes but nothing came within " << kDueWithin.count()
                    << " ms on " << topic;
      break;
    }
    messages.push_back(*message);
  }
  reader.close();
  return messages;
}

ConsumerOptions BehaviourTest::plainOptions(const std::string& topic,
                                            const std::string& subscription) {
  ConsumerOptions options;
  options.topics = {topic};
  options.subscription = subscription;
  options.initialPosition = InitialPosition::earliest;
  return options;
}

ConsumerOptions BehaviourTest::retryOptions(const std::string& topic,
                                            const std::string& subscription, RetryPolicy policy) {
  auto options = plainOptions(topic, subscription);
  options.retry = std::move(policy);
  return options;
}

}  // namespace reconsume::behaviour
