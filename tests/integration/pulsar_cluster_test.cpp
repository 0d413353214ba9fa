// On a real two-broker Pulsar cluster (scripts/pulsar-cluster.sh; the ctest entry
// reconsume_integration_cluster runs these through scripts/with-pulsar-cluster.sh, which exports
// the RECONSUME_CLUSTER_* variables):
//   - a service URL naming several hosts passes over one that does not answer;
//   - whichever broker is asked, the lookup leads to the topic's owner;
//   - a topic whose owner changes (unload) mid-run loses no message, sent or received;
//   - the fault run (fault_run.hpp) with the owning broker killed (SIGKILL) and started again:
//     every message processed or dead-lettered, none lost, duplicates counted.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "integration/fault_run.hpp"
#include "integration/pulsar_environment.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume::integration {
namespace {

using namespace std::chrono_literals;

std::string required(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') {
    throw std::runtime_error(std::string(name) +
                             " is not set: run these tests through scripts/with-pulsar-cluster.sh");
  }
  return value;
}

struct Cluster {
  std::string serviceUrl = required("RECONSUME_CLUSTER_URL");  // pulsar://localhost:6660,…
  std::string brokerUrl[2] = {required("RECONSUME_CLUSTER_BROKER_URL_1"),
                              required("RECONSUME_CLUSTER_BROKER_URL_2")};
  std::string adminUrl[2] = {required("RECONSUME_CLUSTER_ADMIN_URL_1"),
                             required("RECONSUME_CLUSTER_ADMIN_URL_2")};
  std::string script = required("RECONSUME_CLUSTER_SCRIPT");

  // `scripts/pulsar-cluster.sh <arguments>`; throws when it fails.
  void run(const std::string& arguments) const {
    std::string command = script + " " + arguments;
    std::fflush(stdout);
    if (std::system(command.c_str()) != 0) throw std::runtime_error("failed: " + command);
  }
  void moveTo(const std::string& topic, int broker) const {
    run("unload " + topic + " --to " + std::to_string(broker));
  }
};

const Cluster& cluster() {
  static const Cluster instance;
  return instance;
}

std::string hostsOf(const std::string& url) {
  return url.substr(url.find("://") + 3);
}

// Sends "0".."n-1" on `topic` and receives them on subscription "sub", each once at least.
struct Flow {
  Producer producer;
  Consumer consumer;
};

Flow openFlow(Client& client, const std::string& topic) {
  ConsumerOptions options;
  options.topics = {topic};
  options.subscription = "sub";
  options.initialPosition = InitialPosition::earliest;
  auto consumer = client.subscribe(options);
  return {client.createProducer(topic), std::move(consumer)};
}

void sendAndReceiveOne(Client& client, const std::string& topic, const std::string& payload) {
  auto flow = openFlow(client, topic);
  flow.producer.send(payload);
  for (;;) {  // earlier payloads of other rounds come first
    auto message = flow.consumer.receive(30s);
    ASSERT_TRUE(message) << "nothing received on " << topic;
    flow.consumer.acknowledge(*message);
    if (message->data() == payload) return;
  }
}

TEST(PulsarCluster, AServiceUrlHostThatDoesNotAnswerIsPassedOver) {
  // Port 1 refuses at once: the lookups go on to the cluster's brokers.
  auto client = Client::connect("pulsar://127.0.0.1:1," + hostsOf(cluster().serviceUrl));
  auto topic = uniqueTopic("cluster-hosts");
  sendAndReceiveOne(client, topic, "over the second host");
  client.close();
}

TEST(PulsarCluster, WhicheverBrokerIsAskedTheLookupLeadsToTheOwner) {
  auto topic = uniqueTopic("cluster-lookup");
  for (int owner : {2, 1}) {
    {  // the topic exists before it is moved
      auto client = Client::connect(cluster().brokerUrl[0]);
      client.createProducer(topic).send("create");
      client.close();
    }
    cluster().moveTo(topic, owner);
    for (int asked : {1, 2}) {
      SCOPED_TRACE("owner broker " + std::to_string(owner) + ", asked broker " +
                   std::to_string(asked));
      auto client = Client::connect(cluster().brokerUrl[asked - 1]);
      sendAndReceiveOne(client, topic,
                        "owner " + std::to_string(owner) + " asked " + std::to_string(asked));
      client.close();
    }
  }
}

