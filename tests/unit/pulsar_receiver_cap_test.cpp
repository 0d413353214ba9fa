// maxTotalReceiverQueueSizeAcrossPartitions on pulsar://, against a scripted broker: a consumer of
// two topics grants each its share in its FLOW, not receiverQueueSize.
#include <gtest/gtest.h>

#include <future>
#include <map>

#include "pulsar_fake_broker.hpp"
#include "reconsume/reconsume.hpp"

namespace reconsume {
namespace {

using namespace std::chrono_literals;
using pulsar_test::FakeBroker;
using pulsar_test::FakePeer;

// Answers metadata (not partitioned), lookups (this broker) and subscribes in whatever order they
// come; returns the permits of the first FLOW of each of `consumers` consumers, by topic.
std::map<std::string, std::uint32_t> permitsOf(FakePeer& peer, const std::string& url,
                                               std::size_t consumers) {
  std::map<std::uint64_t, std::string> topicOf;  // consumer id -> topic
  std::map<std::string, std::uint32_t> permits;
  while (permits.size() < consumers) {
    auto frame = peer.read();
    proto::BaseCommand answer;
    switch (frame.command.type()) {
      case proto::BaseCommand::PARTITIONED_METADATA: {
        auto& response = *answer.mutable_partitionmetadataresponse();
        answer.set_type(proto::BaseCommand::PARTITIONED_METADATA_RESPONSE);
        response.set_request_id(frame.command.partitionmetadata().request_id());
        response.set_partitions(0);
        response.set_response(proto::CommandPartitionedTopicMetadataResponse::Success);
        break;
      }
      case proto::BaseCommand::LOOKUP: {
        auto& response = *answer.mutable_lookuptopicresponse();
        answer.set_type(proto::BaseCommand::LOOKUP_RESPONSE);
        response.set_request_id(frame.command.lookuptopic().request_id());
        response.set_response(proto::CommandLookupTopicResponse::Connect);
        response.set_brokerserviceurl(url);
        break;
      }
      case proto::BaseCommand::SUBSCRIBE: {
        const auto& subscribe = frame.command.subscribe();
        topicOf[subscribe.consumer_id()] = subscribe.topic();
        answer.set_type(proto::BaseCommand::SUCCESS);
        answer.mutable_success()->set_request_id(subscribe.request_id());
        break;
      }
      case proto::BaseCommand::FLOW: {
        const auto& flow = frame.command.flow();
        permits.emplace(topicOf.at(flow.consumer_id()), flow.messagepermits());
        continue;
      }
      default:
        continue;
    }
    peer.write(answer);
  }
  return permits;
}

TEST(PulsarReceiverCap, EachTopicIsGrantedItsShareOfTheTotal) {
  std::string url;
  std::map<std::string, std::uint32_t> permits;
  std::promise<void> granted;
  FakeBroker broker({[&](FakePeer& peer) {
    peer.acceptConnect();
    permits = permitsOf(peer, url, 2);
    granted.set_value();
    EXPECT_TRUE(peer.answerClosesUntilClosed());
  }});
  url = broker.url();
  ClientOptions clientOptions;
  clientOptions.logger = [](LogLevel, std::string_view) {};
  auto client = Client::connect(url, clientOptions);
  ConsumerOptions options;
  options.topics = {"persistent://public/default/a", "persistent://public/default/b"};
  options.subscription = "capped";
  options.receiverQueueSize = 100;
  options.maxTotalReceiverQueueSizeAcrossPartitions = 6;
  auto consumer = client.subscribe(options);
  ASSERT_EQ(granted.get_future().wait_for(10s), std::future_status::ready);
  client.close();
  EXPECT_EQ(permits, (std::map<std::string, std::uint32_t>{{"persistent://public/default/a", 3},
                                                           {"persistent://public/default/b", 3}}));
}

}  // namespace
}  // namespace reconsume
