// A consumer's incoming side: the frames the broker sends it, messages unpacked and handed to
// the sink (or dropped, returning their permits), and flow permits.
#include <boost/asio/post.hpp>

#include "protocol/commands.hpp"
#include "protocol/entry_unpacker.hpp"
#include "protocol/frame_encoder.hpp"
#include "pulsar/pulsar_consumer.hpp"

namespace reconsume::detail::pulsar {

namespace asio = boost::asio;

namespace {

std::uint32_t messagesInEntry(const protocol::Frame& frame) {
  return static_cast<std::uint32_t>(frame.metadata && frame.metadata->has_num_messages_in_batch()
                                        ? std::max(1, frame.metadata->num_messages_in_batch())
                                        : 1);
}

}  // namespace

void PulsarConsumer::onFrame(protocol::Frame frame) {
  asio::post(strand_, [self = shared_from_this(), frame = std::move(frame)]() mutable {
    self->handleFrame(frame);
  });
}

void PulsarConsumer::handleFrame(protocol::Frame& frame) {
  const auto& command = frame.command;
  // A close counts while the subscription is being made too (Attachment::closedByBroker).
  if (attachment_.closedByBroker(command)) return;
  if (!attachment_.ready()) return;
  switch (command.type()) {
    case proto::BaseCommand::MESSAGE:
      if (command.message().consumer_id() != attachment_.id()) return;
      return handleMessage(frame);
    case proto::BaseCommand::REACHED_END_OF_TOPIC:
      sink_->onEnded(spec_.topic,
                     Status(errc::broker_error, "topic " + spec_.topic +
                                                    " was terminated and all of it was delivered"));
      return;
    case proto::BaseCommand::ACTIVE_CONSUMER_CHANGE:
      network_->log.debug(describe() + " is " +
                          (command.active_consumer_change().is_active() ? "now" : "no longer") +
                          " the active consumer");
      return;
    default:
      return;
  }
}

void PulsarConsumer::handleMessage(protocol::Frame& frame) {
  const auto& command = frame.command.message();
  const auto inEntry = messagesInEntry(frame);
  if (attachment_.held() || (command.has_consumer_epoch() && command.consumer_epoch() < epoch_)) {
    // Sent before a seek or a redelivery of everything: it comes again where it belongs.
    permits_.received(inEntry);
    return returnPermits(inEntry);
  }
  protocol::UnpackedEntry entry;
  protocol::EntryContext context{topicName_, partition_};
  // The messages share the frame's payload (views into it): no copy per message.
  auto status = protocol::unpackEntry(std::move(frame), context, entry);
  const std::pair key{static_cast<std::int64_t>(command.message_id().ledgerid()),
                      static_cast<std::int64_t>(command.message_id().entryid())};
  if (!status.ok()) {
    permits_.received(inEntry);
    if (entry.corruption) {
      discardCorrupt(MessageId(key.first, key.second, partition_), *entry.corruption,
                     status.message);
    } else {
      // Encrypted or chunked: not for this client, left unacknowledged (SPEC.md section 5).
      network_->log.error(describe() + ": " + status.message + "; left unacknowledged");
    }
    returnPermits(inEntry);
    return;
  }
  permits_.received(static_cast<std::uint32_t>(entry.messages.size()) +
                    static_cast<std::uint32_t>(entry.skipped));
  std::uint32_t dropped = static_cast<std::uint32_t>(entry.skipped);
  std::shared_ptr<protocol::BatchAckTracker> tracker;
  if (entry.tracker) tracker = batches_.trackerFor(key, entry.tracker);
  for (auto& received : entry.messages) {
    const auto& id = received.data.id;
    if ((tracker && tracker->isAcknowledged(id.batchIndex())) ||
        (!spec_.durable && !position_.accept(id))) {
      ++dropped;
      continue;
    }
    auto& data = delivering_.emplace_back(std::make_shared<MessageData>(std::move(received.data)));
    data->backendState = tracker;
  }
  // All of the entry at once: the receive queue is locked once for them, not once each.
  if (!delivering_.empty()) sink_->onMessages(delivering_);
  delivering_.clear();
  if (dropped > 0) returnPermits(dropped);
}

void PulsarConsumer::onCorruptEntry(protocol::CorruptEntry entry) {
  asio::post(strand_, [self = shared_from_this(), entry = std::move(entry)] {
    if (!self->attachment_.ready() || entry.consumerId != self->attachment_.id()) return;
    // How many messages the entry held is unknown (its metadata is not to be trusted): one
    // permit back, as the Java client gives.
    self->permits_.received(1);
    self->discardCorrupt(MessageId(entry.id.ledger(), entry.id.entry(), self->partition_),
                         entry.reason, entry.why);
    self->returnPermits(1);
  });
}

// An entry that cannot be used, whatever is tried: acknowledged with the reason, so the broker
// neither redelivers it forever nor blocks the subscription on it (the Java client's choice), and
// reported. The session — the connection every consumer and producer on this broker shares —
// goes on.
void PulsarConsumer::discardCorrupt(const MessageId& entry,
                                    proto::CommandAck::ValidationError reason,
                                    const std::string& why) {
  network_->log.error(describe() + ": discarded damaged entry " + entry.toString() + " (" +
                      proto::CommandAck::ValidationError_Name(reason) + "): " + why);
  attachment_.connection()->send(
      attachment_.session(),
      protocol::encodeFrame(protocol::discardCorrupt(attachment_.id(), entry, reason)));
}

void PulsarConsumer::flow(std::uint32_t permits) {
  asio::post(strand_, [self = shared_from_this(), permits] {
    // Counted even while disconnected: a reader resuming grants what the broker held.
    self->returnPermits(permits);
  });
}

void PulsarConsumer::sendFlow(std::uint32_t permits) {
  if (permits == 0 || !attachment_.ready()) return;
  attachment_.connection()->send(attachment_.session(),
                                 protocol::encodeFrame(protocol::flow(attachment_.id(), permits)));
}

void PulsarConsumer::returnPermits(std::uint32_t permits) {
  permits_.granted(permits);
  sendFlow(permits);
}

}  // namespace reconsume::detail::pulsar
