// DeadLetterQueue: checks its input, scans, and hands picked dead letters to replay and purge.
#include <algorithm>
#include <mutex>
#include <ostream>

#include "common/topic_name.hpp"
#include "dlq/filter.hpp"
#include "dlq/json_export.hpp"
#include "dlq/replay.hpp"
#include "dlq/replay_destination.hpp"
#include "dlq/scanner.hpp"
#include "dlq/stats.hpp"
#include "dlq/token_bucket.hpp"
#include "reconsume/dead_letters.hpp"
#include "reconsume/error.hpp"

namespace reconsume {

namespace detail::dlq {

struct DeadLetterQueueState {
  DeadLetterQueueState(Client c, Admin a, std::string t, DeadLetterQueueOptions o)
      : client(std::move(c)),
        admin(std::move(a)),
        topic(std::move(t)),
        options(std::move(o)),
        clock(options.clock ? options.clock : client.clock()),
        scanner(client, admin, topic, options.subscription, options.readTimeout) {}

  Client client;
  Admin admin;
  std::string topic;
  DeadLetterQueueOptions options;
  std::shared_ptr<Clock> clock;
  detail::dlq::Scanner scanner;

  mutable std::mutex mutex;  // warnings only: a reader of warnings() may be on another thread
  std::vector<std::string> warnings;

  void warn(std::string text) {
    std::lock_guard lock(mutex);
    if (std::find(warnings.begin(), warnings.end(), text) == warnings.end()) {
      warnings.push_back(std::move(text));
    }
  }

