#include "protocol/transaction_commands.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
#include <utility>

#include "protocol/command_body.hpp"
#include "protocol/server_error.hpp"

namespace reconsume::detail::protocol {
namespace {

using Type = proto::BaseCommand;
using google::protobuf::internal::WireFormatLite;

// Field numbers of `error`: 2 in CommandTcClientConnectResponse, 4 in the other answers.
constexpr int kTcConnectErrorField = 2;
constexpr int kErrorField = 4;

template <typename Command>
void setTxn(Command& command, const TxnId& txn) {
  command.set_txnid_most_bits(txn.mostBits);
  command.set_txnid_least_bits(txn.leastBits);
}

// The last varint stored for `field` among a message's unknown fields.
std::optional<std::uint64_t> unknownVarint(const std::string& unknown, int field) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(unknown.data()),
                                            static_cast<int>(unknown.size()));
  std::optional<std::uint64_t> found;
  for (std::uint32_t tag = in.ReadTag(); tag != 0; tag = in.ReadTag()) {
    if (WireFormatLite::GetTagFieldNumber(tag) == field &&
        WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_VARINT) {
      std::uint64_t value = 0;
      if (!in.ReadVarint64(&value)) break;
      found = value;
    } else if (!WireFormatLite::SkipField(&in, tag)) {
      break;
    }
  }
  return found;
}

// The error an answer carries. proto2 keeps an enum value it does not know among the unknown
// fields and reports has_error() false: without this look there, an error value newer than this
// library would pass for success.
template <typename Response>
std::optional<proto::ServerError> errorOf(const Response& response, int field) {
  if (response.has_error()) return response.error();
  if (auto value = unknownVarint(response.unknown_fields(), field)) {
    // An enum travels as the sign-extended int32; ServerError's underlying type is int.
    return static_cast<proto::ServerError>(static_cast<std::int32_t>(*value));
  }
  return std::nullopt;
}

template <typename Response>
std::optional<TxnId> txnOf(const Response& response) {
  if (!response.has_txnid_most_bits() && !response.has_txnid_least_bits()) return std::nullopt;
  return TxnId{response.txnid_most_bits(), response.txnid_least_bits()};
}

// "END_TXN request 7 for transaction (1,42)": the request the answer belongs to.
std::string describe(Type::Type type, std::uint64_t requestId, const std::optional<TxnId>& txn) {
  std::string name = Type::Type_Name(type);
  const auto suffix = name.rfind("_RESPONSE");
  if (suffix != std::string::npos) name.erase(suffix);
  std::string text = name + " request " + std::to_string(requestId);
  if (txn) text += " for transaction " + txn->toString();
  return text;
}

TxnResponse answer(Type::Type type, std::uint64_t requestId, std::optional<TxnId> txn = {}) {
  TxnResponse response;
  response.type = type;
  response.requestId = requestId;
  response.txn = txn;
  return response;
}

TxnResponse failed(TxnResponse response, std::string_view what, proto::ServerError error,
                   std::string_view brokerMessage) {
  const auto cause = serverError(error, brokerMessage);
  response.status = Status(cause.code, std::string(what) + ": " + cause.message);
  return response;
}

TxnResponse malformed(TxnResponse response, std::string_view what, std::string_view problem) {
  response.status = Status(errc::protocol_error, std::string(what) + ": " + std::string(problem));
  return response;
}

// ADD_PARTITION_TO_TXN, ADD_SUBSCRIPTION_TO_TXN and END_TXN answer alike.
template <typename Response>
TxnResponse decodeTxnAnswer(Type::Type type, const Response& response) {
  auto decoded = answer(type, response.request_id(), txnOf(response));
  const auto what = describe(type, decoded.requestId, decoded.txn);
  if (auto error = errorOf(response, kErrorField)) {
    return failed(std::move(decoded), what, *error, response.message());
  }
  return decoded;
}

}  // namespace

std::string coordinatorTopic(std::uint64_t tcId) {
  return std::string(kCoordinatorAssignTopic) + "-partition-" + std::to_string(tcId);
}

proto::BaseCommand tcClientConnect(std::uint64_t tcId, std::uint64_t requestId) {
  proto::BaseCommand command;
  command.set_type(Type::TC_CLIENT_CONNECT_REQUEST);
  auto& request = *command.mutable_tcclientconnectrequest();
  request.set_request_id(requestId);
  request.set_tc_id(tcId);
  return command;
}

proto::BaseCommand newTxn(std::uint64_t tcId, std::uint64_t requestId,
                          std::chrono::milliseconds ttl) {
  proto::BaseCommand command;
  command.set_type(Type::NEW_TXN);
  auto& request = *command.mutable_newtxn();
  request.set_request_id(requestId);
  request.set_txn_ttl_seconds(static_cast<std::uint64_t>(std::max<std::int64_t>(ttl.count(), 0)));
  request.set_tc_id(tcId);
  return command;
}

proto::BaseCommand addPartitionToTxn(const TxnId& txn, std::uint64_t requestId,
                                     std::span<const std::string> partitions) {
  proto::BaseCommand command;
  command.set_type(Type::ADD_PARTITION_TO_TXN);
  auto& request = *command.mutable_addpartitiontotxn();
  request.set_request_id(requestId);
  setTxn(request, txn);
  for (const auto& partition : partitions) request.add_partitions(partition);
  return command;
}

