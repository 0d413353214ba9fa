// OutgoingMessage::sharedPayload: one buffer the caller shares, sent in many messages without a
// copy; a Pulsar client lets go of it once the sends completed (the embedded broker stores the
// bytes it was given, in memory, as any message it keeps).
#include <boost/asio/use_future.hpp>
#include <future>

#include "fixture.hpp"

namespace reconsume::behaviour {
namespace {

class SharedPayload : public BehaviourTest {};

TEST_P(SharedPayload, OneBufferGoesOutInEveryMessageThatNamesItAndIsLetGoAfter) {
  auto topic = uniqueTopic("shared-payload");
  auto consumer = client().subscribe(plainOptions(topic));
  auto producer = client().createProducer(topic);

  auto buffer = std::make_shared<const std::string>(std::string(3000, 'p') + "end");
  std::vector<std::future<MessageId>> sent;
  for (int i = 0; i < 3; ++i) {  // batched, as asyncSend's sends are by default
    OutgoingMessage message;
    message.sharedPayload = buffer;
    message.properties = {{"n", std::to_string(i)}};
    sent.push_back(producer.asyncSend(std::move(message), boost::asio::use_future));
  }
  OutgoingMessage last;
  last.sharedPayload = buffer;
  last.properties = {{"n", "3"}};
  producer.send(last);  // the blocking form takes a copy of the handle, not of the bytes
  for (auto& future : sent) EXPECT_NO_THROW(future.get());

  std::string_view receivedData;
  Message kept;  // keeps receivedData's bytes alive
  for (int i = 0; i < 4; ++i) {
    auto message = receiveNow(consumer);
    EXPECT_EQ(message.data(), *buffer);
    kept = message;
    receivedData = message.data();
    EXPECT_EQ(message.property("n"), std::to_string(i));
    consumer.acknowledge(message);
  }
  producer.close();
  if (embedded()) {
    // The embedded broker stores the bytes it was given: the received ones are the caller's.
    EXPECT_EQ(receivedData.data(), buffer->data());
  } else {
    // Every send completed and the producer is closed: only the caller and `last` hold it now.
    EXPECT_EQ(buffer.use_count(), 2);
  }
}

TEST_P(SharedPayload, AnEmptySharedBufferIsAnEmptyPayload) {
  auto topic = uniqueTopic("shared-empty");
  auto consumer = client().subscribe(plainOptions(topic));
  OutgoingMessage message;
  message.sharedPayload = std::make_shared<const std::string>();
  client().createProducer(topic).send(message);
  EXPECT_EQ(receiveNow(consumer).data(), "");
}

INSTANTIATE_TEST_SUITE_P(Backends, SharedPayload, ::testing::ValuesIn(serviceUrls()), backendName);

}  // namespace
}  // namespace reconsume::behaviour