TEST(PulsarCluster, ATopicWhoseOwnerChangesMidRunLosesNothing) {
  constexpr int kMessages = 3000;
  auto client = Client::connect(cluster().serviceUrl);
  auto topic = uniqueTopic("cluster-unload");
  auto flow = openFlow(client, topic);

  std::mutex mutex;
  std::condition_variable progressed;
  std::set<std::string> received;
  long duplicates = 0;
  long unconfirmedAcks = 0;
  std::string receiveError;
  std::thread receiver([&] {
    try {
      for (;;) {
        auto message = flow.consumer.receive(60s);
        if (!message) return;
        // An acknowledgement whose answer two ended sessions in a row took with them (a move,
        // then a SEND_ERROR of the moving topic that closes the shared connection, as Java's
        // client does) is reported and not sent a third time (SPEC.md section 1): its message
        // may come again, which is no loss. Any other failure is.
        try {
          flow.consumer.acknowledge(*message);
        } catch (const Error& e) {
          if (e.code() != errc::connection_lost && e.code() != errc::acknowledgement_unconfirmed)
            throw;
          std::lock_guard lock(mutex);
          ++unconfirmedAcks;
        }
        std::lock_guard lock(mutex);
        if (!received.insert(std::string(message->data())).second) ++duplicates;
        progressed.notify_all();
        if (received.size() == kMessages) return;
      }
    } catch (const std::exception& e) {
      std::lock_guard lock(mutex);
      receiveError = e.what();
      progressed.notify_all();
    }
  });
  std::atomic<int> sent{0};
  std::string sendError;
  std::thread sender([&] {
    try {
      for (int i = 0; i < kMessages; ++i, ++sent) flow.producer.send(std::to_string(i));
    } catch (const std::exception& e) {
      sendError = e.what();
    }
  });
  auto waitForReceived = [&](std::size_t count) {
    std::unique_lock lock(mutex);
    return progressed.wait_for(lock, 60s,
                               [&] { return received.size() >= count || !receiveError.empty(); });
  };
  // A move that fails is a failure of the test, not an exception past the running threads
  // (std::terminate, and nothing of what they saw reported).
  auto moveTo = [&](int broker) {
    try {
      cluster().moveTo(topic, broker);
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
    }
  };
  EXPECT_TRUE(waitForReceived(kMessages / 3));
  moveTo(2);
  EXPECT_TRUE(waitForReceived(2 * kMessages / 3));
  moveTo(1);
  sender.join();
  receiver.join();

  EXPECT_EQ(sendError, "");
  EXPECT_EQ(receiveError, "");
  EXPECT_EQ(sent.load(), kMessages);
  EXPECT_EQ(received.size(), static_cast<std::size_t>(kMessages)) << "lost on the way";
  std::printf(
      "[ cluster ] %d messages across two unloads: %ld duplicates, %ld unconfirmed "
      "acknowledgements\n",
      kMessages, duplicates, unconfirmedAcks);
  client.close();
}

// The owner of the input topic (broker 1) is killed and started again mid-run; its topics move
// to broker 2 once its metadata session ends, and back to whichever broker the lookups choose.
TEST(PulsarCluster, ABrokerKilledMidRunLosesNothing) {
  auto config = faultrun::Config::fromEnvironment(faultrun::Mode::atLeastOnce);
  config.target.serviceUrl = cluster().serviceUrl;
  config.target.adminUrl = cluster().adminUrl[1];  // broker 2: alive while broker 1 is killed
  config.target.adminOptions = {};
  config.target.shared = false;
  // No health watch: the standalone's script would look at (and restart) the standalone.
  config.target.care.reset();
  config.target.prepare = [](const std::string& topic) { cluster().moveTo(topic, 1); };
  config.target.killAndRestart = [] {
    auto killed = std::chrono::steady_clock::now();
    cluster().run("kill-broker 1");
    cluster().run("start-broker 1");  // waits until it is ready and healthy
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  };
  faultrun::Figures figures;
  try {
    figures = faultrun::run(config);
  } catch (const std::exception& e) {
    FAIL() << "the fault run stopped: " << e.what();
  }
  std::printf("%s\n", figures.line().c_str());
  EXPECT_EQ(figures.lost, 0u);
  EXPECT_EQ(figures.misplaced, 0u);
  EXPECT_TRUE(figures.settled) << "left unacknowledged: " << figures.inputBacklog << " on the "
                               << "input topic, " << figures.retryBacklog << " on the retry topic";
}

}  // namespace
}  // namespace reconsume::integration
