// The I/O loop that drives an AttachMachine for one producer or consumer: it looks the topic up,
// asks the broker found to create the handle, waits out backoffs on the network clock, forgets a
// lost session, and closes the handle on the broker — whatever the machine says next. The owner
// plugs in only what differs (AttachHooks): the create and close requests, what to do once
// attached, when closing, and when it is all over.
//
// Thread safety: every member runs on the owner's strand (the owner posts to it); hooks run there
// too, with no lock held.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "PulsarApi.pb.h"
#include "common/callback.hpp"
#include "common/steady_clock.hpp"
#include "pulsar/attach_machine.hpp"
#include "pulsar/connection.hpp"
#include "pulsar/network.hpp"

namespace reconsume::detail::pulsar {

class AttachHooks : public Connection::Listener {
 public:
  // The owner, kept alive by callbacks in flight.
  virtual std::shared_ptr<AttachHooks> self() = 0;
  virtual std::string describe() const = 0;
  virtual Connection::Kind kind() const = 0;
  // The id the next attempt registers under (a producer keeps one; a consumer takes a new one).
  virtual std::uint64_t nextId() = 0;
  virtual proto::BaseCommand createRequest(std::uint64_t id, std::uint64_t requestId) = 0;
  // Names the create request in errors ("PRODUCER <topic>").
  virtual std::string createWhat() const = 0;
  // How a failed first creation is reported: "cannot create the producer of <topic>".
  virtual std::string creationFailure() const = 0;
  virtual proto::BaseCommand closeRequest(std::uint64_t id, std::uint64_t requestId) = 0;
  // Attached on a new session (Attachment::connection(), session(), id() are set).
  virtual void onAttached(const Response& created, bool first) = 0;
  // A close while attached: finish what must go out first, then call Attachment::closeRemote.
  virtual void onClosing() = 0;
  // No longer attached (the session lost, the broker closed the handle, a seek): requests made
  // for the handle may never be answered now. Runs before the connection is forgotten.
  virtual void onDetached(const Status& /*why*/) {}
  // Over for good: closed, failed (the first creation) or ended (the topic is gone).
  virtual void onFinished(const AttachMachine::Action& how) = 0;
};

class Attachment {
 public:
  using Action = AttachMachine::Action;

  Attachment(const Strand& strand, std::shared_ptr<Network> network, AttachHooks& hooks,
             std::string topic);
  // Dropped while attached (the owner was never closed): closes the handle on the broker.
  ~Attachment();

  // The first creation; `attached` runs once: ok when attached, else why not.
  void start(Callback<> attached);
  void sessionLost(std::uint64_t session, const Status& why);
  // Whether `command` is the broker closing a handle (CLOSE_PRODUCER, CLOSE_CONSUMER,
  // TOPIC_MIGRATED); if so, acts on it. It counts for the handle attached and for the one being
  // created: Pulsar may close a consumer before it answers the SUBSCRIBE with success, and that
  // success then counts as a failure. A close for any other id is stale and changes nothing.
  bool closedByBroker(const proto::BaseCommand& command);
  void hold() { machine_.hold(); }
  void released(bool succeeded, const Status& why) { apply(machine_.released(succeeded, why)); }
  void close(Callback<> done);
  // While closing: close the handle on the broker now (a producer calls it once drained).
  void closeRemote();
  void shutdown(const Status& why) { apply(machine_.shutdown(why)); }

  bool ready() const { return machine_.attached() && connection_ != nullptr; }
  bool closing() const { return machine_.state() == AttachMachine::State::closing; }
  bool finished() const { return machine_.finished(); }
  bool held() const { return machine_.held(); }
  const std::shared_ptr<Connection>& connection() const { return connection_; }
  std::uint64_t session() const { return session_; }
  std::uint64_t id() const { return id_; }
  SteadyClock::time_point now() const { return network_->clock()->now(); }

 private:
  void apply(const Action& action);
  void lookUp(const Action& action);
  void create(std::uint64_t attempt, const BrokerAddress& address);
  void onCreated(std::uint64_t attempt, const std::shared_ptr<Connection>& connection,
                 std::uint64_t id, Response response);
  void retry(const Action& action);
  void finish(const Action& action);
  void forgetConnection();
  void sendClose(Connection& connection, std::uint64_t id, ResponseCallback done);

  Strand strand_;
  std::shared_ptr<Network> network_;
  AttachHooks& hooks_;
  std::string topic_;
  AttachMachine machine_;
  Timer timer_;
  std::shared_ptr<Connection> connection_;
  std::uint64_t session_ = 0;
  std::uint64_t id_ = 0;
  // The id of the latest create request: the handle being created, or once attached (attempts
  // run one at a time) the attached one.
  std::uint64_t latestId_ = 0;
  Callback<> attached_;
  std::vector<Callback<>> closeWaiters_;
};

}  // namespace reconsume::detail::pulsar
