#include "protocol/command_body.hpp"

#include <optional>

namespace reconsume::detail::protocol {
namespace {

using Type = proto::BaseCommand;

// Commands of protocol version 14 and later (authentication challenges, ack receipts,
// transactions, topic migration); nullopt for every other type.
std::optional<bool> newerCommandBody(const proto::BaseCommand& c) {
  switch (c.type()) {
    case Type::AUTH_CHALLENGE:
      return c.has_authchallenge();
    case Type::AUTH_RESPONSE:
      return c.has_authresponse();
    case Type::ACK_RESPONSE:
      return c.has_ackresponse();
    case Type::TOPIC_MIGRATED:
      return c.has_topicmigrated();
    case Type::TC_CLIENT_CONNECT_REQUEST:
      return c.has_tcclientconnectrequest();
    case Type::TC_CLIENT_CONNECT_RESPONSE:
      return c.has_tcclientconnectresponse();
    case Type::NEW_TXN:
      return c.has_newtxn();
    case Type::NEW_TXN_RESPONSE:
      return c.has_newtxnresponse();
    case Type::ADD_PARTITION_TO_TXN:
      return c.has_addpartitiontotxn();
    case Type::ADD_PARTITION_TO_TXN_RESPONSE:
      return c.has_addpartitiontotxnresponse();
    case Type::ADD_SUBSCRIPTION_TO_TXN:
      return c.has_addsubscriptiontotxn();
    case Type::ADD_SUBSCRIPTION_TO_TXN_RESPONSE:
      return c.has_addsubscriptiontotxnresponse();
    case Type::END_TXN:
      return c.has_endtxn();
    case Type::END_TXN_RESPONSE:
      return c.has_endtxnresponse();
    default:
      return std::nullopt;
  }
}

}  // namespace

bool hasBody(const proto::BaseCommand& c) {
  switch (c.type()) {
    case Type::CONNECT:
      return c.has_connect();
    case Type::CONNECTED:
      return c.has_connected();
    case Type::SUBSCRIBE:
      return c.has_subscribe();
    case Type::PRODUCER:
      return c.has_producer();
    case Type::SEND:
      return c.has_send();
    case Type::SEND_RECEIPT:
      return c.has_send_receipt();
    case Type::SEND_ERROR:
      return c.has_send_error();
    case Type::MESSAGE:
      return c.has_message();
    case Type::ACK:
      return c.has_ack();
    case Type::FLOW:
      return c.has_flow();
    case Type::UNSUBSCRIBE:
      return c.has_unsubscribe();
    case Type::SUCCESS:
      return c.has_success();
    case Type::ERROR:
      return c.has_error();
    case Type::CLOSE_PRODUCER:
      return c.has_close_producer();
    case Type::CLOSE_CONSUMER:
      return c.has_close_consumer();
    case Type::PRODUCER_SUCCESS:
      return c.has_producer_success();
    case Type::REDELIVER_UNACKNOWLEDGED_MESSAGES:
      return c.has_redeliverunacknowledgedmessages();
    case Type::PARTITIONED_METADATA:
      return c.has_partitionmetadata();
    case Type::PARTITIONED_METADATA_RESPONSE:
      return c.has_partitionmetadataresponse();
    case Type::LOOKUP:
      return c.has_lookuptopic();
    case Type::LOOKUP_RESPONSE:
      return c.has_lookuptopicresponse();
    case Type::CONSUMER_STATS:
      return c.has_consumerstats();
    case Type::CONSUMER_STATS_RESPONSE:
      return c.has_consumerstatsresponse();
    case Type::REACHED_END_OF_TOPIC:
      return c.has_reachedendoftopic();
    case Type::SEEK:
      return c.has_seek();
    case Type::GET_LAST_MESSAGE_ID:
      return c.has_getlastmessageid();
    case Type::GET_LAST_MESSAGE_ID_RESPONSE:
      return c.has_getlastmessageidresponse();
    case Type::ACTIVE_CONSUMER_CHANGE:
      return c.has_active_consumer_change();
    case Type::GET_TOPICS_OF_NAMESPACE:
      return c.has_gettopicsofnamespace();
    case Type::GET_TOPICS_OF_NAMESPACE_RESPONSE:
      return c.has_gettopicsofnamespaceresponse();
    case Type::GET_SCHEMA:
      return c.has_getschema();
    case Type::GET_SCHEMA_RESPONSE:
      return c.has_getschemaresponse();
    case Type::PING:  // CommandPing and CommandPong are empty: nothing to miss
    case Type::PONG:
      return true;
    default:
      return newerCommandBody(c).value_or(true);  // true: a body this library does not declare
  }
}

}  // namespace reconsume::detail::protocol
