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

// Producer batching (SPEC.md section 11): messages sent close together share one entry on the
// broker, as with the Java client's defaults. An entry is written when it holds maxMessages
// messages or maxBytes bytes, or maxPublishDelay after its first message, whichever comes first;
// a send completes once the broker confirmed its entry. Compression applies to the whole entry.
// Consumers of every Pulsar client read batches; message ids carry the index in the entry.
struct BatchingOptions {
  bool enabled{true};
  std::chrono::microseconds maxPublishDelay{1000};  // at least 1 us when enabled
  std::size_t maxMessages{1000};                    // at least 1
  std::size_t maxBytes{128 * 1024};                 // uncompressed payloads and metadata
  // One open entry per key (partition key, else ordering key) instead of one for all, so that
  // every entry carries its key and a Key_Shared subscription dispatches it by that key. Turn it
  // on when consumers use Key_Shared; Java's BatcherBuilder.KEY_BASED. One thread's sends then
  // keep their order per key: a key's full batch goes out ahead of another key's older one.
  bool keyBased{false};
  // Messages with a delivery time: 0 (Java's rule) sends each alone, as a delay applies to a
  // whole entry. Above 0, messages whose delivery times lie within this window of each other
  // share an entry, delivered at the latest of their times: never early, at most this much late.
  // reconsumeLater's retry producers use ConsumerOptions::retryBatchingWindow here.
  std::chrono::milliseconds delayedWindow{0};
};

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
  BatchingOptions batching;
  // Created on the topic together with the producer, so that nothing sent is lost before the
  // first consumer subscribes (used for dead-letter topics).
  std::optional<std::string> initialSubscription;
  std::map<std::string, std::string> metadata;  // producer properties shown by the broker
};

}  // namespace reconsume