  // What a scan found out about the topic.
  void note(const detail::dlq::ScanCounts& counts) {
    if (!counts.subscriptionExists) {
      warn("topic " + topic + " has no subscription '" + options.subscription +
           "': every message in it counts as a dead letter");
    }
    if (counts.read > 0 && counts.withRetryProperties == 0) {
      warn("none of the " + std::to_string(counts.read) + " messages read from " + topic +
           " carries a retry property (RECONSUMETIMES, REAL_TOPIC, DEAD_LETTER_CAUSE, ...): is it "
           "a dead-letter topic?");
    }
  }
};

}  // namespace detail::dlq

namespace {

void checkLimit(const std::optional<std::size_t>& limit) {
  if (limit && *limit == 0) {
    throw Error(errc::invalid_argument, "limit 0 is invalid: it must be at least 1");
  }
}

}  // namespace

std::string_view toString(ReplayOutcome outcome) {
  switch (outcome) {
    case ReplayOutcome::planned:
      return "planned";
    case ReplayOutcome::replayed:
      return "replayed";
    case ReplayOutcome::skipped:
      return "skipped";
    case ReplayOutcome::failed:
      return "failed";
    case ReplayOutcome::missing:
      return "missing";
    case ReplayOutcome::notAttempted:
      return "not-attempted";
  }
  return "unknown";
}

DeadLetterQueue::DeadLetterQueue(Client client, Admin admin, std::string_view topic,
                                 DeadLetterQueueOptions options) {
  std::string canonical = detail::canonicalTopic(topic);
  if (options.subscription.empty()) {
    throw Error(errc::invalid_argument,
                "the dead-letter subscription name is empty (topic '" + canonical + "')");
  }
  if (options.readTimeout.count() <= 0) {
    throw Error(errc::invalid_argument, "read timeout " +
                                            std::to_string(options.readTimeout.count()) +
                                            " ms is invalid: it must be positive");
  }
  if (!admin.topicExists(canonical)) {
    throw Error(errc::not_found, "dead-letter topic '" + canonical + "' does not exist");
  }
  state_ = std::make_shared<detail::dlq::DeadLetterQueueState>(std::move(client), std::move(admin),
                                                               canonical, std::move(options));
  auto local = detail::TopicName::parse(canonical).base().localName();
  if (!local.ends_with("-DLQ")) {
    state_->warn("topic " + canonical +
                 " does not end in -DLQ: is it a dead-letter topic? (read all the same)");
  }
}

const std::string& DeadLetterQueue::topic() const {
  return state_->topic;
}

const std::string& DeadLetterQueue::subscription() const {
  return state_->options.subscription;
}

std::vector<std::string> DeadLetterQueue::warnings() const {
  std::lock_guard lock(state_->mutex);
  return state_->warnings;
}

std::size_t DeadLetterQueue::scan(const DeadLetterFilter& filter,
                                  const std::function<bool(const DeadLetter&)>& visit) {
  detail::dlq::CompiledFilter compiled(filter);
  auto now = state_->clock->now();
  std::size_t visited = 0;
  auto counts = state_->scanner.run([&](const Message& message) {
    auto deadLetter = DeadLetter::from(message);
    if (!compiled.matches(deadLetter, now)) return true;
    ++visited;
    return visit(deadLetter);
  });
  state_->note(counts);
  return visited;
}

std::vector<DeadLetter> DeadLetterQueue::list(const DeadLetterFilter& filter,
                                              std::optional<std::size_t> limit) {
  checkLimit(limit);
  std::vector<DeadLetter> found;
  scan(filter, [&](const DeadLetter& deadLetter) {
    found.push_back(deadLetter);
    return !limit || found.size() < *limit;
  });
  return found;
}

DeadLetter DeadLetterQueue::show(const MessageId& id) {
  DeadLetterFilter filter;
  filter.ids = {id};
  auto found = list(filter, 1);
  if (found.empty()) {
    throw Error(errc::not_found, "no dead letter with id '" + id.toString() + "' in " +
                                     state_->topic + " (subscription '" +
                                     state_->options.subscription + "')");
  }
  return found.front();
}

DeadLetterStats DeadLetterQueue::stats(const DeadLetterFilter& filter) {
  detail::dlq::StatsBuilder builder(state_->clock->now());
  scan(filter, [&](const DeadLetter& deadLetter) {
    builder.add(deadLetter);
    return true;
  });
  return builder.stats();
}

std::size_t DeadLetterQueue::exportJson(std::ostream& out, const DeadLetterFilter& filter) {
  return scan(filter, [&](const DeadLetter& deadLetter) {
    out << detail::dlq::toJsonLine(deadLetter) << '\n';
    return static_cast<bool>(out);
  });
}

std::string DeadLetterQueue::toJson(const DeadLetter& deadLetter) {
  return detail::dlq::toJsonLine(deadLetter);
}

ReplayResult DeadLetterQueue::replay(const ReplayOptions& options) {
  // Every value is checked before anything is read or changed.
  detail::dlq::CompiledFilter check(options.filter);
  checkLimit(options.limit);
  if (options.ratePerSecond) (void)detail::dlq::TokenBucket(*options.ratePerSecond);
  if (options.maxInFlight == 0) {
    throw Error(errc::invalid_argument, "maxInFlight 0 is invalid: it must be at least 1");
  }
  std::optional<std::string> to;
  if (options.to) {
    to = detail::canonicalTopic(*options.to);
    if (detail::TopicName::parse(*to).base().toString() ==
        detail::TopicName::parse(state_->topic).base().toString()) {
      throw Error(errc::invalid_argument,
                  "replay destination '" + *options.to + "' is the dead-letter topic itself");
    }
  }

  auto picked = list(options.filter, options.limit);
  detail::dlq::ReplayDestinations where(
      to, [client = state_->client](const std::string& topic) mutable {
        return client.partitionsOf(topic);
      });
  std::vector<std::string> destinations;
  for (const auto& deadLetter : picked) destinations.push_back(where.destinationOf(deadLetter));
  detail::dlq::ActionContext context{state_->client, state_->clock, state_->topic,
                                     state_->options.subscription, state_->options.readTimeout};
  return detail::dlq::replayPicked(context, picked, destinations, options);
}

PurgeResult DeadLetterQueue::purge(const PurgeOptions& options) {
  detail::dlq::CompiledFilter check(options.filter);
  checkLimit(options.limit);
  auto picked = list(options.filter, options.limit);
  if (options.dryRun) {
    PurgeResult result;
    result.dryRun = true;
    result.matched = picked.size();
    for (const auto& deadLetter : picked) result.purgedIds.push_back(deadLetter.id());
    return result;
  }
  detail::dlq::ActionContext context{state_->client, state_->clock, state_->topic,
                                     state_->options.subscription, state_->options.readTimeout};
  return detail::dlq::purgePicked(context, picked);
}

}  // namespace reconsume
