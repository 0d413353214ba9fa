// Lookups against scripted brokers: a Redirect is followed to the broker it names with the
// `authoritative` flag it gives; an answer that says to proxy through the service URL yields the
// owner reached through the service URL's host, and the connection there asks the proxy for the
// owner in CONNECT; a failed lookup carries the broker's error. With several service hosts, one
// that cannot be reached or is not ready is passed over, and the one that answered is asked first
// from then on; an answer about the topic is final.
#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <future>
#include <string>
#include <vector>

#include "pulsar/lookup.hpp"
#include "pulsar_fake_broker.hpp"

namespace reconsume::detail::pulsar {
namespace {

using namespace std::chrono_literals;
using pulsar_test::FakeBroker;
using pulsar_test::FakePeer;

class PulsarLookup : public ::testing::Test {
 protected:
  PulsarLookup() : work_(io_.get_executor()), thread_([this] { io_.run(); }) {
    auto options = std::make_shared<ConnectionOptions>();
    options->operationTimeout = 5s;
    options->log = Log([](LogLevel, std::string_view) {}, LogLevel::error);
    pool_ = std::make_shared<ConnectionPool>(io_.get_executor(), options);
  }
  ~PulsarLookup() override {
    pool_->close();
    work_.reset();
    thread_.join();
  }

  std::shared_ptr<Lookup> lookupVia(const std::string& serviceUrl) {
    return lookupVia(std::vector<std::string>{serviceUrl});
  }
  // A service URL naming several hosts.
  std::shared_ptr<Lookup> lookupVia(const std::vector<std::string>& serviceUrls) {
    std::vector<BrokerAddress> services;
    for (const auto& url : serviceUrls) {
      EXPECT_TRUE(BrokerAddress::direct(url, services.emplace_back()).ok()) << url;
    }
    return std::make_shared<Lookup>(pool_, std::move(services));
  }

