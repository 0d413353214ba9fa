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

// After this many deliveries of an entry whose payload cannot be unpacked, it is discarded
// (acknowledged with the validation error, as the Java client does at once).
constexpr int kCorruptDeliveriesBeforeDiscard = 3;

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
  if (!attachment_.ready()) return;
  switch (frame.command.type()) {
    case proto::BaseCommand::MESSAGE:
      if (frame.command.message().consumer_id() != attachment_.id()) return;
      return handleMessage(frame);
    case proto::BaseCommand::CLOSE_CONSUMER:
    case proto::BaseCommand::TOPIC_MIGRATED:
      return attachment_.brokerClosed(
          Status(errc::connection_lost, "the broker closed " + describe()));
    case proto::BaseCommand::REACHED_END_OF_TOPIC:
      sink_->onEnded(spec_.topic,
                     Status(errc::broker_error, "topic " + spec_.topic +
                                                    " was terminated and all of it was delivered"));
      return;
    case proto::BaseCommand::ACTIVE_CONSUMER_CHANGE:
      network_->log.debug(
          describe() + " is " +
          (frame.command.active_consumer_change().is_active() ? "now" : "no longer") +
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
  protocol::EntryContext context{spec_.topic, partition_};
  auto status = protocol::unpackEntry(frame, context, entry);
  const std::pair key{static_cast<std::int64_t>(command.message_id().ledgerid()),
                      static_cast<std::int64_t>(command.message_id().entryid())};
  if (!status.ok()) {
    permits_.received(inEntry);
    if (discardCorrupt(key, status)) returnPermits(inEntry);
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
    auto data = std::make_shared<MessageData>(std::move(received.data));
    data->backendState = tracker;
    sink_->onMessage(std::move(data));
  }
  if (dropped > 0) returnPermits(dropped);
}

// An entry that cannot be unpacked. True when it is left behind (its permits may be returned);
// false when the session is dropped to get it from the broker again.
bool PulsarConsumer::discardCorrupt(const std::pair<std::int64_t, std::int64_t>& key,
                                    const Status& why) {
  if (why.code == errc::unsupported) {
    network_->log.error(describe() + ": " + why.message + "; left unacknowledged");
    return true;
  }
  if (++corruptDeliveries_[key] < kCorruptDeliveriesBeforeDiscard) {
    // Maybe damaged on the way: a new session gets it from the broker again.
    network_->log.warn(describe() + ": " + why.message + "; reconnecting to get it again");
    attachment_.connection()->drop(attachment_.session(), why);
    return false;
  }
  network_->log.error(describe() + ": " + why.message + " (delivered " +
                      std::to_string(kCorruptDeliveriesBeforeDiscard) +
                      " times); discarded as corrupt");
  corruptDeliveries_.erase(key);
  attachment_.connection()->send(attachment_.session(),
                                 protocol::encodeFrame(protocol::discardCorrupt(
                                     attachment_.id(), MessageId(key.first, key.second, partition_),
                                     proto::CommandAck::BatchDeSerializeError)));
  return true;
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
