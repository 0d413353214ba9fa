#include "integration/fault_run_outcomes.hpp"

#include <cstdio>
#include <functional>

#include "integration/fault_run_fate.hpp"

namespace reconsume::integration::faultrun {

namespace {

using namespace std::chrono_literals;

constexpr std::size_t kListed = 10;  // lost or duplicated ids listed in the figures

int idOf(const Message& message, int messages) {
  auto text = message.property("n");
  if (!text) return -1;
  try {
    int n = std::stoi(*text);
    return n >= 0 && n < messages ? n : -1;
  } catch (const std::exception&) {
    return -1;
  }
}

// Reads `topic` from the earliest message until nothing more comes, calling `each`.
void readToEnd(Client& client, const std::string& topic,
               const std::function<void(const Message&)>& each) {
  auto reader = client.createReader(topic);
  int idle = 0;
  while (idle < 5) {
    if (auto message = reader.readNext(2s)) {
      each(*message);
      idle = 0;
      continue;
    }
    // Nothing for 2 s: the end, unless the broker says more is there (an aborted transaction's
    // messages and markers at the end of a topic are never delivered, hence the bound).
    if (!reader.hasMessageAvailable()) break;
    ++idle;
  }
  reader.close();
}

}  // namespace

bool Outcomes::add(const Message& message, bool deadLetter) {
  int n = idOf(message, static_cast<int>(processed.size()));
  if (n < 0) {
    ++foreign;
    return false;
  }
  bool first = occurrences(n) == 0;
  auto property = [&](std::string_view key) { return message.property(key).value_or("-"); };
  auto published = std::chrono::duration_cast<std::chrono::milliseconds>(
                       message.publishTime().time_since_epoch())
                       .count();
  traces[n].push_back(
      std::string(deadLetter ? "dead-letter " : "done ") + message.id().toString() +
      " attempt=" + property("attempt") + " RECONSUMETIMES=" + property("RECONSUMETIMES") +
      " cause=" + property("DEAD_LETTER_CAUSE") + " origin=" + property("ORIGIN_MESSAGE_ID") +
      " published=" + std::to_string(published));
  if (!deadLetter) {
    ++processed[n];
  } else if (message.property("DEAD_LETTER_CAUSE").value_or("") == "exhausted") {
    ++exhausted[n];
  } else {
    ++invalid[n];
  }
  return first;
}

OutcomeWatch::OutcomeWatch(Client& client, std::string doneTopic, std::string deadLetterTopic,
                           int messages)
    : client_(client), outcomes_(messages) {
  threads_.emplace_back([this, topic = std::move(doneTopic)] { follow(topic, false); });
  threads_.emplace_back([this, topic = std::move(deadLetterTopic)] { follow(topic, true); });
}

OutcomeWatch::~OutcomeWatch() {
  stop_ = true;
  for (auto& thread : threads_) thread.join();
}

std::vector<int> OutcomeWatch::missing(std::size_t limit) const {
  std::lock_guard lock(mutex_);
  std::vector<int> result;
  for (int n = 0; n < static_cast<int>(outcomes_.processed.size()) && result.size() < limit; ++n) {
    if (outcomes_.occurrences(n) == 0) result.push_back(n);
  }
  return result;
}

void OutcomeWatch::follow(const std::string& topic, bool deadLetter) {
  while (!stop_) {
    try {
      auto reader = client_.createReader(topic);
      while (!stop_) {
        auto message = reader.readNext(200ms);
        if (!message) continue;
        std::lock_guard lock(mutex_);
        if (!seen_[deadLetter ? 1 : 0].insert(message->id()).second) continue;
        if (outcomes_.add(*message, deadLetter)) ++finalOutcomes_;
      }
      reader.close();
    } catch (const Error& e) {
      // The broker went away: read again from the earliest message (counted ones are skipped).
      std::fprintf(stderr, "[ fault-run ] following %s: %s; reading it again\n", topic.c_str(),
                   e.what());
      std::this_thread::sleep_for(500ms);
    }
  }
}

Outcomes readOutcomes(Client& client, const std::string& doneTopic,
                      const std::string& deadLetterTopic, int messages) {
  for (int round = 1;; ++round) {
    try {
      Outcomes outcomes(messages);
      readToEnd(client, doneTopic, [&](const Message& m) { outcomes.add(m, false); });
      readToEnd(client, deadLetterTopic, [&](const Message& m) { outcomes.add(m, true); });
      return outcomes;
    } catch (const Error& e) {
      if (round == 3) throw;
      std::fprintf(stderr, "[ fault-run ] reading the outcomes failed (%s); again\n", e.what());
      std::this_thread::sleep_for(1s);
    }
  }
}

void account(const Outcomes& outcomes, Figures& figures) {
  for (int n = 0; n < static_cast<int>(outcomes.processed.size()); ++n) {
    int occurrences = outcomes.occurrences(n);
    if (occurrences == 0) {
      ++figures.lost;
      if (figures.missing.size() < kListed) figures.missing.push_back(n);
      continue;
    }
    if (outcomes.processed[n] > 0) {
      ++figures.processed;
    } else {
      ++figures.deadLettered;
    }
    if (occurrences > 1) {
      figures.duplicates += static_cast<std::size_t>(occurrences - 1);
      if (figures.duplicated.size() < kListed) {
        figures.duplicated.push_back(n);
        std::string trace = "id " + std::to_string(n) + ":";
        for (const auto& occurrence : outcomes.traces[n]) trace += "\n    " + occurrence;
        figures.duplicateTraces.push_back(std::move(trace));
      }
    }
    const auto& expected = expectedOutcome(n) == Outcome::processed ? outcomes.processed
                           : expectedOutcome(n) == Outcome::invalid ? outcomes.invalid
                                                                    : outcomes.exhausted;
    if (expected[n] != occurrences) ++figures.misplaced;
  }
}

}  // namespace reconsume::integration::faultrun
