#include "protocol/server_error.hpp"

#include <string>

namespace reconsume::detail::protocol {

errc toErrc(proto::ServerError error) noexcept {
  switch (error) {
    case proto::AuthenticationError:
    case proto::AuthorizationError:
      return errc::authentication;
    case proto::TopicNotFound:
    case proto::SubscriptionNotFound:
    case proto::ConsumerNotFound:
      return errc::not_found;
    case proto::ServiceNotReady:
    case proto::TooManyRequests:
    case proto::MetadataError:
    case proto::PersistenceError:
    case proto::TransactionCoordinatorNotFound:
      return errc::unavailable;
    case proto::InvalidTopicName:
      return errc::invalid_argument;
    case proto::UnsupportedVersionError:
      return errc::unsupported;
    case proto::ChecksumError:
      return errc::protocol_error;
    case proto::TransactionConflict:
      return errc::transaction_conflict;
    // InvalidTxnStatus is what a commit gets while the coordinator is aborting the transaction
    // after its timeout, and TransactionNotFound once it is done: the same end for the caller.
    case proto::TransactionNotFound:
    case proto::InvalidTxnStatus:
      return errc::transaction_not_found;
    case proto::UnknownError:
    case proto::ConsumerBusy:
    case proto::ProducerBlockedQuotaExceededError:
    case proto::ProducerBlockedQuotaExceededException:
    case proto::TopicTerminatedError:
    case proto::ProducerBusy:
    case proto::IncompatibleSchema:
    case proto::ConsumerAssignError:
    case proto::NotAllowedError:
    case proto::ProducerFenced:
      return errc::broker_error;
  }
  return errc::broker_error;
}

reconsume::detail::Status serverError(proto::ServerError error, std::string_view brokerMessage) {
  std::string name = proto::ServerError_Name(error);
  if (name.empty()) name = "ServerError " + std::to_string(static_cast<int>(error));
  std::string text = "broker error " + name;
  if (!brokerMessage.empty()) text += ": " + std::string(brokerMessage);
  return {toErrc(error), std::move(text)};
}

}  // namespace reconsume::detail::protocol
