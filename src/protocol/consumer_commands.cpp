// Builders for the consumer's commands (declared in commands.hpp).
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "protocol/commands.hpp"
#include "protocol/message_id.hpp"

namespace reconsume::detail::protocol {
namespace {

proto::CommandSubscribe::SubType toSubType(SubscriptionType type) {
  switch (type) {
    case SubscriptionType::exclusive:
      return proto::CommandSubscribe::Exclusive;
    case SubscriptionType::shared:
      return proto::CommandSubscribe::Shared;
    case SubscriptionType::failover:
      return proto::CommandSubscribe::Failover;
    case SubscriptionType::keyShared:
      return proto::CommandSubscribe::Key_Shared;
  }
  return proto::CommandSubscribe::Shared;
}

void addPairs(google::protobuf::RepeatedPtrField<proto::KeyValue>& out,
              const std::map<std::string, std::string>& pairs) {
  for (const auto& [key, value] : pairs) {
    auto& entry = *out.Add();
    entry.set_key(key);
    entry.set_value(value);
  }
}

proto::BaseCommand ackCommand(std::uint64_t consumerId, proto::CommandAck::AckType type,
                              std::optional<std::uint64_t> requestId) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::ACK);
  auto& ack = *command.mutable_ack();
  ack.set_consumer_id(consumerId);
  ack.set_ack_type(type);
  if (requestId) ack.set_request_id(*requestId);
  return command;
}

proto::BaseCommand inTransaction(proto::BaseCommand command, const TxnId& txn) {
  command.mutable_ack()->set_txnid_most_bits(txn.mostBits);
  command.mutable_ack()->set_txnid_least_bits(txn.leastBits);
  return command;
}

}  // namespace

proto::BaseCommand subscribe(const SubscribeRequest& request) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::SUBSCRIBE);
  auto& subscribe = *command.mutable_subscribe();
  subscribe.set_topic(request.topic);
  subscribe.set_subscription(request.subscription);
  subscribe.set_subtype(toSubType(request.type));
  subscribe.set_consumer_id(request.consumerId);
  subscribe.set_request_id(request.requestId);
  if (!request.consumerName.empty()) subscribe.set_consumer_name(request.consumerName);
  if (request.priorityLevel) subscribe.set_priority_level(*request.priorityLevel);
  subscribe.set_durable(request.durable);
  if (request.startMessageId) {
    *subscribe.mutable_start_message_id() = toMessageIdData(*request.startMessageId);
  }
  addPairs(*subscribe.mutable_metadata(), request.metadata);
  subscribe.set_read_compacted(request.readCompacted);
  subscribe.set_initialposition(request.initialPosition == InitialPosition::earliest
                                    ? proto::CommandSubscribe::Earliest
                                    : proto::CommandSubscribe::Latest);
  subscribe.set_replicate_subscription_state(request.replicateSubscriptionState);
  subscribe.set_force_topic_creation(request.forceTopicCreation);
  if (request.startMessageRollbackDurationSec > 0) {
    subscribe.set_start_message_rollback_duration_sec(request.startMessageRollbackDurationSec);
  }
  if (request.type == SubscriptionType::keyShared) {
    auto& meta = *subscribe.mutable_keysharedmeta();
    meta.set_keysharedmode(request.keySharedMode);
    meta.set_allowoutoforderdelivery(request.allowOutOfOrderDelivery);
  }
  addPairs(*subscribe.mutable_subscription_properties(), request.subscriptionProperties);
  if (request.consumerEpoch) subscribe.set_consumer_epoch(*request.consumerEpoch);
  return command;
}

proto::BaseCommand flow(std::uint64_t consumerId, std::uint32_t permits) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::FLOW);
  auto& flow = *command.mutable_flow();
  flow.set_consumer_id(consumerId);
  flow.set_messagepermits(permits);
  return command;
}

proto::BaseCommand ack(std::uint64_t consumerId, const MessageId& id,
                       std::span<const std::int64_t> ackSet,
                       std::optional<std::uint64_t> requestId) {
  auto command = ackCommand(consumerId, proto::CommandAck::Individual, requestId);
  auto& data = *command.mutable_ack()->add_message_id();
  data = entryIdData(id);
  for (std::int64_t word : ackSet) data.add_ack_set(word);
  return command;
}

proto::BaseCommand ack(std::uint64_t consumerId, std::span<const MessageId> ids,
                       std::optional<std::uint64_t> requestId) {
  return ack(consumerId, ids, {}, requestId);
}

