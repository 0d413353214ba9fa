// The behaviour tests run, from one source, against every backend named in
// RECONSUME_SERVICE_URLS (comma-separated; default "embedded://"). The test command runs them on
// the embedded broker and on the Pulsar standalone the project starts.
//
// Time: on embedded:// each test gets its own broker on a ManualClock, so delays are checked
// exactly (nothing just before the due time, the message exactly at it). On Pulsar, time is
// real: a delayed message must not arrive before its due time, and how late it arrives is
// recorded and reported (p50, p99) rather than asserted tightly.
#pragma once

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "reconsume/reconsume.hpp"

namespace reconsume::behaviour {

using namespace std::chrono_literals;

std::vector<std::string> serviceUrls();
// A short name for a service URL, usable in a test name ("embedded", "pulsar").
std::string backendName(const ::testing::TestParamInfo<std::string>& info);

// Lateness of delayed deliveries on real brokers, reported when the test program ends.
void recordLateness(std::chrono::milliseconds lateness);

class BehaviourTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override;
  void TearDown() override;

  bool embedded() const { return manualClock_ != nullptr; }
  // A topic no other test uses: persistent://public/default/<prefix>-<unique>.
  std::string uniqueTopic(const std::string& prefix);
  Client& client() { return client_; }
  Admin& admin() { return admin_; }
  // A second client on the same broker (as another process of the same service would be).
  Client connectAnotherClient();
  // The same, with these options (on embedded:// the test's ManualClock is set in them).
  Client connectAnotherClient(ClientOptions options);

  // The broker's time now (the ManualClock on embedded://).
  Clock::time_point now() const;
  // Lets `d` pass: advances the ManualClock on embedded://; on Pulsar, real time passes anyway
  // while the next receive waits, so nothing happens here.
  void letPass(std::chrono::milliseconds d);

  // How long a test waits on Pulsar for a message that is due. Generous, because a waiting
  // receive costs nothing once the message comes, and a standalone that is loading many topics
  // (just started, or busy with other tests) was seen holding back a new topic's first dispatch
  // for 2 to over 10 s: the consumer had its 1,000 permits, the backlog was there, and the
  // broker's statistics showed nothing sent (the topic's transaction buffer recovering: the test
  // standalone enables transactions; scripts/lib/pulsar-dist.sh has what keeps a restarted one
  // from holding new topics back for 30 s).
  static constexpr std::chrono::milliseconds kDueWithin = 30s;

  // Receives a message that must not be delivered before `due` (broker time). Embedded: checks
  // that nothing arrives 1 ms before `due`, advances to `due` and receives. Pulsar: waits up to
  // `due` + `slack` and checks the arrival is not before `due`, recording the lateness.
  Message receiveAt(Consumer& consumer, Clock::time_point due,
                    std::chrono::milliseconds slack = kDueWithin);
  // Receives a message expected now (or within `timeout` of real time); fails the test if none.
  Message receiveNow(Consumer& consumer, std::chrono::milliseconds timeout = kDueWithin);
  // Asserts nothing arrives (waits `wait` of real time on Pulsar, 0 on embedded).
  void expectNothing(Consumer& consumer, std::chrono::milliseconds wait = 300ms);

  // Runs `own` (an io_context of the test's, running handlers bound to it) until `finished()`
  // holds or `timeout` of real time has passed, and says whether it holds. When it does not,
  // closes the client first, so that every operation still pending ends (with an error) and its
  // handler runs on `own` while `own` and what the handler refers to still exist: an io_context
  // must outlive the operations whose handlers it runs, and a test that fails (a broker holding
  // a new topic back longer than the wait) must not crash the test program.
  bool runUntil(boost::asio::io_context& own, const std::function<bool()>& finished,
                std::chrono::milliseconds timeout = kDueWithin + 10s);
  template <class T>
  bool runUntilReady(boost::asio::io_context& own, std::future<T>& done,
                     std::chrono::milliseconds timeout = kDueWithin + 10s) {
    return runUntil(
        own, [&] { return done.wait_for(0s) == std::future_status::ready; }, timeout);
  }

  // Waits up to `timeout` of real time for `done`, which a handler of the client's makes ready,
  // and says whether it became ready. When it did not, closes the client (every operation still
  // pending ends with errc::closed and its handler runs) and waits until the client's thread has
  // run the handlers queued by then: a failing test returns and destroys what its handlers refer
  // to, and that must fail the test, not crash the test program.
  template <class T>
  bool waitOrClose(std::future<T>& done, std::chrono::milliseconds timeout = kDueWithin + 10s) {
    if (done.wait_for(timeout) == std::future_status::ready) return true;
    closeAndRunPendingHandlers();
    return false;
  }

  // Publishes "m0", "m1", ... (`count` messages) to `topic` together, through a producer whose
  // batching delay (100 ms) surely puts them in one entry, and returns their ids. On Pulsar, fails
  // the test (and throws) unless they share one entry; embedded:// stores each as its own.
  std::vector<MessageId> sendInOneEntry(const std::string& topic, int count);

  // Everything currently in `topic`, read with a reader from the earliest message.
  std::vector<Message> readAll(const std::string& topic);

  // A subscription from the earliest message, without (plainOptions) or with a retry policy.
  ConsumerOptions plainOptions(const std::string& topic, const std::string& subscription = "sub");
  ConsumerOptions retryOptions(const std::string& topic, const std::string& subscription,
                               RetryPolicy policy);
  // `options` with acknowledgements sent one by one, each confirmed before acknowledge()
  // returns (group time 0, SPEC.md section 12): for tests that read the backlog or the cursor
  // right after acknowledging, which the default 100 ms group would leave behind.
  static ConsumerOptions confirmedAcks(ConsumerOptions options) {
    options.acknowledgmentGroupTime = std::chrono::milliseconds(0);
    return options;
  }

 private:
  void closeAndRunPendingHandlers();

  std::shared_ptr<ManualClock> manualClock_;
  Client client_;
  Admin admin_;
  std::string url_;
};

}  // namespace reconsume::behaviour