  static std::pair<Status, BrokerAddress> brokerOf(Lookup& lookup, const std::string& topic) {
    std::promise<std::pair<Status, BrokerAddress>> result;
    lookup.broker(topic, 5s, [&](const Status& status, BrokerAddress address) {
      result.set_value({status, address});
    });
    return result.get_future().get();
  }

  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::thread thread_;
  std::shared_ptr<ConnectionPool> pool_;
};

void answer(FakePeer& peer, const proto::CommandLookupTopic& request,
            proto::CommandLookupTopicResponse::LookupType type, const std::string& url,
            bool authoritative = false, bool proxy = false) {
  proto::BaseCommand response;
  response.set_type(proto::BaseCommand::LOOKUP_RESPONSE);
  auto& lookup = *response.mutable_lookuptopicresponse();
  lookup.set_request_id(request.request_id());
  lookup.set_response(type);
  lookup.set_brokerserviceurl(url);
  lookup.set_authoritative(authoritative);
  lookup.set_proxy_through_service_url(proxy);
  peer.write(response);
}

// A Failed lookup answer with the broker's `error` and `message`.
void answerFailure(FakePeer& peer, const proto::CommandLookupTopic& request,
                   proto::ServerError error, const std::string& message) {
  proto::BaseCommand response;
  response.set_type(proto::BaseCommand::LOOKUP_RESPONSE);
  auto& lookup = *response.mutable_lookuptopicresponse();
  lookup.set_request_id(request.request_id());
  lookup.set_response(proto::CommandLookupTopicResponse::Failed);
  lookup.set_error(error);
  lookup.set_message(message);
  peer.write(response);
}

TEST_F(PulsarLookup, RedirectsAreFollowedWithTheAuthoritativeFlag) {
  std::string ownerUrl;
  proto::CommandLookupTopic atOwner;
  FakeBroker owner({[&](FakePeer& peer) {
    peer.acceptConnect();
    atOwner = peer.expect(proto::BaseCommand::LOOKUP).command.lookuptopic();
    answer(peer, atOwner, proto::CommandLookupTopicResponse::Connect, ownerUrl);
    peer.waitForClose();
  }});
  ownerUrl = owner.url();
  proto::CommandLookupTopic atService;
  FakeBroker service({[&](FakePeer& peer) {
    peer.acceptConnect();
    atService = peer.expect(proto::BaseCommand::LOOKUP).command.lookuptopic();
    answer(peer, atService, proto::CommandLookupTopicResponse::Redirect, ownerUrl, true);
    peer.waitForClose();
  }});
  auto lookup = lookupVia(service.url());
  auto [status, address] = brokerOf(*lookup, "persistent://public/default/t");
  ASSERT_TRUE(status.ok()) << status.message;
  EXPECT_EQ(address.logical, ownerUrl);
  EXPECT_EQ(address.physical, ownerUrl);
  EXPECT_FALSE(address.throughProxy());
  EXPECT_FALSE(atService.authoritative());
  EXPECT_TRUE(atOwner.authoritative()) << "the redirect's flag goes with the next lookup";
  EXPECT_EQ(atOwner.topic(), "persistent://public/default/t");
}

TEST_F(PulsarLookup, ProxyThroughTheServiceUrlConnectsThereAndNamesTheOwner) {
  std::string serviceUrl;
  proto::CommandConnect secondConnect;
  FakeBroker proxy({[&](FakePeer& peer) {
                      peer.acceptConnect();
                      auto request = peer.expect(proto::BaseCommand::LOOKUP).command.lookuptopic();
                      answer(peer, request, proto::CommandLookupTopicResponse::Connect,
                             "pulsar://broker-7.internal:6650", false, true);
                      // Scripts run one after the other: end this one so the next connection
                      // is accepted.
                    },
                    [&](FakePeer& peer) {
                      secondConnect = peer.acceptConnect();
                      auto request = peer.expect(proto::BaseCommand::LOOKUP).command.lookuptopic();
                      answer(peer, request, proto::CommandLookupTopicResponse::Connect,
                             "pulsar://broker-7.internal:6650");
                      peer.waitForClose();
                    }});
  serviceUrl = proxy.url();
  auto lookup = lookupVia(serviceUrl);
  auto [status, address] = brokerOf(*lookup, "persistent://public/default/t");
  ASSERT_TRUE(status.ok()) << status.message;
  EXPECT_EQ(address.logical, "pulsar://broker-7.internal:6650");
  EXPECT_EQ(address.physical, serviceUrl);
  EXPECT_TRUE(address.throughProxy());
  EXPECT_EQ(address.host, "127.0.0.1");

  // A connection for that address goes to the proxy and asks it for the owner.
  auto connection = pool_->get(address);
  std::promise<Response> answered;
  auto id = connection->newRequestId();
  connection->request(id, detail::protocol::lookup("persistent://public/default/t", id), "LOOKUP",
                      [&](Response response) { answered.set_value(std::move(response)); });
  auto response = answered.get_future().get();
  EXPECT_TRUE(response.status.ok()) << response.status.message;
  EXPECT_EQ(secondConnect.proxy_to_broker_url(), "pulsar://broker-7.internal:6650");
}

TEST_F(PulsarLookup, AFailedLookupCarriesTheBrokersError) {
  FakeBroker service({[&](FakePeer& peer) {
    peer.acceptConnect();
    auto request = peer.expect(proto::BaseCommand::LOOKUP).command.lookuptopic();
    answerFailure(peer, request, proto::ServiceNotReady, "Namespace bundle is being unloaded");
    peer.waitForClose();
  }});
  auto lookup = lookupVia(service.url());
  auto [status, address] = brokerOf(*lookup, "persistent://public/default/t");
  EXPECT_EQ(status.code, errc::unavailable);
  EXPECT_NE(status.message.find("being unloaded"), std::string::npos) << status.message;
}

void answerNotReady(FakePeer& peer) {
  auto request = peer.expect(proto::BaseCommand::LOOKUP).command.lookuptopic();
  answerFailure(peer, request, proto::ServiceNotReady, "broker is starting");
}

constexpr const char* kRefusing = "pulsar://127.0.0.1:1";  // nothing listens on port 1

TEST_F(PulsarLookup, AServiceHostThatRefusesIsPassedOverAndTheNextAnswers) {
  std::string liveUrl;
  FakeBroker live({[&](FakePeer& peer) {
    peer.acceptConnect();
    for (int i = 0; i < 2; ++i) {
      auto request = peer.expect(proto::BaseCommand::LOOKUP).command.lookuptopic();
      answer(peer, request, proto::CommandLookupTopicResponse::Connect, liveUrl);
    }
    peer.waitForClose();
  }});
  liveUrl = live.url();
  auto lookup = lookupVia(std::vector<std::string>{kRefusing, live.url()});
  for (int i = 0; i < 2; ++i) {  // the second time the live host is asked first
    auto [status, address] = brokerOf(*lookup, "persistent://public/default/t");
    ASSERT_TRUE(status.ok()) << status.message;
    EXPECT_EQ(address.logical, liveUrl);
  }
  EXPECT_EQ(live.accepted(), 1);
}

TEST_F(PulsarLookup, AHostNotReadyIsPassedOverAndTheOneThatAnsweredIsAskedFirstAfterwards) {
  std::string ownerUrl = "pulsar://broker-2.internal:6650";
  FakeBroker starting({[&](FakePeer& peer) {
    peer.acceptConnect();
    answerNotReady(peer);
    peer.waitForClose();
  }});
  FakeBroker ready({[&](FakePeer& peer) {
    peer.acceptConnect();
    for (int i = 0; i < 2; ++i) {
      auto request = peer.expect(proto::BaseCommand::LOOKUP).command.lookuptopic();
      answer(peer, request, proto::CommandLookupTopicResponse::Connect, ownerUrl);
    }
    peer.waitForClose();
  }});
  auto lookup = lookupVia(std::vector<std::string>{starting.url(), ready.url()});
  for (int i = 0; i < 2; ++i) {
    auto [status, address] = brokerOf(*lookup, "persistent://public/default/t");
    ASSERT_TRUE(status.ok()) << status.message;
    EXPECT_EQ(address.logical, ownerUrl);
  }
  EXPECT_EQ(starting.accepted(), 1) << "asked once, then passed over";
}

TEST_F(PulsarLookup, WhenNoHostAnswersTheLastFailureIsReported) {
  FakeBroker starting({[&](FakePeer& peer) {
    peer.acceptConnect();
    answerNotReady(peer);
    peer.waitForClose();
  }});
  auto lookup = lookupVia(std::vector<std::string>{kRefusing, starting.url()});
  auto [status, address] = brokerOf(*lookup, "persistent://public/default/t");
  EXPECT_EQ(status.code, errc::unavailable) << status.message;
  EXPECT_NE(status.message.find("broker is starting"), std::string::npos) << status.message;
  EXPECT_EQ(starting.accepted(), 1);
}

TEST_F(PulsarLookup, AnAnswerAboutTheTopicIsFinalAndNoOtherHostIsAsked) {
  FakeBroker first({[&](FakePeer& peer) {
    peer.acceptConnect();
    auto request = peer.expect(proto::BaseCommand::LOOKUP).command.lookuptopic();
    answerFailure(peer, request, proto::TopicNotFound, "Topic not found");
    peer.waitForClose();
  }});
  FakeBroker second({});
  auto lookup = lookupVia(std::vector<std::string>{first.url(), second.url()});
  auto [status, address] = brokerOf(*lookup, "persistent://public/default/t");
  EXPECT_EQ(status.code, errc::not_found) << status.message;
  EXPECT_EQ(second.accepted(), 0);
}

}  // namespace
}  // namespace reconsume::detail::pulsar
