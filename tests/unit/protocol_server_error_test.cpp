#include <gtest/gtest.h>

#include "protocol/server_error.hpp"

namespace reconsume::detail::protocol {
namespace {

TEST(ServerError, MapsEveryValue) {
  const std::pair<proto::ServerError, errc> expected[] = {
      {proto::UnknownError, errc::broker_error},
      {proto::MetadataError, errc::unavailable},
      {proto::PersistenceError, errc::unavailable},
      {proto::AuthenticationError, errc::authentication},
      {proto::AuthorizationError, errc::authentication},
      {proto::ConsumerBusy, errc::broker_error},
      {proto::ServiceNotReady, errc::unavailable},
      {proto::ProducerBlockedQuotaExceededError, errc::broker_error},
      {proto::ProducerBlockedQuotaExceededException, errc::broker_error},
      {proto::ChecksumError, errc::protocol_error},
      {proto::UnsupportedVersionError, errc::unsupported},
      {proto::TopicNotFound, errc::not_found},
      {proto::SubscriptionNotFound, errc::not_found},
      {proto::ConsumerNotFound, errc::not_found},
      {proto::TooManyRequests, errc::unavailable},
      {proto::TopicTerminatedError, errc::broker_error},
      {proto::ProducerBusy, errc::broker_error},
      {proto::InvalidTopicName, errc::invalid_argument},
      {proto::IncompatibleSchema, errc::broker_error},
      {proto::ConsumerAssignError, errc::broker_error},
      {proto::TransactionCoordinatorNotFound, errc::unavailable},
      {proto::InvalidTxnStatus, errc::transaction_not_found},
      {proto::NotAllowedError, errc::broker_error},
      {proto::TransactionConflict, errc::transaction_conflict},
      {proto::TransactionNotFound, errc::transaction_not_found},
      {proto::ProducerFenced, errc::broker_error},
  };
  static_assert(std::size(expected) == proto::ServerError_ARRAYSIZE);
  for (const auto& [error, code] : expected) {
    EXPECT_EQ(toErrc(error), code) << proto::ServerError_Name(error);
  }
}

TEST(ServerError, RetryableOnlyWhereTryingAgainCanHelp) {
  EXPECT_TRUE(isRetryable(make_error_code(toErrc(proto::ServiceNotReady))));
  EXPECT_TRUE(isRetryable(make_error_code(toErrc(proto::TooManyRequests))));
  // A producer of the same name already connected: the same request fails again.
  EXPECT_FALSE(isRetryable(make_error_code(toErrc(proto::ProducerBusy))));
  EXPECT_FALSE(isRetryable(make_error_code(toErrc(proto::TopicTerminatedError))));
  EXPECT_FALSE(isRetryable(make_error_code(toErrc(proto::AuthorizationError))));
}

TEST(ServerError, StatusNamesTheErrorAndKeepsTheBrokersText) {
  auto status = serverError(proto::TopicNotFound, "Topic persistent://public/default/x not found");
  EXPECT_EQ(status.code, errc::not_found);
  EXPECT_EQ(status.message,
            "broker error TopicNotFound: Topic persistent://public/default/x not found");
  status = serverError(proto::AuthenticationError, "");
  EXPECT_EQ(status.message, "broker error AuthenticationError");
  status = serverError(static_cast<proto::ServerError>(77), "new");
  EXPECT_EQ(status.code, errc::broker_error);
  EXPECT_EQ(status.message, "broker error ServerError 77: new");
}

}  // namespace
}  // namespace reconsume::detail::protocol
