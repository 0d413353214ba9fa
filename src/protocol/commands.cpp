// Builders for the connection, lookup and producer commands (consumer_commands.cpp has the rest).
#include "protocol/commands.hpp"

namespace reconsume::detail::protocol {

ConnectRequest ConnectRequest::withToken(std::string token) {
  ConnectRequest request;
  request.authMethodName = "token";
  request.authData = std::move(token);
  return request;
}

proto::BaseCommand connect(const ConnectRequest& request) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::CONNECT);
  auto& connect = *command.mutable_connect();
  connect.set_client_version(request.clientVersion);
  connect.set_protocol_version(request.protocolVersion);
  if (!request.authMethodName.empty()) {
    connect.set_auth_method_name(request.authMethodName);
    connect.set_auth_data(request.authData);
  }
  if (!request.proxyToBrokerUrl.empty()) connect.set_proxy_to_broker_url(request.proxyToBrokerUrl);
  auto& flags = *connect.mutable_feature_flags();
  flags.set_supports_auth_refresh(true);
  flags.set_supports_broker_entry_metadata(true);
  return command;
}

proto::BaseCommand authResponse(std::string_view authMethodName, std::string_view authData,
                                int protocolVersion) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::AUTH_RESPONSE);
  auto& response = *command.mutable_authresponse();
  response.set_client_version(std::string(kClientVersion));
  response.set_protocol_version(protocolVersion);
  auto& data = *response.mutable_response();
  data.set_auth_method_name(std::string(authMethodName));
  data.set_auth_data(std::string(authData));
  return command;
}

proto::BaseCommand ping() {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::PING);
  command.mutable_ping();
  return command;
}

proto::BaseCommand pong() {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::PONG);
  command.mutable_pong();
  return command;
}

proto::BaseCommand partitionedMetadata(std::string_view topic, std::uint64_t requestId,
                                       bool autoCreate) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::PARTITIONED_METADATA);
  auto& request = *command.mutable_partitionmetadata();
  request.set_topic(std::string(topic));
  request.set_request_id(requestId);
  // Sent whatever the broker's feature flags say: a broker without PIP-344 skips the unknown
  // field and answers as before (what the Java client's fallback for such brokers does too).
  if (!autoCreate) request.set_metadata_auto_creation_enabled(false);
  return command;
}

proto::BaseCommand lookup(std::string_view topic, std::uint64_t requestId, bool authoritative,
                          std::string_view listenerName) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::LOOKUP);
  auto& request = *command.mutable_lookuptopic();
  request.set_topic(std::string(topic));
  request.set_request_id(requestId);
  request.set_authoritative(authoritative);
  if (!listenerName.empty()) request.set_advertised_listener_name(std::string(listenerName));
  return command;
}

proto::BaseCommand getTopicsOfNamespace(std::uint64_t requestId,
                                        std::string_view tenantSlashNamespace,
                                        proto::CommandGetTopicsOfNamespace::Mode mode) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::GET_TOPICS_OF_NAMESPACE);
  auto& request = *command.mutable_gettopicsofnamespace();
  request.set_request_id(requestId);
  request.set_namespace_(std::string(tenantSlashNamespace));
  request.set_mode(mode);
  return command;
}

proto::BaseCommand producer(const ProducerRequest& request) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::PRODUCER);
  auto& producer = *command.mutable_producer();
  producer.set_topic(request.topic);
  producer.set_producer_id(request.producerId);
  producer.set_request_id(request.requestId);
  // The broker needs to know whether a name was chosen by the user: a generated one may be
  // replaced on reconnection, a user's one may not.
  if (!request.producerName.empty()) producer.set_producer_name(request.producerName);
  producer.set_user_provided_producer_name(!request.producerName.empty() &&
                                           !request.nameFromBroker);
  producer.set_epoch(request.epoch);
  producer.set_producer_access_mode(request.accessMode);
  if (request.topicEpoch) producer.set_topic_epoch(*request.topicEpoch);
  if (!request.initialSubscriptionName.empty()) {
    producer.set_initial_subscription_name(request.initialSubscriptionName);
  }
  for (const auto& [key, value] : request.metadata) {
    auto& entry = *producer.add_metadata();
    entry.set_key(key);
    entry.set_value(value);
  }
  return command;
}

proto::BaseCommand closeProducer(std::uint64_t producerId, std::uint64_t requestId) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::CLOSE_PRODUCER);
  auto& close = *command.mutable_close_producer();
  close.set_producer_id(producerId);
  close.set_request_id(requestId);
  return command;
}

}  // namespace reconsume::detail::protocol
