// The state behind a Producer: one backend producer per partition (one for a non-partitioned
// topic) and the routing of each message to a partition.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "client/backend.hpp"
#include "client/client_impl.hpp"
#include "client/send_epochs.hpp"
#include "client/send_limits.hpp"

namespace reconsume::detail::client {

class ProducerImpl : public Closeable, public std::enable_shared_from_this<ProducerImpl> {
 public:
  // Validates the options, looks up the partitions and creates the backend producers.
  static void create(const std::shared_ptr<ClientImpl>& client, ProducerOptions options,
                     Callback<std::shared_ptr<ProducerImpl>> done);

  const std::string& topic() const { return options_.topic; }
  ClientImpl& client() { return *client_; }
  // Checks the message (delays), takes room for it (ProducerOptions::maxPendingMessages and
  // maxPendingBytes, ClientOptions::memoryLimit: it may wait for room on the caller's thread, see
  // send_limits.hpp), picks its partition and sends it — as part of `transaction` when one is
  // given. The room is given back when the backend completes the send. Pass the message as an
  // rvalue and its payload is moved, not copied, on the way to the broker.
  void send(OutgoingData message, Callback<MessageId> done,
            const std::shared_ptr<BackendTransaction>& transaction = nullptr);
  // send() for a caller that keeps this producer alive until `done` has run (a retry's move holds
  // its Reconsumer, which holds the producer): the completion refers to what it counts without
  // holding it. A reference counted up on the caller's thread and down on the I/O thread moves
  // its count's cache line between two cores for every message (docs/PERFORMANCE.md).
  void sendWhileHeld(OutgoingData message, Callback<MessageId> done);
  // Writes what waits in open batches now; `done` runs once every send started before this call
  // completed, with the first failure among those started since the previous flush (closed: this
  // producer was closed before the call).
  void flush(Callback<> done);
  void close(Callback<> done) override;
  bool closesFirst() const override { return true; }

 private:
  ProducerImpl(std::shared_ptr<ClientImpl> client, ProducerOptions options);
  // invalid_argument naming the first setting out of range.
  static Status checkBatching(const BatchingOptions& batching);
  BackendProducer* route(const OutgoingData& message);
  void send(OutgoingData&& message, Callback<MessageId>&& done,
            const std::shared_ptr<BackendTransaction>& transaction, bool held);

  // What the completion of every send needs, shared: a completion captures one pointer to it
  // (a send waiting for its receipt must not keep the producer alive).
  struct SendRecord {
    std::shared_ptr<Counter> sent;  // messages stored; failures by error.type
    std::shared_ptr<Histogram> duration;
    std::shared_ptr<MetricsRegistry> registry;
    std::shared_ptr<Clock> clock;
    std::string topic;
    std::shared_ptr<ProducerSendLimit> limit;
    std::unique_ptr<SendEpochs> epochs;  // what flush() waits for
    // Counts a send that ended with `status` at `now`, begun at `started`.
    void count(const Status& status, std::chrono::steady_clock::time_point started,
               std::chrono::steady_clock::time_point now) const;
  };

  std::shared_ptr<ClientImpl> client_;
  ProducerOptions options_;
  std::vector<std::shared_ptr<BackendProducer>> partitions_;  // set once, before first use
  std::shared_ptr<ProducerSendLimit> limit_;                  // set once, before first use
  std::shared_ptr<const SendRecord> record_;                  // set once, before first use
  std::atomic<std::uint64_t> roundRobin_{0};
  std::atomic<bool> closed_{false};
};

}  // namespace reconsume::detail::client
