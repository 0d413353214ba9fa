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
  // Messages between send and the broker's receipt, all partitions together (at least 1).
  std::size_t maxPendingMessages{1000};
  // Bytes (payload, keys and properties) of those messages; 0: only ClientOptions::memoryLimit
  // bounds them.
  std::size_t maxPendingBytes{0};
  // When a send finds no room (maxPendingMessages, maxPendingBytes or the client's memoryLimit):
  //  - true: the call waits on the caller's thread for room — asyncSend too, as the Java
  //    client's sendAsync blocks its caller — at most sendTimeout (operationTimeout when
  //    sendTimeout is 0), then fails with timeout. On the client's I/O thread (in a completion
  //    handler) it never waits, since the receipts that make room arrive there: it fails at once
  //    with producer_busy.
  //  - false: the call fails at once with producer_busy (Java's ProducerQueueIsFullError and
  //    MemoryBufferIsFullError), the error naming the limit and its value.
  bool blockIfQueueFull{true};
  Compression compression{Compression::none};
  // Created on the topic together with the producer, so that nothing sent is lost before the
  // first consumer subscribes (used for dead-letter topics).
  std::optional<std::string> initialSubscription;
  std::map<std::string, std::string> metadata;  // producer properties shown by the broker
};

}  // namespace reconsume
