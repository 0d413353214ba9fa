#include "pulsar/attachment.hpp"

#include <boost/asio/post.hpp>

namespace reconsume::detail::pulsar {

namespace asio = boost::asio;
using Kind = AttachMachine::Action::Kind;

Attachment::Attachment(const Strand& strand, std::shared_ptr<Network> network, AttachHooks& hooks,
                       std::string topic)
    : strand_(strand),
      network_(std::move(network)),
      hooks_(hooks),
      topic_(std::move(topic)),
      machine_(network_->operationTimeout(), Backoff(network_->options->backoff)),
      timer_(strand_, network_->clock()) {}

Attachment::~Attachment() {
  if (connection_ && !machine_.finished()) {
    connection_->detach(hooks_.kind(), id_);
    sendClose(*connection_, id_, [](Response) {});
  }
}

void Attachment::start(Callback<> attached) {
  if (machine_.finished()) return attached(Status(errc::closed, "the client is closed"));
  attached_ = std::move(attached);
  apply(machine_.start(now()));
}

void Attachment::apply(const Action& action) {
  switch (action.kind) {
    case Kind::none:
    case Kind::discard:   // only onCreated sees it
    case Kind::attached:  // only onCreated sees it
    case Kind::create:    // only lookUp's answer sees it
      return;
    case Kind::lookUp:
      return lookUp(action);
    case Kind::retry:
      return retry(action);
    case Kind::closeRemote:
      return hooks_.onClosing();
    case Kind::closed:
    case Kind::failed:
    case Kind::ended:
      return finish(action);
  }
}

void Attachment::lookUp(const Action& action) {
  network_->lookup->broker(
      topic_, action.timeout,
      [self = hooks_.self(), this, attempt = action.attempt](const Status& status,
                                                             BrokerAddress address) {
        asio::post(strand_, [self, this, attempt, status, address = std::move(address)] {
          auto next = machine_.lookedUp(attempt, status, now());
          if (next.kind == Kind::create) return create(next.attempt, address);
          apply(next);
        });
      });
}

void Attachment::create(std::uint64_t attempt, const BrokerAddress& address) {
  auto connection = network_->pool->get(address);
  auto id = hooks_.nextId();
  latestId_ = id;
  connection->attach(hooks_.kind(), id, hooks_.self());
  auto requestId = connection->newRequestId();
  connection->request(
      requestId, hooks_.createRequest(id, requestId), hooks_.createWhat(),
      [self = hooks_.self(), this, attempt, connection, id](Response response) {
        asio::post(strand_, [self, this, attempt, connection, id, response = std::move(response)] {
          onCreated(attempt, connection, id, std::move(response));
        });
      });
}

void Attachment::onCreated(std::uint64_t attempt, const std::shared_ptr<Connection>& connection,
                           std::uint64_t id, Response response) {
  auto action = machine_.created(attempt, response.status, now());
  if (action.kind == Kind::attached) {
    connection_ = connection;
    session_ = response.session;
    id_ = id;
    hooks_.onAttached(response, action.first);
    if (attached_) std::exchange(attached_, nullptr)({});
    return;
  }
  // A producer keeps its id across attempts: an answer for an older attempt on the connection
  // it is attached to now concerns the live producer, and is left alone.
  if (connection == connection_ && id == id_) return;
  connection->detach(hooks_.kind(), id);
  // Created but not used (an attempt given up meanwhile, or one the broker closed as it created
  // it): the broker may still hold it.
  if (response.status.ok()) sendClose(*connection, id, [](Response) {});
  apply(action);
}

void Attachment::retry(const Action& action) {
  if (connection_) hooks_.onDetached(action.status);
  if (action.closeCurrent && connection_) sendClose(*connection_, id_, [](Response) {});
  forgetConnection();
  if (machine_.everAttached()) {
    auto verb =
        hooks_.kind() == Connection::Kind::producer ? " reconnects in " : " subscribes again in ";
    network_->log.info(hooks_.describe() + verb + std::to_string(action.wait.count()) +
                       " ms: " + action.status.message);
  }
  timer_.expiresAfter(action.wait);
  // Weakly: a producer or consumer the application let go of while it waits to try again is not
  // kept alive by its own retries, which would go on for ever against a broker that is gone; it
  // is destroyed, and its destructor answers what it holds (a producer's sends: closed).
  timer_.asyncWait(
      [weak = std::weak_ptr<AttachHooks>(hooks_.self()), this](boost::system::error_code ec) {
        auto self = weak.lock();
        if (!ec && self) apply(machine_.timerFired(now()));
      });
}

void Attachment::sessionLost(std::uint64_t session, const Status& why) {
  if (session != session_ || !connection_) return;
  apply(machine_.sessionLost(why));
}

bool Attachment::closedByBroker(const proto::BaseCommand& command) {
  using T = proto::BaseCommand;
  std::uint64_t id = 0;
  std::string how;
  switch (command.type()) {
    case T::CLOSE_PRODUCER:
      id = command.close_producer().producer_id();
      break;
    case T::CLOSE_CONSUMER:
      id = command.close_consumer().consumer_id();
      break;
    case T::TOPIC_MIGRATED:
      id = command.topicmigrated().resource_id();
      how = ": topic migrated";
      break;
    default:
      return false;
  }
  if (id != latestId_) return true;
  apply(machine_.brokerClosed(
      Status(errc::connection_lost, "the broker closed " + hooks_.describe() + how)));
  return true;
}

void Attachment::close(Callback<> done) {
  if (machine_.finished()) return done({});
  closeWaiters_.push_back(std::move(done));
  apply(machine_.close());
}

void Attachment::closeRemote() {
  if (!closing() || !connection_) return;
  auto connection = connection_;
  forgetConnection();  // nothing more goes out; the answer finishes the close
  sendClose(*connection, id_, [self = hooks_.self(), this](Response) {
    asio::post(strand_, [self, this] { apply(machine_.closeAnswered()); });
  });
}

void Attachment::finish(const Action& action) {
  forgetConnection();
  timer_.cancel();
  if (attached_) {
    Status why = action.status;
    if (action.kind == Kind::failed) {
      why.message = hooks_.creationFailure() + ": " + why.message;
    } else if (why.ok()) {
      why = Status(errc::closed, hooks_.describe() + " is closed");
    }
    std::exchange(attached_, nullptr)(why);
  }
  hooks_.onFinished(action);
  for (auto& done : std::exchange(closeWaiters_, {})) done({});
}

void Attachment::forgetConnection() {
  if (!connection_) return;
  connection_->detach(hooks_.kind(), id_);
  connection_.reset();
}

void Attachment::sendClose(Connection& connection, std::uint64_t id, ResponseCallback done) {
  auto requestId = connection.newRequestId();
  connection.request(
      requestId, hooks_.closeRequest(id, requestId),
      (hooks_.kind() == Connection::Kind::producer ? "CLOSE_PRODUCER " : "CLOSE_CONSUMER ") +
          topic_,
      std::move(done));
}

}  // namespace reconsume::detail::pulsar
