// Builders for every command the client sends. Each returns the BaseCommand; encode it with
// encodeFrame() (frame_encoder.hpp). SEND goes through outgoing.hpp, which also builds the
// message metadata and compresses.
//
// Ids: request ids, producer ids and consumer ids are chosen by the caller (one counter per
// connection each); the broker echoes request ids in SUCCESS, ERROR and the *_RESPONSE commands.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "PulsarApi.pb.h"
#include "common/txn_id.hpp"
#include "reconsume/consumer_options.hpp"
#include "reconsume/message.hpp"

namespace reconsume::detail::protocol {

// Protocol v21: the newest at the time of writing. A broker answers with the lower of its own
// version and this one, so it is safe against older brokers.
inline constexpr int kProtocolVersion = 21;
inline constexpr std::string_view kClientVersion = "reconsume 0.1";

// ----- connection -----------------------------------------------------------------------------

struct ConnectRequest {
  std::string clientVersion{kClientVersion};
  int protocolVersion{kProtocolVersion};
  std::string authMethodName;    // empty: no authentication; "token" for token authentication
  std::string authData;          // the credentials, e.g. the token itself
  std::string proxyToBrokerUrl;  // through a Pulsar proxy: the broker to reach ("host:port")

  static ConnectRequest withToken(std::string token);
};
// Announces feature flags supports_auth_refresh and supports_broker_entry_metadata (both are
// handled: AUTH_CHALLENGE is answered with authResponse, broker entry metadata is parsed).
proto::BaseCommand connect(const ConnectRequest& request);
// The answer to AUTH_CHALLENGE (token refresh): the current credentials again.
proto::BaseCommand authResponse(std::string_view authMethodName, std::string_view authData,
                                int protocolVersion = kProtocolVersion);
proto::BaseCommand ping();
proto::BaseCommand pong();

// ----- lookup ---------------------------------------------------------------------------------

// `autoCreate` false: metadata_auto_creation_enabled = false (PIP-344): the broker creates no
// partitioned topic by being asked, and answers TopicNotFound for one that does not exist.
proto::BaseCommand partitionedMetadata(std::string_view topic, std::uint64_t requestId,
                                       bool autoCreate = true);
proto::BaseCommand lookup(std::string_view topic, std::uint64_t requestId,
                          bool authoritative = false, std::string_view listenerName = {});
proto::BaseCommand getTopicsOfNamespace(
    std::uint64_t requestId, std::string_view tenantSlashNamespace,
    proto::CommandGetTopicsOfNamespace::Mode mode = proto::CommandGetTopicsOfNamespace::PERSISTENT);

// ----- producing ------------------------------------------------------------------------------

struct ProducerRequest {
  std::string topic;
  std::uint64_t producerId{0};
  std::uint64_t requestId{0};
  std::string producerName;  // empty: the broker generates a unique one
  std::uint64_t epoch{0};    // raise by one at every reconnection of this producer
  proto::ProducerAccessMode accessMode{proto::Shared};
  std::optional<std::uint64_t> topicEpoch;  // from PRODUCER_SUCCESS, on reconnection
  std::string initialSubscriptionName;      // empty: none
  std::map<std::string, std::string> metadata;
  // producerName is the one the broker generated at the first PRODUCER_SUCCESS, sent again on a
  // reconnection so the producer keeps it; the broker may still replace it (not the user's own).
  bool nameFromBroker{false};
};
proto::BaseCommand producer(const ProducerRequest& request);
proto::BaseCommand closeProducer(std::uint64_t producerId, std::uint64_t requestId);

// ----- consuming ------------------------------------------------------------------------------

struct SubscribeRequest {
  std::string topic;  // one partition or a non-partitioned topic, full name
  std::string subscription;
  SubscriptionType type{SubscriptionType::shared};
  std::uint64_t consumerId{0};
  std::uint64_t requestId{0};
  std::string consumerName;
  InitialPosition initialPosition{InitialPosition::latest};
  bool durable{true};                       // false: a reader's non-durable cursor
  std::optional<MessageId> startMessageId;  // readers: where to start
  bool readCompacted{false};
  bool replicateSubscriptionState{false};
  bool forceTopicCreation{true};
  std::uint64_t startMessageRollbackDurationSec{0};
  std::optional<int> priorityLevel;
  std::optional<std::uint64_t> consumerEpoch;
  proto::KeySharedMode keySharedMode{proto::AUTO_SPLIT};  // Key_Shared only
  bool allowOutOfOrderDelivery{false};                    // Key_Shared only
  std::map<std::string, std::string> metadata;
  std::map<std::string, std::string> subscriptionProperties;
};
proto::BaseCommand subscribe(const SubscribeRequest& request);

proto::BaseCommand flow(std::uint64_t consumerId, std::uint32_t permits);

// Individual acknowledgement of one entry. With `ackSet` (bit set = still unacknowledged, see
// BatchAckTracker::ackSet()) only the cleared indexes of a batch entry are acknowledged; that
// needs acknowledgmentAtBatchIndexLevelEnabled on the broker, which otherwise acknowledges the
// whole entry. With `requestId` the broker confirms with ACK_RESPONSE.
proto::BaseCommand ack(std::uint64_t consumerId, const MessageId& id,
                       std::span<const std::int64_t> ackSet = {},
                       std::optional<std::uint64_t> requestId = {});
// Individual acknowledgement of several entries in one command (batch indexes are ignored: each
// id stands for its whole entry).
proto::BaseCommand ack(std::uint64_t consumerId, std::span<const MessageId> ids,
                       std::optional<std::uint64_t> requestId = {});
// The same where some ids are batch-index acknowledgements: `ackSets` is empty or holds one ack
// set per id (empty: the whole entry); a non-empty one acknowledges only the cleared indexes, as
// the single form says, and carries the id's batch size. Ids of one entry merge into one: an
// index acknowledged in any of them is acknowledged, and one without an ack set stands for all.
proto::BaseCommand ack(std::uint64_t consumerId, std::span<const MessageId> ids,
                       std::span<const std::vector<std::int64_t>> ackSets,
                       std::optional<std::uint64_t> requestId = {});
// Everything up to and including the entry of `id`.
proto::BaseCommand ackCumulative(std::uint64_t consumerId, const MessageId& id,
                                 std::optional<std::uint64_t> requestId = {});
// The same inside transaction `txn`: the acknowledgement takes effect when the transaction
// commits and is dropped when it aborts. The request id is required because Pulsar reports a
// conflict (another transaction holds the message: TransactionConflict) only in the ACK_RESPONSE.
// Register the subscription first (addSubscriptionToTxn, transaction_commands.hpp).
proto::BaseCommand ack(std::uint64_t consumerId, const TxnId& txn, std::uint64_t requestId,
                       const MessageId& id, std::span<const std::int64_t> ackSet = {});
proto::BaseCommand ack(std::uint64_t consumerId, const TxnId& txn, std::uint64_t requestId,
                       std::span<const MessageId> ids);
proto::BaseCommand ackCumulative(std::uint64_t consumerId, const TxnId& txn,
                                 std::uint64_t requestId, const MessageId& id);
// Acknowledges an entry the consumer could not use, telling the broker why (what the Java client
// does with a corrupt message). It is then gone for this subscription.
proto::BaseCommand discardCorrupt(std::uint64_t consumerId, const MessageId& id,
                                  proto::CommandAck::ValidationError reason);

// Redelivers these entries (batch indexes collapse to their entry; each entry is named once), or
// every unacknowledged message when `ids` is empty.
proto::BaseCommand redeliver(std::uint64_t consumerId, std::span<const MessageId> ids = {},
                             std::optional<std::uint64_t> consumerEpoch = {});

// Moves the subscription to `id`. For a message of a batch with a known batch size, the indexes
// before it are marked acknowledged so delivery resumes at that message (as the Java client does).
proto::BaseCommand seek(std::uint64_t consumerId, std::uint64_t requestId, const MessageId& id);
proto::BaseCommand seekToTime(std::uint64_t consumerId, std::uint64_t requestId,
                              std::uint64_t publishTimeMs);

proto::BaseCommand getLastMessageId(std::uint64_t consumerId, std::uint64_t requestId);
proto::BaseCommand unsubscribe(std::uint64_t consumerId, std::uint64_t requestId,
                               bool force = false);
proto::BaseCommand closeConsumer(std::uint64_t consumerId, std::uint64_t requestId);

}  // namespace reconsume::detail::protocol
