// How `reconsume dlq` shows dead letters to people (tables and bar charts that fit the output
// width) and to machines (JSON). Pure functions of their arguments, so the layout is unit-tested
// (tests/cli).
//
// Thread safety: pure functions.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "reconsume/dead_letters.hpp"

namespace reconsume::tools {

using TimePoint = std::chrono::system_clock::time_point;

// "orders" for persistent://public/default/orders; "tenant/ns/orders" for other namespaces;
// non-persistent topics keep their scheme. "(none)" for an empty name.
std::string shortTopic(const std::string& topic);

// ID, AGE, CAUSE, ORIGIN, REASON — one row per dead letter.
std::string renderList(const std::vector<DeadLetter>& deadLetters, TimePoint now, int width);
// Everything about one dead letter: where it came from, why, its history, every property and the
// payload (text, or base64 for binary; the first `maxPayload` bytes).
std::string renderShow(const DeadLetter& deadLetter, TimePoint now, int width,
                       std::size_t maxPayload = 4096);
// Counts by cause, origin and reason with bars (the `topReasons` most frequent reasons, the rest
// summed up), and an age histogram.
std::string renderStats(const DeadLetterStats& stats, const std::string& topic,
                        const std::string& subscription, TimePoint now, int width,
                        std::size_t topReasons = 10);
// One row per picked dead letter and where it goes (a dry run).
std::string renderPlan(const ReplayResult& plan, int width);

// JSON (one object, no line break).
std::string listItemJson(const DeadLetter& deadLetter, TimePoint now);
std::string statsJson(const DeadLetterStats& stats, const std::string& topic,
                      const std::string& subscription);
std::string replayJson(const ReplayResult& result);
std::string purgeJson(const PurgeResult& result);

}  // namespace reconsume::tools
