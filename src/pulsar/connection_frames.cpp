// What a session reads, routed: answers to the pending requests, frames to the listener of
// their producer or consumer id, PING and AUTH_CHALLENGE answered on the spot.
#include <boost/asio/post.hpp>

#include "protocol/commands.hpp"
#include "protocol/frame_encoder.hpp"
#include "protocol/server_error.hpp"
#include "protocol/transaction_commands.hpp"
#include "pulsar/connection.hpp"
#include "pulsar/connection_session.hpp"

namespace reconsume::detail::pulsar {

namespace asio = boost::asio;

// ----- frames in --------------------------------------------------------------------------------

void Connection::dispatch(Session& session, protocol::Frame frame) {
  using T = proto::BaseCommand;
  auto& command = frame.command;
  // Ids are read before the command is moved on (argument order is unspecified).
  auto answer = [&](std::uint64_t requestId, Status status) {
    complete(session, requestId, std::move(status), std::move(command));
  };
  auto failedIf = [](bool failed, proto::ServerError error, const std::string& message) {
    return failed ? protocol::serverError(error, message) : Status{};
  };
  switch (command.type()) {
    case T::PING:
      write(session, protocol::encodeFrame(protocol::pong()));
      return;
    case T::PONG:
      return;
    case T::SUCCESS:
      return answer(command.success().request_id(), {});
    case T::ERROR:
      return answer(command.error().request_id(),
                    protocol::serverError(command.error().error(), command.error().message()));
    case T::PRODUCER_SUCCESS:
      // Not ready yet: queued for exclusive access; a second PRODUCER_SUCCESS follows.
      if (!command.producer_success().producer_ready()) return;
      return answer(command.producer_success().request_id(), {});
    case T::LOOKUP_RESPONSE: {
      const auto& response = command.lookuptopicresponse();
      return answer(response.request_id(),
                    failedIf(response.response() == proto::CommandLookupTopicResponse::Failed,
                             response.error(), response.message()));
    }
    case T::PARTITIONED_METADATA_RESPONSE: {
      const auto& response = command.partitionmetadataresponse();
      return answer(
          response.request_id(),
          failedIf(response.response() == proto::CommandPartitionedTopicMetadataResponse::Failed,
                   response.error(), response.message()));
    }
    case T::GET_LAST_MESSAGE_ID_RESPONSE:
      return answer(command.getlastmessageidresponse().request_id(), {});
    case T::GET_TOPICS_OF_NAMESPACE_RESPONSE:
      return answer(command.gettopicsofnamespaceresponse().request_id(), {});
    case T::ACK_RESPONSE:
    case T::TC_CLIENT_CONNECT_RESPONSE:
    case T::NEW_TXN_RESPONSE:
    case T::ADD_PARTITION_TO_TXN_RESPONSE:
    case T::ADD_SUBSCRIPTION_TO_TXN_RESPONSE:
    case T::END_TXN_RESPONSE: {
      // The transaction layer's decoder also catches an error value newer than this library,
      // which proto2 would otherwise let pass for success.
      auto decoded = protocol::decodeTxnResponse(command);
      return answer(decoded->requestId, std::move(decoded->status));
    }
    case T::SEND_RECEIPT:
      return route(Kind::producer, command.send_receipt().producer_id(), frame);
    case T::SEND_ERROR:
      return route(Kind::producer, command.send_error().producer_id(), frame);
    case T::CLOSE_PRODUCER:
      return route(Kind::producer, command.close_producer().producer_id(), frame);
    case T::MESSAGE:
      return route(Kind::consumer, command.message().consumer_id(), frame);
    case T::ACTIVE_CONSUMER_CHANGE:
      return route(Kind::consumer, command.active_consumer_change().consumer_id(), frame);
    case T::REACHED_END_OF_TOPIC:
      return route(Kind::consumer, command.reachedendoftopic().consumer_id(), frame);
    case T::CLOSE_CONSUMER:
      return route(Kind::consumer, command.close_consumer().consumer_id(), frame);
    case T::TOPIC_MIGRATED: {
      auto kind = command.topicmigrated().resource_type() == proto::CommandTopicMigrated::Producer
                      ? Kind::producer
                      : Kind::consumer;
      return route(kind, command.topicmigrated().resource_id(), frame);
    }
    case T::AUTH_CHALLENGE: {
      // The broker wants the credentials again (an expiring token): read them afresh.
      std::string out;
      auto status = Handshake::answerChallenge(options_->credentials,
                                               command.authchallenge().protocol_version(), out);
      if (!status.ok()) {
        options_->log.error("cannot answer the authentication challenge of " + describe() + ": " +
                            status.message);
        return;
      }
      write(session, out);
      return;
    }
    default:
      options_->log.debug("ignored " + T::Type_Name(command.type()) + " from " + describe());
      return;
  }
}

void Connection::complete(Session& session, std::uint64_t requestId, Status status,
                          proto::BaseCommand command) {
  auto callback = pending_.take(requestId);
  if (!callback) return;  // timed out before, or not ours
  armRequestTimer();
  Response response;
  response.status = std::move(status);
  response.command = std::move(command);
  response.session = session.id;
  (*callback)(std::move(response));
}

bool Connection::routeCorrupt(const protocol::DecodeError& error) {
  auto entry = protocol::corruptEntryOf(error);
  if (!entry) return false;
  auto found = listeners_.find({Kind::consumer, entry->consumerId});
  auto listener = found == listeners_.end() ? nullptr : found->second.lock();
  if (!listener) {
    // Its consumer is gone (closed meanwhile): the entry is moot, as any frame for it.
    options_->log.warn("damaged entry " + entry->id.toString() + " from " + describe() +
                       " for consumer " + std::to_string(entry->consumerId) +
                       ", which is gone: " + entry->why);
    return true;
  }
  listener->onCorruptEntry(std::move(*entry));
  return true;
}

void Connection::route(Kind kind, std::uint64_t id, protocol::Frame& frame) {
  auto found = listeners_.find({kind, id});
  if (found == listeners_.end()) return;  // closed meanwhile: frames for it are moot
  auto listener = found->second.lock();
  if (!listener) {
    listeners_.erase(found);
    return;
  }
  listener->onFrame(std::move(frame));
}

}  // namespace reconsume::detail::pulsar