proto::BaseCommand addSubscriptionToTxn(const TxnId& txn, std::uint64_t requestId,
                                        std::span<const TxnSubscription> subscriptions) {
  proto::BaseCommand command;
  command.set_type(Type::ADD_SUBSCRIPTION_TO_TXN);
  auto& request = *command.mutable_addsubscriptiontotxn();
  request.set_request_id(requestId);
  setTxn(request, txn);
  for (const auto& [topic, subscription] : subscriptions) {
    auto& entry = *request.add_subscription();
    entry.set_topic(topic);
    entry.set_subscription(subscription);
  }
  return command;
}

proto::BaseCommand endTxn(const TxnId& txn, std::uint64_t requestId, proto::TxnAction action) {
  proto::BaseCommand command;
  command.set_type(Type::END_TXN);
  auto& request = *command.mutable_endtxn();
  request.set_request_id(requestId);
  setTxn(request, txn);
  request.set_txn_action(action);
  return command;
}

bool isTxnResponse(proto::BaseCommand::Type type) noexcept {
  switch (type) {
    case Type::TC_CLIENT_CONNECT_RESPONSE:
    case Type::NEW_TXN_RESPONSE:
    case Type::ADD_PARTITION_TO_TXN_RESPONSE:
    case Type::ADD_SUBSCRIPTION_TO_TXN_RESPONSE:
    case Type::END_TXN_RESPONSE:
    case Type::ACK_RESPONSE:
      return true;
    default:
      return false;
  }
}

TxnResponse decodeTxnResponse(const proto::CommandTcClientConnectResponse& response) {
  auto decoded = answer(Type::TC_CLIENT_CONNECT_RESPONSE, response.request_id());
  const auto what = describe(decoded.type, decoded.requestId, std::nullopt);
  if (auto error = errorOf(response, kTcConnectErrorField)) {
    return failed(std::move(decoded), what, *error, response.message());
  }
  return decoded;
}

TxnResponse decodeTxnResponse(const proto::CommandNewTxnResponse& response) {
  auto decoded = answer(Type::NEW_TXN_RESPONSE, response.request_id());
  auto what = describe(decoded.type, decoded.requestId, std::nullopt);
  if (auto error = errorOf(response, kErrorField)) {
    // A failed answer names the coordinator that refused in txnid_most_bits.
    if (response.has_txnid_most_bits()) {
      what += " to coordinator " + std::to_string(response.txnid_most_bits());
    }
    return failed(std::move(decoded), what, *error, response.message());
  }
  if (!response.has_txnid_most_bits() || !response.has_txnid_least_bits()) {
    return malformed(std::move(decoded), what, "the answer carries no transaction id");
  }
  decoded.txn = TxnId{response.txnid_most_bits(), response.txnid_least_bits()};
  return decoded;
}

TxnResponse decodeTxnResponse(const proto::CommandAddPartitionToTxnResponse& response) {
  return decodeTxnAnswer(Type::ADD_PARTITION_TO_TXN_RESPONSE, response);
}

TxnResponse decodeTxnResponse(const proto::CommandAddSubscriptionToTxnResponse& response) {
  return decodeTxnAnswer(Type::ADD_SUBSCRIPTION_TO_TXN_RESPONSE, response);
}

TxnResponse decodeTxnResponse(const proto::CommandEndTxnResponse& response) {
  auto decoded = decodeTxnAnswer(Type::END_TXN_RESPONSE, response);
  if (errorOf(response, kErrorField) == proto::InvalidTxnStatus) {
    decoded.ended = endedAccordingTo(response.message());
  }
  return decoded;
}

std::optional<proto::TxnAction> endedAccordingTo(std::string_view brokerMessage) {
  constexpr std::string_view kIsIn = "it is in ";
  const auto at = brokerMessage.rfind(kIsIn);
  if (at == std::string_view::npos) return std::nullopt;
  auto rest = brokerMessage.substr(at + kIsIn.size());
  auto status = rest.substr(0, rest.find(' '));
  if (status == "COMMITTED") return proto::COMMIT;
  if (status == "ABORTED") return proto::ABORT;
  return std::nullopt;
}

TxnResponse decodeTxnResponse(const proto::CommandAckResponse& response) {
  auto decoded = answer(Type::ACK_RESPONSE, response.request_id(), txnOf(response));
  auto what = describe(decoded.type, decoded.requestId, decoded.txn);
  what += " (consumer " + std::to_string(response.consumer_id()) + ")";
  // A broker answers an ACK only when it carried a request id, and echoes it.
  if (!response.has_request_id()) {
    return malformed(std::move(decoded), what, "the answer names no request");
  }
  if (auto error = errorOf(response, kErrorField)) {
    return failed(std::move(decoded), what, *error, response.message());
  }
  return decoded;
}

std::optional<TxnResponse> decodeTxnResponse(const proto::BaseCommand& command) {
  if (!command.has_type() || !isTxnResponse(command.type())) return std::nullopt;
  if (!hasBody(command)) {
    return malformed(answer(command.type(), 0), Type::Type_Name(command.type()),
                     "the command lacks its body");
  }
  switch (command.type()) {
    case Type::TC_CLIENT_CONNECT_RESPONSE:
      return decodeTxnResponse(command.tcclientconnectresponse());
    case Type::NEW_TXN_RESPONSE:
      return decodeTxnResponse(command.newtxnresponse());
    case Type::ADD_PARTITION_TO_TXN_RESPONSE:
      return decodeTxnResponse(command.addpartitiontotxnresponse());
    case Type::ADD_SUBSCRIPTION_TO_TXN_RESPONSE:
      return decodeTxnResponse(command.addsubscriptiontotxnresponse());
    case Type::END_TXN_RESPONSE:
      return decodeTxnResponse(command.endtxnresponse());
    default:
      return decodeTxnResponse(command.ackresponse());
  }
}

}  // namespace reconsume::detail::protocol
