// Pulsar's transaction protocol, client side: the commands that open a transaction at its
// coordinator, register what it touches and end it, and what the coordinator's answers mean.
// SEND and ACK inside a transaction are built by outgoing.hpp (encodeSend with a TxnId) and
// commands.hpp (ack/ackCumulative with a TxnId).
//
// A transaction on the wire, in outline:
//   1. PARTITIONED_METADATA of kCoordinatorAssignTopic: N partitions, one per coordinator.
//   2. For each coordinator c: LOOKUP coordinatorTopic(c), then on that broker
//      tcClientConnect(c, ...) (protocol v19 and later; older brokers load coordinators by
//      themselves).
//   3. newTxn() to any coordinator; its answer carries the TxnId, whose coordinator is
//      coordinatorForTxn(txn): every later request for the transaction goes to that one.
//   4. addPartitionToTxn() before the first SEND to a partition, addSubscriptionToTxn() before the
//      first ACK on a subscription.
//   5. SEND and ACK carrying the TxnId; give the ACK a request id: conflicts come back only in
//      its ACK_RESPONSE.
//   6. endTxn() with COMMIT or ABORT.
//
// Errors. decodeTxnResponse() reports a failed answer as a Status whose errc comes from
// server_error.hpp's toErrc(), and whose text names the command, the request id and the
// transaction (or coordinator), then the broker's error and message:
//   unavailable (retryable)  TransactionCoordinatorNotFound, ServiceNotReady, TooManyRequests,
//                            MetadataError, PersistenceError: try again, after looking the
//                            coordinator's topic up afresh (the coordinator may have moved)
//   transaction_conflict     TransactionConflict: another transaction holds the message
//   transaction_not_found    TransactionNotFound, InvalidTxnStatus: the transaction timed out,
//                            was aborted or has ended; begin a new one
//   protocol_error           an answer the protocol does not allow (a successful NEW_TXN_RESPONSE
//                            without an id, a response without its body, an ACK_RESPONSE
//                            without a request id)
//   broker_error, ...        the rest, e.g. NotAllowedError; also an error value this library
//                            does not know ("ServerError 77"), which never passes for success
// A broker whose transactions are disabled answers every request here with a plain ERROR
// (NotAllowedError, "Transactions are not enabled."): serverError() handles that one. An END_TXN
// sent again after its answer was lost may get TransactionNotFound although the first one took
// effect: the coordinator forgets a transaction once it has ended. Just before it forgets, it
// answers InvalidTxnStatus "... but it is in COMMITTED status": TxnResponse::ended says so.
//
// Thread safety: pure functions.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "PulsarApi.pb.h"
#include "common/status.hpp"
#include "common/txn_id.hpp"

namespace reconsume::detail::protocol {

// ----- coordinators ---------------------------------------------------------------------------

// The partitioned topic whose partition N locates coordinator N: the broker that owns the
// partition serves the coordinator.
inline constexpr std::string_view kCoordinatorAssignTopic =
    "persistent://pulsar/system/transaction_coordinator_assign";

// "persistent://pulsar/system/transaction_coordinator_assign-partition-<tcId>".
std::string coordinatorTopic(std::uint64_t tcId);

// The coordinator that opened `txn` and alone knows it.
constexpr std::uint64_t coordinatorForTxn(const TxnId& txn) noexcept {
  return txn.mostBits;
}

// ----- requests -------------------------------------------------------------------------------

proto::BaseCommand tcClientConnect(std::uint64_t tcId, std::uint64_t requestId);

// `ttl`: how long the coordinator keeps the transaction open before aborting it. It goes out in
// milliseconds although the field is named txn_ttl_seconds: brokers read it as milliseconds and
// the Java client sends milliseconds. A negative ttl goes out as 0.
proto::BaseCommand newTxn(std::uint64_t tcId, std::uint64_t requestId,
                          std::chrono::milliseconds ttl);

// `partitions`: full names of the partitions (or non-partitioned topics) the transaction
// produces to.
proto::BaseCommand addPartitionToTxn(const TxnId& txn, std::uint64_t requestId,
                                     std::span<const std::string> partitions);

struct TxnSubscription {
  std::string topic;  // full name of the partition or non-partitioned topic
  std::string subscription;
};
proto::BaseCommand addSubscriptionToTxn(const TxnId& txn, std::uint64_t requestId,
                                        std::span<const TxnSubscription> subscriptions);

// `action`: proto::COMMIT or proto::ABORT; it is always written, COMMIT (0) included.
proto::BaseCommand endTxn(const TxnId& txn, std::uint64_t requestId, proto::TxnAction action);

// ----- answers --------------------------------------------------------------------------------

struct TxnResponse {
  proto::BaseCommand::Type type{proto::BaseCommand::NEW_TXN_RESPONSE};  // which answer
  std::uint64_t requestId{0};
  // The transaction the answer names. For a successful NEW_TXN_RESPONSE: the new transaction,
  // always set. Unset for TC_CLIENT_CONNECT_RESPONSE, a failed NEW_TXN_RESPONSE, and an
  // ACK_RESPONSE outside a transaction.
  std::optional<TxnId> txn;
  reconsume::detail::Status status;  // ok, or why not (the table above)
  // A failed END_TXN_RESPONSE whose InvalidTxnStatus says the transaction is committed or
  // aborted already (an earlier END_TXN ended it): how it ended. Unset otherwise, and for a
  // transaction still being ended (COMMITTING, ABORTING).
  std::optional<proto::TxnAction> ended;

  bool ok() const { return status.ok(); }
};

// TC_CLIENT_CONNECT_RESPONSE, NEW_TXN_RESPONSE, ADD_PARTITION_TO_TXN_RESPONSE,
// ADD_SUBSCRIPTION_TO_TXN_RESPONSE, END_TXN_RESPONSE and ACK_RESPONSE.
bool isTxnResponse(proto::BaseCommand::Type type) noexcept;

// Any command: nullopt unless isTxnResponse(command.type()). Total: whatever the command holds,
// the answer is a TxnResponse whose status says what was wrong with it.
std::optional<TxnResponse> decodeTxnResponse(const proto::BaseCommand& command);

// How the transaction has ended according to the message of an InvalidTxnStatus answer (Pulsar's
// coordinator writes "Expect Txn `(0,7)` to be in COMMITTING status but it is in COMMITTED
// status"; the last status named is the transaction's): COMMIT for COMMITTED, ABORT for ABORTED,
// nullopt for any other status or text.
std::optional<proto::TxnAction> endedAccordingTo(std::string_view brokerMessage);

// The same for one response body each.
TxnResponse decodeTxnResponse(const proto::CommandTcClientConnectResponse& response);
TxnResponse decodeTxnResponse(const proto::CommandNewTxnResponse& response);
TxnResponse decodeTxnResponse(const proto::CommandAddPartitionToTxnResponse& response);
TxnResponse decodeTxnResponse(const proto::CommandAddSubscriptionToTxnResponse& response);
TxnResponse decodeTxnResponse(const proto::CommandEndTxnResponse& response);
TxnResponse decodeTxnResponse(const proto::CommandAckResponse& response);

}  // namespace reconsume::detail::protocol
