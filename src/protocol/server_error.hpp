// What a broker's ServerError means for the caller: one reconsume::errc per value, and a Status
// whose text names the error and carries the broker's own message.
//
//   AuthenticationError, AuthorizationError                  -> authentication
//   TopicNotFound, SubscriptionNotFound, ConsumerNotFound    -> not_found
//   ServiceNotReady, TooManyRequests, MetadataError,
//   PersistenceError, TransactionCoordinatorNotFound         -> unavailable (retryable)
//   InvalidTopicName                                         -> invalid_argument
//   UnsupportedVersionError                                  -> unsupported
//   ChecksumError (the broker found our frame corrupt)       -> protocol_error
//   TransactionConflict                                      -> transaction_conflict
//   TransactionNotFound, InvalidTxnStatus                    -> transaction_not_found
//   everything else                                          -> broker_error
//
// TransactionCoordinatorNotFound is retryable because brokers load coordinators on demand and move
// them with their topic; the transaction errors are not (see transaction_commands.hpp).
//
// ProducerBusy is broker_error, not producer_busy: Pulsar sends it when a producer with the same
// name is already connected, which retrying unchanged does not fix; reconsume's producer_busy
// means our own pending queue is full. ConsumerBusy (an Exclusive subscription already has a
// consumer), TopicTerminatedError, ProducerFenced, NotAllowedError (e.g. transactions not enabled
// on the broker) and the quota errors are broker_error as well.
//
// Thread safety: pure functions.
#pragma once

#include <string_view>

#include "PulsarApi.pb.h"
#include "common/status.hpp"
#include "reconsume/error.hpp"

namespace reconsume::detail::protocol {

errc toErrc(proto::ServerError error) noexcept;

// e.g. {not_found, "broker error TopicNotFound: Topic persistent://public/default/x not found"}
reconsume::detail::Status serverError(proto::ServerError error, std::string_view brokerMessage);

}  // namespace reconsume::detail::protocol