proto::BaseCommand ack(std::uint64_t consumerId, std::span<const MessageId> ids,
                       std::span<const std::vector<std::int64_t>> ackSets,
                       std::optional<std::uint64_t> requestId) {
  auto command = ackCommand(consumerId, proto::CommandAck::Individual, requestId);
  auto& entries = *command.mutable_ack()->mutable_message_id();
  // Where each entry's MessageIdData is in the command.
  std::map<std::pair<std::int64_t, std::int64_t>, int> at;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto& id = ids[i];
    static const std::vector<std::int64_t> kWholeEntry;
    const auto& ackSet = i < ackSets.size() ? ackSets[i] : kWholeEntry;
    auto [slot, added] = at.emplace(std::pair{id.ledger(), id.entry()}, entries.size());
    if (added) {
      auto& data = *entries.Add() = entryIdData(id);
      if (!ackSet.empty()) {
        for (std::int64_t word : ackSet) data.add_ack_set(word);
        if (id.batchSize() > 0) data.set_batch_size(id.batchSize());
      }
      continue;
    }
    auto& data = entries[slot->second];
    if (data.ack_set_size() == 0) continue;  // the whole entry already
    if (ackSet.empty()) {
      data.clear_ack_set();
      data.clear_batch_size();
      continue;
    }
    // A clear bit is an acknowledged index: the merge keeps a bit set only where both are.
    for (int word = 0; word < data.ack_set_size(); ++word) {
      const auto w = static_cast<std::size_t>(word);
      data.set_ack_set(word, w < ackSet.size() ? data.ack_set(word) & ackSet[w] : 0);
    }
  }
  return command;
}

proto::BaseCommand ackCumulative(std::uint64_t consumerId, const MessageId& id,
                                 std::optional<std::uint64_t> requestId) {
  auto command = ackCommand(consumerId, proto::CommandAck::Cumulative, requestId);
  *command.mutable_ack()->add_message_id() = entryIdData(id);
  return command;
}

proto::BaseCommand ack(std::uint64_t consumerId, const TxnId& txn, std::uint64_t requestId,
                       const MessageId& id, std::span<const std::int64_t> ackSet) {
  return inTransaction(ack(consumerId, id, ackSet, requestId), txn);
}

proto::BaseCommand ack(std::uint64_t consumerId, const TxnId& txn, std::uint64_t requestId,
                       std::span<const MessageId> ids) {
  return inTransaction(ack(consumerId, ids, requestId), txn);
}

proto::BaseCommand ackCumulative(std::uint64_t consumerId, const TxnId& txn,
                                 std::uint64_t requestId, const MessageId& id) {
  return inTransaction(ackCumulative(consumerId, id, requestId), txn);
}

proto::BaseCommand discardCorrupt(std::uint64_t consumerId, const MessageId& id,
                                  proto::CommandAck::ValidationError reason) {
  auto command = ackCommand(consumerId, proto::CommandAck::Individual, std::nullopt);
  *command.mutable_ack()->add_message_id() = entryIdData(id);
  command.mutable_ack()->set_validation_error(reason);
  return command;
}

proto::BaseCommand redeliver(std::uint64_t consumerId, std::span<const MessageId> ids,
                             std::optional<std::uint64_t> consumerEpoch) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::REDELIVER_UNACKNOWLEDGED_MESSAGES);
  auto& redeliver = *command.mutable_redeliverunacknowledgedmessages();
  redeliver.set_consumer_id(consumerId);
  std::set<std::pair<std::int64_t, std::int64_t>> seen;
  for (const auto& id : ids) {
    if (seen.emplace(id.ledger(), id.entry()).second) {
      *redeliver.add_message_ids() = entryIdData(id);
    }
  }
  if (consumerEpoch) redeliver.set_consumer_epoch(*consumerEpoch);
  return command;
}

proto::BaseCommand seek(std::uint64_t consumerId, std::uint64_t requestId, const MessageId& id) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::SEEK);
  auto& seek = *command.mutable_seek();
  seek.set_consumer_id(consumerId);
  seek.set_request_id(requestId);
  auto& data = *seek.mutable_message_id();
  data = entryIdData(id);
  if (id.batchIndex() > 0 && id.batchSize() > 0) {
    // Indexes [0, batchIndex) count as acknowledged (bit clear), the rest are delivered.
    std::vector<std::int64_t> words((static_cast<std::size_t>(id.batchSize()) + 63) / 64, 0);
    for (int index = id.batchIndex(); index < id.batchSize(); ++index) {
      words[static_cast<std::size_t>(index) / 64] |= std::int64_t{1} << (index % 64);
    }
    for (std::int64_t word : words) data.add_ack_set(word);
  }
  return command;
}

proto::BaseCommand seekToTime(std::uint64_t consumerId, std::uint64_t requestId,
                              std::uint64_t publishTimeMs) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::SEEK);
  auto& seek = *command.mutable_seek();
  seek.set_consumer_id(consumerId);
  seek.set_request_id(requestId);
  seek.set_message_publish_time(publishTimeMs);
  return command;
}

proto::BaseCommand getLastMessageId(std::uint64_t consumerId, std::uint64_t requestId) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::GET_LAST_MESSAGE_ID);
  auto& request = *command.mutable_getlastmessageid();
  request.set_consumer_id(consumerId);
  request.set_request_id(requestId);
  return command;
}

proto::BaseCommand unsubscribe(std::uint64_t consumerId, std::uint64_t requestId, bool force) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::UNSUBSCRIBE);
  auto& request = *command.mutable_unsubscribe();
  request.set_consumer_id(consumerId);
  request.set_request_id(requestId);
  if (force) request.set_force(true);
  return command;
}

proto::BaseCommand closeConsumer(std::uint64_t consumerId, std::uint64_t requestId) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::CLOSE_CONSUMER);
  auto& close = *command.mutable_close_consumer();
  close.set_consumer_id(consumerId);
  close.set_request_id(requestId);
  return command;
}

}  // namespace reconsume::detail::protocol
