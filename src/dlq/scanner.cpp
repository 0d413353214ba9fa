#include "dlq/scanner.hpp"

#include <optional>

#include "common/topic_name.hpp"
#include "dlq/dead_letter_record.hpp"
#include "reconsume/error.hpp"

namespace reconsume::detail::dlq {
namespace {

// Closes the reader however the scan ends (a reader's subscription is not durable; closing it
// removes it from the broker).
class ReaderGuard {
 public:
  explicit ReaderGuard(Reader reader) : reader_(std::move(reader)) {}
  ~ReaderGuard() {
    try {
      reader_.close();
    } catch (const Error&) {
      // Closing fails only when the client is closed or the connection is gone: nothing to undo.
    }
  }
  ReaderGuard(const ReaderGuard&) = delete;
  ReaderGuard& operator=(const ReaderGuard&) = delete;
  Reader& operator*() { return reader_; }

 private:
  Reader reader_;
};

bool carriesRetryProperty(const Message& message) {
  for (const auto& [key, value] : message.properties()) {
    if (isRetryProperty(key)) return true;
  }
  return false;
}

}  // namespace

Scanner::Scanner(Client client, Admin admin, std::string topic, std::string subscription,
                 std::chrono::milliseconds readTimeout)
    : client_(std::move(client)),
      admin_(std::move(admin)),
      topic_(std::move(topic)),
      subscription_(std::move(subscription)),
      readTimeout_(readTimeout) {}

ScanCounts Scanner::run(const std::function<bool(const Message&)>& visit) {
  ScanCounts counts;
  for (const auto& stats : admin_.subscriptions(topic_)) {
    if (stats.name == subscription_) counts.subscriptionExists = true;
  }
  int partitions = admin_.partitions(topic_);
  if (partitions == 0) {
    auto name = TopicName::parse(topic_);
    runOne(topic_, name.partition(), counts.subscriptionExists, visit, counts);
    return counts;
  }
  auto base = TopicName::parse(topic_);
  for (int p = 0; p < partitions; ++p) {
    if (!runOne(base.partitionAt(p).toString(), p, counts.subscriptionExists, visit, counts)) {
      break;
    }
  }
  return counts;
}

bool Scanner::runOne(const std::string& topic, int partition, bool subscriptionExists,
                     const std::function<bool(const Message&)>& visit, ScanCounts& counts) {
  std::optional<SubscriptionCursor> cursor;
  if (subscriptionExists) {
    try {
      cursor = admin_.cursor(topic, subscription_);
    } catch (const Error& e) {
      // A partition the subscription has not reached yet: all of it counts.
      if (e.code() != errc::not_found) throw;
    }
  }
  ReaderOptions options;
  options.topic = topic;
  // Everything up to the mark-delete position is acknowledged: no need to read it.
  if (cursor && cursor->markDeletePosition.entry() >= 0) {
    options.startMessageId = MessageId(cursor->markDeletePosition.ledger(),
                                       cursor->markDeletePosition.entry(), partition);
    options.startMessageIdInclusive = false;
  }
  ReaderGuard reader(client_.createReader(options));
  while ((*reader).hasMessageAvailable()) {
    auto message = (*reader).readNext(readTimeout_);
    if (!message) {
      throw Error(errc::timeout, "reading " + topic + ": the broker reports more messages, but " +
                                     "none arrived within " + std::to_string(readTimeout_.count()) +
                                     " ms");
    }
    if (cursor && cursor->isAcknowledged(message->id())) continue;
    ++counts.read;
    if (carriesRetryProperty(*message)) ++counts.withRetryProperties;
    if (!visit(*message)) return false;
  }
  return true;
}

}  // namespace reconsume::detail::dlq
