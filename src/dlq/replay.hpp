// Replay and purge of picked dead letters through the dead-letter subscription (the rules are in
// reconsume/dead_letters.hpp). The caller has checked the options and picked the dead letters
// with a scan.
//
// Thread safety: each call runs on the calling thread (completions of sends and acknowledgements
// run on the client's executor and only record their outcome).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "reconsume/dead_letters.hpp"

namespace reconsume::detail::dlq {

struct ActionContext {
  Client client;
  std::shared_ptr<Clock> clock;
  std::string topic;  // the dead-letter topic
  std::string subscription;
  std::chrono::milliseconds patience;  // for each picked message to arrive
};

// `destination`: where each picked dead letter goes ("" when it has none: skipped).
ReplayResult replayPicked(ActionContext& context, const std::vector<DeadLetter>& picked,
                          const std::vector<std::string>& destinations,
                          const ReplayOptions& options);

PurgeResult purgePicked(ActionContext& context, const std::vector<DeadLetter>& picked);

}  // namespace reconsume::detail::dlq
