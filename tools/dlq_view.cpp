#include "dlq_view.hpp"

#include <algorithm>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "dlq/json_export.hpp"
#include "terminal.hpp"
#include "text_table.hpp"

namespace reconsume::tools {
namespace {

using std::chrono::milliseconds;

std::int64_t epochMs(TimePoint t) {
  return std::chrono::duration_cast<milliseconds>(t.time_since_epoch()).count();
}

milliseconds ageAt(TimePoint then, TimePoint now) {
  return std::max(milliseconds(0), std::chrono::duration_cast<milliseconds>(now - then));
}

std::string orNone(const std::string& text) {
  return text.empty() ? "(none)" : text;
}

// "  label ....  count  bar" rows of one chart, the bars scaled to the largest count.
std::string chart(const std::string& title,
                  const std::vector<std::pair<std::string, std::size_t>>& rows, int width) {
  std::string out = bold(title) + "\n";
  if (rows.empty()) return out + "  (none)\n";
  int labelWidth = 4;
  int countWidth = 1;
  std::size_t most = 0;
  for (const auto& [label, count] : rows) {
    labelWidth = std::max(labelWidth, displayWidth(label));
    countWidth = std::max(countWidth, static_cast<int>(std::to_string(count).size()));
    most = std::max(most, count);
  }
  labelWidth = std::min(labelWidth, std::max(10, width * 2 / 5));
  int barWidth = std::clamp(width - 2 - labelWidth - 2 - countWidth - 2, 1, 40);
  for (const auto& [label, count] : rows) {
    std::string cell = fitWidth(oneLine(label), labelWidth);
    cell += std::string(static_cast<std::size_t>(labelWidth - displayWidth(cell)), ' ');
    std::string number = std::to_string(count);
    std::string line = "  " + cell + "  " +
                       std::string(static_cast<std::size_t>(countWidth) - number.size(), ' ') +
                       number;
    if (count > 0)
      line += "  " + bar(static_cast<double>(count), static_cast<double>(most), barWidth);
    out += line + "\n";
  }
  return out;
}

std::vector<std::pair<std::string, std::size_t>> byCountDescending(
    const std::map<std::string, std::size_t>& counts, bool topics) {
  std::vector<std::pair<std::string, std::size_t>> rows;
  for (const auto& [label, count] : counts) {
    rows.emplace_back(topics ? shortTopic(label) : orNone(label), count);
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return rows;
}

std::string field(const std::string& name, const std::string& value, int width) {
  std::string label = name;
  label.resize(16, ' ');
  return fitWidth("  " + label + oneLine(value), width) + "\n";
}

std::string timeAndAge(TimePoint t, TimePoint now) {
  return detail::dlq::isoUtc(t) + " (" + humanDuration(ageAt(t, now)) + " ago)";
}

boost::json::object replayItemJson(const ReplayItem& item) {
  boost::json::object json;
  json["id"] = item.deadLetterId.toString();
  json["destination"] = item.destination;
  json["outcome"] = std::string(toString(item.outcome));
  if (item.newId) json["newId"] = item.newId->toString();
  if (!item.error.empty()) json["error"] = item.error;
  return json;
}

}  // namespace

std::string shortTopic(const std::string& topic) {
  if (topic.empty()) return "(none)";
  constexpr std::string_view kPersistent = "persistent://";
  constexpr std::string_view kDefault = "public/default/";
  if (!topic.starts_with(kPersistent)) return topic;
  std::string rest = topic.substr(kPersistent.size());
  return rest.starts_with(kDefault) ? rest.substr(kDefault.size()) : rest;
}

std::string renderList(const std::vector<DeadLetter>& deadLetters, TimePoint now, int width) {
  using Align = TextTable::Align;
  TextTable table({{"ID", 8, 24, Align::left, false},
                   {"AGE", 3, 8, Align::right, false},
                   {"CAUSE", 5, 9, Align::left, false},
                   {"ORIGIN", 6, 20, Align::left, true},
                   {"REASON", 10, 400, Align::left, true}});
  for (const auto& d : deadLetters) {
    table.addRow({d.id().toString(), humanDuration(d.age(now)), d.cause,
                  shortTopic(d.originTopic.value_or("")), orNone(d.reason)});
  }
  return table.render(width, stdoutIsTerminal());
}

std::string renderShow(const DeadLetter& d, TimePoint now, int width, std::size_t maxPayload) {
  const Message& m = d.message;
  std::string out = bold("Dead letter " + m.id().toString()) + "\n";
  out += field("topic", m.topic(), width);
  out += field("dead-lettered", timeAndAge(d.deadLetteredAt(), now), width);
  out += field("cause", d.cause, width);
  out += field("reason", orNone(d.reason), width);
  if (d.category) out += field("category", *d.category, width);
  std::string origin = d.originTopic.value_or("(none)");
  if (d.originMessageId) origin += "  message " + *d.originMessageId;
  out += field("origin", origin, width);
  out += field("retries", std::to_string(d.reconsumeTimes), width);
  out += field("replays",
               std::to_string(d.replayCount) +
                   (d.replayedAt ? ", last " + timeAndAge(*d.replayedAt, now) : ""),
               width);
  if (d.firstFailure) out += field("first failure", timeAndAge(*d.firstFailure, now), width);
  if (auto key = m.key()) out += field("key", *key + (m.keyIsBase64() ? " (base64)" : ""), width);
  if (auto orderingKey = m.orderingKey()) {
    out += field("ordering key",
                 detail::dlq::isValidUtf8(*orderingKey)
                     ? *orderingKey
                     : detail::dlq::base64(*orderingKey) + " (base64)",
                 width);
  }
  if (auto eventTime = m.eventTime())
    out += field("event time", detail::dlq::isoUtc(*eventTime), width);
  out += field("producer", m.producerName(), width);

  if (!d.history.empty()) {
    using Align = TextTable::Align;
    TextTable history({{"N", 1, 6, Align::right, false},
                       {"AT", 24, 24, Align::left, false},
                       {"DELAY", 5, 10, Align::right, false},
                       {"REASON", 10, 400, Align::left, true}});
    for (const auto& hop : d.history) {
      history.addRow(
          {std::to_string(hop.count), detail::dlq::isoUtc(hop.at), humanDuration(hop.delay),
           (hop.category.empty() ? "" : "[" + hop.category + "] ") + orNone(hop.reason)});
    }
    out += "\n" + bold("History (oldest first)") + "\n" + history.render(width, stdoutIsTerminal());
  }

  TextTable properties({{"PROPERTY", 8, 28, TextTable::Align::left, true},
                        {"VALUE", 10, 2000, TextTable::Align::left, true}});
  for (const auto& [key, value] : m.properties()) properties.addRow({key, value});
  out += "\n" + bold("Properties") + "\n" + properties.render(width, stdoutIsTerminal());

  auto payload = m.data();
  bool text = detail::dlq::isValidUtf8(payload);
  out += "\n" + bold("Payload") + " " +
         dim("(" + humanBytes(payload.size()) + (text ? ", text" : ", binary, as base64") + ")") +
         "\n";
  auto shown = payload.substr(0, maxPayload);
  if (text) {
    out += std::string(shown);
  } else {
    // Base64 lines of the output width.
    auto encoded = detail::dlq::base64(shown);
    auto lineLength = static_cast<std::size_t>(std::max(16, width));
    for (std::size_t at = 0; at < encoded.size(); at += lineLength) {
      out += encoded.substr(at, lineLength) + "\n";
    }
  }
  if (!out.empty() && out.back() != '\n') out += "\n";
  if (payload.size() > maxPayload) {
    out +=
        dim("(" + std::to_string(payload.size() - maxPayload) +
            " more bytes: `reconsume dlq export --id " + m.id().toString() + "` has all of it)") +
        "\n";
  }
  return out;
}

std::string renderStats(const DeadLetterStats& stats, const std::string& topic,
                        const std::string& subscription, TimePoint now, int width,
                        std::size_t topReasons) {
  std::string out = bold("Dead letters") + " " + fitWidth("in " + topic, width - 13) + "\n";
  std::string summary = "  " + std::to_string(stats.count) + " dead letters, " +
                        humanBytes(stats.payloadBytes) + " of payload, subscription " +
                        subscription;
  out += fitWidth(summary, width) + "\n";
  if (stats.oldest && stats.newest) {
    out += fitWidth("  oldest " + humanDuration(ageAt(*stats.oldest, now)) + " ago, newest " +
                        humanDuration(ageAt(*stats.newest, now)) + " ago, " +
                        std::to_string(stats.replayedBefore) + " replayed before",
                    width) +
           "\n";
  }
  out += "\n" + chart("By cause", byCountDescending(stats.byCause, false), width);
  out += "\n" + chart("By origin topic", byCountDescending(stats.byOrigin, true), width);
  // Only when routing by error was used: a lone "-" bar says nothing.
  if (stats.byCategory.size() > 1 || !stats.byCategory.contains("-")) {
    out += "\n" + chart("By category", byCountDescending(stats.byCategory, false), width);
  }

  auto reasons = byCountDescending(stats.byReason, false);
  std::string reasonTitle = "By reason";
  if (reasons.size() > topReasons) {
    std::size_t rest = 0;
    std::size_t others = reasons.size() - topReasons;
    for (std::size_t i = topReasons; i < reasons.size(); ++i) rest += reasons[i].second;
    reasons.resize(topReasons);
    reasons.emplace_back("(" + std::to_string(others) + " other reasons)", rest);
    reasonTitle += " (the " + std::to_string(topReasons) + " most frequent)";
  }
  out += "\n" + chart(reasonTitle, reasons, width);

  std::vector<std::pair<std::string, std::size_t>> ages;
  for (const auto& bucket : stats.ages) ages.emplace_back(bucket.label, bucket.count);
  out += "\n" + chart("Age", ages, width);
  return out;
}

std::string renderPlan(const ReplayResult& plan, int width) {
  TextTable table({{"ID", 8, 24, TextTable::Align::left, false},
                   {"DESTINATION", 10, 400, TextTable::Align::left, true}});
  for (const auto& item : plan.items) {
    table.addRow({item.deadLetterId.toString(), item.destination.empty()
                                                    ? "(skipped: no REAL_TOPIC)"
                                                    : shortTopic(item.destination)});
  }
  return table.render(width, stdoutIsTerminal());
}

std::string listItemJson(const DeadLetter& d, TimePoint now) {
  boost::json::object json;
  json["id"] = d.id().toString();
  json["publishTime"] = epochMs(d.deadLetteredAt());
  json["ageMs"] = d.age(now).count();
  json["cause"] = d.cause;
  json["reason"] = d.reason;
  json["category"] = d.category ? boost::json::value(*d.category) : nullptr;
  json["originTopic"] = d.originTopic ? boost::json::value(*d.originTopic) : nullptr;
  auto base = d.originBaseTopic();
  json["originBaseTopic"] = base ? boost::json::value(*base) : nullptr;
  json["originMessageId"] = d.originMessageId ? boost::json::value(*d.originMessageId) : nullptr;
  auto key = d.message.key();
  json["key"] = key ? boost::json::value(*key) : nullptr;
  json["reconsumeTimes"] = d.reconsumeTimes;
  json["replayCount"] = d.replayCount;
  json["payloadSize"] = d.message.data().size();
  return boost::json::serialize(json);
}

std::string statsJson(const DeadLetterStats& stats, const std::string& topic,
                      const std::string& subscription) {
  auto counts = [](const std::map<std::string, std::size_t>& map) {
    boost::json::object object;
    for (const auto& [key, count] : map) object[key] = count;
    return object;
  };
  boost::json::object json;
  json["topic"] = topic;
  json["subscription"] = subscription;
  json["count"] = stats.count;
  json["payloadBytes"] = stats.payloadBytes;
  json["byCause"] = counts(stats.byCause);
  json["byOrigin"] = counts(stats.byOrigin);
  json["byReason"] = counts(stats.byReason);
  json["byCategory"] = counts(stats.byCategory);
  boost::json::array ages;
  for (const auto& bucket : stats.ages) {
    boost::json::object one;
    one["label"] = bucket.label;
    one["belowMs"] = bucket.below ? boost::json::value(bucket.below->count()) : nullptr;
    one["count"] = bucket.count;
    ages.push_back(std::move(one));
  }
  json["ages"] = std::move(ages);
  json["oldest"] = stats.oldest ? boost::json::value(epochMs(*stats.oldest)) : nullptr;
  json["newest"] = stats.newest ? boost::json::value(epochMs(*stats.newest)) : nullptr;
  json["replayedBefore"] = stats.replayedBefore;
  return boost::json::serialize(json);
}

std::string replayJson(const ReplayResult& result) {
  boost::json::object json;
  json["dryRun"] = result.dryRun;
  json["matched"] = result.matched;
  json["replayed"] = result.replayed;
  json["skipped"] = result.skipped;
  json["failed"] = result.failed;
  json["missing"] = result.missing;
  json["notAttempted"] = result.notAttempted;
  json["elapsedMs"] = result.elapsed.count();
  if (!result.error.empty()) json["error"] = result.error;
  boost::json::array items;
  for (const auto& item : result.items) items.push_back(replayItemJson(item));
  json["items"] = std::move(items);
  return boost::json::serialize(json);
}

std::string purgeJson(const PurgeResult& result) {
  boost::json::object json;
  json["dryRun"] = result.dryRun;
  json["matched"] = result.matched;
  json["purged"] = result.purged;
  json["failed"] = result.failed;
  json["missing"] = result.missing;
  if (!result.error.empty()) json["error"] = result.error;
  boost::json::array ids;
  for (const auto& id : result.purgedIds) ids.push_back(boost::json::value(id.toString()));
  json[result.dryRun ? "wouldPurge" : "purgedIds"] = std::move(ids);
  return boost::json::serialize(json);
}

}  // namespace reconsume::tools
