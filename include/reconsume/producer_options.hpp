// ProducerOptions: how a Producer publishes (Client::createProducer checks them).
//
// Thread safety: plain values.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>

namespace reconsume {

enum class Compression { none, lz4, zlib, zstd, snappy };

struct ProducerOptions {
  std::string topic;
  std::string producerName;                       // empty: the broker assigns one
  std::chrono::milliseconds sendTimeout{30'000};  // 0: wait for ever
  std::size_t maxPendingMessages{1000};
  bool blockIfQueueFull{true};
  Compression compression{Compression::none};
  // Created on the topic together with the producer, so that nothing sent is lost before the
  // first consumer subscribes (used for dead-letter topics).
  std::optional<std::string> initialSubscription;
  std::map<std::string, std::string> metadata;  // producer properties shown by the broker
};

}  // namespace reconsume
