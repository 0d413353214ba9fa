// What the transaction coordinator's answers (and ACK_RESPONSE) mean: frames written byte by
// byte, through the frame decoder, into decodeTxnResponse(). Byte derivations as in
// protocol_transaction_test.cpp.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "protocol/frame_decoder.hpp"
#include "protocol/frame_encoder.hpp"
#include "protocol/server_error.hpp"
#include "protocol/transaction_commands.hpp"
#include "protocol_test_util.hpp"

namespace reconsume::detail::protocol {
namespace {

using test::bytes;
using Type = proto::BaseCommand;

TxnResponse decodeFrame(const std::string& frame) {
  FrameDecoder decoder;
  decoder.feed(frame);
  auto result = decoder.next();
  if (!result.hasFrame()) {
    ADD_FAILURE() << (result.hasError() ? result.error().message : "needs more");
    return {};
  }
  auto response = decodeTxnResponse(result.frame().command);
  if (!response) {
    ADD_FAILURE() << "not a transaction response";
    return {};
  }
  return *response;
}

// BaseCommand: 08 33 (type 51) | 9a 03 (field 51: 410) 06 [08 07 (request 7) 10 2a (least 42)
// 18 01 (most 1)] = 11 bytes; totalSize 15.
TEST(TxnResponses, NewTxnResponseGivesTheTransaction) {
  const auto response = decodeFrame(bytes("0000000f 0000000b 0833 9a0306 0807 102a 1801"));
  EXPECT_TRUE(response.ok()) << response.status.message;
  EXPECT_EQ(response.type, Type::NEW_TXN_RESPONSE);
  EXPECT_EQ(response.requestId, 7u);
  ASSERT_TRUE(response.txn.has_value());
  EXPECT_EQ(*response.txn, (TxnId{1, 42}));
  EXPECT_EQ(coordinatorForTxn(*response.txn), 1u);
}

// The first transaction of coordinator 0 is (0,0): present, though both halves are zero.
TEST(TxnResponses, TheZeroTransactionIsATransaction) {
  const auto response = decodeFrame(bytes("0000000f 0000000b 0833 9a0306 0807 1000 1800"));
  EXPECT_TRUE(response.ok()) << response.status.message;
  EXPECT_EQ(response.txn, (TxnId{0, 0}));
}

// The failed answer names the coordinator in most bits: 08 07 | 18 03 | 20 14 (error 20) |
// 2a 01 'x' (message).
TEST(TxnResponses, NewTxnFailureNamesTheCoordinatorAndIsRetryable) {
  const auto response = decodeFrame(bytes("00000012 0000000e 0833 9a0309 0807 1803 2014 2a0178"));
  EXPECT_FALSE(response.ok());
  EXPECT_FALSE(response.txn.has_value());
  EXPECT_EQ(response.status.code, errc::unavailable);
  EXPECT_TRUE(isRetryable(response.status.code));
  EXPECT_EQ(response.status.message,
            "NEW_TXN request 7 to coordinator 3: broker error TransactionCoordinatorNotFound: x");
}

TEST(TxnResponses, NewTxnSuccessWithoutAnIdBreaksTheProtocol) {
  auto response = decodeFrame(bytes("0000000b 00000007 0833 9a0302 0807"));
  EXPECT_EQ(response.status.code, errc::protocol_error);
  EXPECT_EQ(response.status.message, "NEW_TXN request 7: the answer carries no transaction id");
  EXPECT_FALSE(response.txn.has_value());

  proto::CommandNewTxnResponse half;  // least bits only
  half.set_request_id(8);
  half.set_txnid_least_bits(4);
  EXPECT_EQ(decodeTxnResponse(half).status.code, errc::protocol_error);
}

// BaseCommand: 08 3f (type 63) | fa 03 (field 63: 506) 02 [08 05]; the failure adds
// 10 14 (error, field 2 here) 1a 01 'x'.
TEST(TxnResponses, TcClientConnect) {
  auto response = decodeFrame(bytes("0000000b 00000007 083f fa0302 0805"));
  EXPECT_TRUE(response.ok()) << response.status.message;
  EXPECT_EQ(response.requestId, 5u);
  EXPECT_FALSE(response.txn.has_value());

  response = decodeFrame(bytes("00000010 0000000c 083f fa0307 0805 1014 1a0178"));
  EXPECT_EQ(response.status.code, errc::unavailable);
  EXPECT_EQ(response.status.message,
            "TC_CLIENT_CONNECT request 5: broker error TransactionCoordinatorNotFound: x");
}

// 08 39 (type 57) | ca 03 (field 57: 458) 08 [08 09 10 2a 18 01 20 4d (error 77)]. proto2 files
// an enum value it does not know among the unknown fields; it must still count as a failure.
TEST(TxnResponses, AnErrorValueNewerThanThisLibraryIsStillAFailure) {
  const auto response = decodeFrame(bytes("00000011 0000000d 0839 ca0308 0809 102a 1801 204d"));
  EXPECT_FALSE(response.ok());
  EXPECT_EQ(response.status.code, errc::broker_error);
  EXPECT_EQ(response.status.message,
            "END_TXN request 9 for transaction (1,42): broker error "
            "ServerError 77");
}

// CommandAckResponse: 08 03 (consumer) 10 2a 18 01 (transaction) 20 17 (error 23) 2a 01 'x'
// 30 63 (request 99, field 6) = 13 bytes; BaseCommand 08 26 | b2 02 (field 38: 306) 0d [...].
TEST(TxnResponses, AckConflictIsTransactionConflict) {
  const auto response =
      decodeFrame(bytes("00000016 00000012 0826 b2020d 0803 102a 1801 2017 2a0178 3063"));
  EXPECT_EQ(response.type, Type::ACK_RESPONSE);
  EXPECT_EQ(response.status.code, errc::transaction_conflict);
  EXPECT_FALSE(isRetryable(response.status.code));
  EXPECT_EQ(response.txn, (TxnId{1, 42}));
  EXPECT_EQ(response.status.message,
            "ACK request 99 for transaction (1,42) (consumer 3): broker error "
            "TransactionConflict: x");
}

TEST(TxnResponses, AckResponses) {
  proto::CommandAckResponse ack;
  ack.set_consumer_id(3);
  ack.set_request_id(12);
  auto response = decodeTxnResponse(ack);
  EXPECT_TRUE(response.ok());
  EXPECT_FALSE(response.txn.has_value());  // an acknowledgement outside a transaction

  ack.clear_request_id();
  response = decodeTxnResponse(ack);
  EXPECT_EQ(response.status.code, errc::protocol_error);
  EXPECT_EQ(response.status.message, "ACK request 0 (consumer 3): the answer names no request");
}

// One answer of `type` for request 5 of transaction (1,42), failed with `error` when given.
proto::BaseCommand answer(Type::Type type, std::optional<proto::ServerError> error) {
  proto::BaseCommand command;
  command.set_type(type);
  auto fill = [&](auto& body) {
    body.set_request_id(5);
    body.set_txnid_most_bits(1);
    body.set_txnid_least_bits(42);
    if (error) body.set_error(*error);
    if (error) body.set_message("why");
  };
  switch (type) {
    case Type::TC_CLIENT_CONNECT_RESPONSE: {
      auto& body = *command.mutable_tcclientconnectresponse();
      body.set_request_id(5);
      if (error) body.set_error(*error);
      if (error) body.set_message("why");
      break;
    }
    case Type::NEW_TXN_RESPONSE:
      fill(*command.mutable_newtxnresponse());
      break;
    case Type::ADD_PARTITION_TO_TXN_RESPONSE:
      fill(*command.mutable_addpartitiontotxnresponse());
      break;
    case Type::ADD_SUBSCRIPTION_TO_TXN_RESPONSE:
      fill(*command.mutable_addsubscriptiontotxnresponse());
      break;
    case Type::END_TXN_RESPONSE:
      fill(*command.mutable_endtxnresponse());
      break;
    default:
      command.mutable_ackresponse()->set_consumer_id(3);
      fill(*command.mutable_ackresponse());
      break;
  }
  return command;
}

constexpr Type::Type kResponseTypes[] = {Type::TC_CLIENT_CONNECT_RESPONSE,
                                         Type::NEW_TXN_RESPONSE,
                                         Type::ADD_PARTITION_TO_TXN_RESPONSE,
                                         Type::ADD_SUBSCRIPTION_TO_TXN_RESPONSE,
                                         Type::END_TXN_RESPONSE,
                                         Type::ACK_RESPONSE};

TEST(TxnResponses, TransactionErrorsMapToTheirErrc) {
  const std::pair<proto::ServerError, errc> expected[] = {
      {proto::TransactionCoordinatorNotFound, errc::unavailable},
      {proto::ServiceNotReady, errc::unavailable},
      {proto::TooManyRequests, errc::unavailable},
      {proto::TransactionConflict, errc::transaction_conflict},
      {proto::TransactionNotFound, errc::transaction_not_found},
      {proto::InvalidTxnStatus, errc::transaction_not_found},
      {proto::NotAllowedError, errc::broker_error},
      {proto::ProducerFenced, errc::broker_error},
      {proto::AuthorizationError, errc::authentication},
  };
  for (auto type : kResponseTypes) {
    for (const auto& [error, code] : expected) {
      const auto response = decodeTxnResponse(answer(type, error));
      ASSERT_TRUE(response.has_value());
      EXPECT_EQ(response->status.code, code)
          << Type::Type_Name(type) << " " << proto::ServerError_Name(error);
      EXPECT_EQ(isRetryable(response->status.code), code == errc::unavailable);
    }
  }
}

TEST(TxnResponses, EveryErrorOfEveryAnswerIsAFailureNamingTheRequest) {
  for (auto type : kResponseTypes) {
    const auto ok = decodeTxnResponse(answer(type, std::nullopt));
    ASSERT_TRUE(ok.has_value());
    EXPECT_TRUE(ok->ok()) << Type::Type_Name(type) << ": " << ok->status.message;
    EXPECT_EQ(ok->type, type);
    EXPECT_EQ(ok->requestId, 5u);
    for (int value = 0; value < proto::ServerError_ARRAYSIZE; ++value) {
      const auto error = static_cast<proto::ServerError>(value);
      const auto response = decodeTxnResponse(answer(type, error));
      ASSERT_TRUE(response.has_value());
      EXPECT_FALSE(response->ok());
      EXPECT_EQ(response->status.code, toErrc(error));
      const auto& text = response->status.message;
      EXPECT_NE(text.find("request 5"), std::string::npos) << text;
      EXPECT_NE(text.find(proto::ServerError_Name(error)), std::string::npos) << text;
      if (type != Type::TC_CLIENT_CONNECT_RESPONSE && type != Type::NEW_TXN_RESPONSE) {
        EXPECT_NE(text.find("transaction (1,42)"), std::string::npos) << text;
      }
    }
  }
}

TEST(TxnResponses, AnswersRoundTripThroughFrames) {
  for (auto type : kResponseTypes) {
    const auto decoded = decodeFrame(encodeFrame(answer(type, proto::TransactionNotFound)));
    EXPECT_EQ(decoded.type, type);
    EXPECT_EQ(decoded.requestId, 5u);
    EXPECT_EQ(decoded.status.code, errc::transaction_not_found) << decoded.status.message;
    EXPECT_NE(decoded.status.message.find(": why"), std::string::npos) << decoded.status.message;
  }
}

// A repeated END_TXN that reaches the coordinator just after the first one ended the
// transaction, and before the coordinator forgot it, is refused with the transaction's status.
TEST(TxnResponses, AnEndTxnRefusedBecauseTheTransactionEndedSaysHow) {
  proto::CommandEndTxnResponse response;
  response.set_request_id(9);
  response.set_txnid_most_bits(0);
  response.set_txnid_least_bits(7231);
  response.set_error(proto::InvalidTxnStatus);
  response.set_message(
      "Expect Txn `(0,7231)` to be in COMMITTING status but it is in COMMITTED status");
  auto decoded = decodeTxnResponse(response);
  EXPECT_EQ(decoded.status.code, errc::transaction_not_found);
  EXPECT_EQ(decoded.ended, proto::COMMIT);

  response.set_message(
      "Expect Txn `(0,7231)` to be in ABORTING status but it is in ABORTED status");
  EXPECT_EQ(decodeTxnResponse(response).ended, proto::ABORT);
  // Still being ended, or a text this library cannot read: nothing is known.
  response.set_message("Expect Txn `(0,7231)` to be in OPEN status but it is in COMMITTING status");
  EXPECT_FALSE(decodeTxnResponse(response).ended);
  response.set_message("");
  EXPECT_FALSE(decodeTxnResponse(response).ended);
  // Another error with the same words is not a transaction status.
  response.set_error(proto::TransactionNotFound);
  response.set_message("it is in COMMITTED status");
  EXPECT_FALSE(decodeTxnResponse(response).ended);
}

TEST(TxnResponses, EndedAccordingToReadsTheLastStatusNamed) {
  EXPECT_EQ(endedAccordingTo("but it is in COMMITTED status"), proto::COMMIT);
  EXPECT_EQ(endedAccordingTo("but it is in ABORTED status"), proto::ABORT);
  EXPECT_EQ(endedAccordingTo("it is in COMMITTED status, and now it is in OPEN status"),
            std::nullopt);
  EXPECT_EQ(endedAccordingTo("it is in COMMITTEDX status"), std::nullopt);
  EXPECT_EQ(endedAccordingTo("it is in "), std::nullopt);
  EXPECT_EQ(endedAccordingTo("COMMITTED"), std::nullopt);
}

TEST(TxnResponses, OtherCommandsAreNotTransactionResponses) {
  proto::BaseCommand error;
  error.set_type(Type::ERROR);
  error.mutable_error()->set_request_id(5);
  error.mutable_error()->set_error(proto::NotAllowedError);
  error.mutable_error()->set_message("Transactions are not enabled.");
  EXPECT_FALSE(decodeTxnResponse(error).has_value());
  EXPECT_FALSE(decodeTxnResponse(proto::BaseCommand{}).has_value());  // no type at all
  EXPECT_FALSE(isTxnResponse(Type::NEW_TXN));
  EXPECT_FALSE(isTxnResponse(Type::END_TXN_ON_PARTITION_RESPONSE));
  EXPECT_TRUE(isTxnResponse(Type::END_TXN_RESPONSE));
  // What a broker with transactions disabled answers instead:
  EXPECT_EQ(serverError(error.error().error(), error.error().message()).code, errc::broker_error);
}

TEST(TxnResponses, AResponseWithoutItsBodyIsAProtocolError) {
  proto::BaseCommand command;
  command.set_type(Type::END_TXN_RESPONSE);
  const auto response = decodeTxnResponse(command);
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status.code, errc::protocol_error);
  EXPECT_EQ(response->status.message, "END_TXN_RESPONSE: the command lacks its body");

  // The frame decoder refuses such a frame before anyone reads it: 08 39 and nothing else.
  FrameDecoder decoder;
  decoder.feed(bytes("00000006 00000002 0839"));
  const auto result = decoder.next();
  ASSERT_TRUE(result.hasError());
  EXPECT_EQ(result.error().kind, FrameError::bad_command);
  EXPECT_EQ(result.error().message, "END_TXN_RESPONSE command lacks its body");
}

TEST(TxnErrors, NamesAndRetryability) {
  EXPECT_EQ(make_error_code(errc::transaction_conflict).message(), "transaction conflict");
  EXPECT_EQ(make_error_code(errc::transaction_not_found).message(), "transaction not found");
  EXPECT_FALSE(isRetryable(make_error_code(errc::transaction_conflict)));
  EXPECT_FALSE(isRetryable(make_error_code(errc::transaction_not_found)));
  EXPECT_TRUE(isRetryable(make_error_code(errc::unavailable)));
  const Error error(errc::transaction_not_found, "END_TXN request 9 for transaction (1,42): x");
  EXPECT_EQ(error.code(), errc::transaction_not_found);
}

}  // namespace
}  // namespace reconsume::detail::protocol
