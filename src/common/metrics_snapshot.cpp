// The methods of the metrics value types (include/reconsume/metrics.hpp), the Prometheus text
// format among them.
#include <algorithm>
#include <charconv>
#include <map>

#include "common/metrics_registry.hpp"
#include "reconsume/metrics.hpp"

namespace reconsume {

namespace {

bool includes(const MetricLabels& labels, const MetricLabels& match) {
  return std::all_of(match.begin(), match.end(), [&](const auto& wanted) {
    return std::find(labels.begin(), labels.end(), wanted) != labels.end();
  });
}

std::string number(double value) {
  char text[32];
  auto [end, ec] = std::to_chars(text, text + sizeof text, value);
  return ec == std::errc() ? std::string(text, end) : "NaN";
}

// Prometheus names: letters, digits and '_' ('.' and anything else become '_').
std::string prometheusName(std::string_view name) {
  std::string out(name);
  for (auto& c : out) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) c = '_';
  }
  return out;
}

std::string escapeLabelValue(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string escapeHelp(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// {a="1",b="2"} with `extra` (le="...") last; "" without labels.
std::string labelText(const MetricLabels& labels, const std::string& extra = "") {
  std::string out;
  for (const auto& [name, value] : labels) {
    if (value.empty()) continue;  // Prometheus reads an empty label as no label
    out += (out.empty() ? "" : ",") + prometheusName(name) + "=\"" + escapeLabelValue(value) + "\"";
  }
  if (!extra.empty()) out += (out.empty() ? "" : ",") + extra;
  return out.empty() ? "" : "{" + out + "}";
}

// The Prometheus name of a metric: unit seconds as _seconds, counters with _total.
std::string exposedName(const MetricSeries& series) {
  std::string name = prometheusName(series.name);
  if (series.unit == "s") name += "_seconds";
  return name;
}

}  // namespace

std::string MetricSeries::label(std::string_view name) const {
  for (const auto& [key, value] : labels) {
    if (key == name) return value;
  }
  return "";
}

double HistogramData::quantile(double q) const {
  if (count == 0 || bounds.empty()) return 0;
  q = std::clamp(q, 0.0, 1.0);
  double rank = q * static_cast<double>(count);
  std::uint64_t below = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] > 0 && static_cast<double>(below + counts[i]) >= rank) {
      if (i >= bounds.size()) return bounds.back();
      double lower = i == 0 ? 0 : bounds[i - 1];
      double within = (rank - static_cast<double>(below)) / static_cast<double>(counts[i]);
      return lower + (bounds[i] - lower) * std::clamp(within, 0.0, 1.0);
    }
    below += counts[i];
  }
  return bounds.back();
}

void HistogramData::merge(const HistogramData& other) {
  if (bounds.empty()) {
    *this = other;
    return;
  }
  for (std::size_t i = 0; i < counts.size() && i < other.counts.size(); ++i) {
    counts[i] += other.counts[i];
  }
  count += other.count;
  sum += other.sum;
}

std::uint64_t MetricsSnapshot::counter(std::string_view name, const MetricLabels& match) const {
  std::uint64_t total = 0;
  for (const auto& value : values) {
    if (value.series.kind == MetricKind::counter && value.series.name == name &&
        includes(value.series.labels, match)) {
      total += value.count;
    }
  }
  return total;
}

HistogramData MetricsSnapshot::histogram(std::string_view name, const MetricLabels& match) const {
  HistogramData merged;
  for (const auto& value : values) {
    if (value.series.kind == MetricKind::histogram && value.series.name == name &&
        includes(value.series.labels, match)) {
      merged.merge(value.histogram);
    }
  }
  return merged;
}

std::string MetricsSnapshot::toPrometheusText() const {
  // Grouped by metric, each with its HELP and TYPE once.
  std::map<std::string, std::vector<const MetricValue*>> byName;
  for (const auto& value : values) byName[exposedName(value.series)].push_back(&value);
  std::string out;
  for (const auto& [name, series] : byName) {
    const auto& first = series.front()->series;
    bool counter = first.kind == MetricKind::counter;
    out += "# HELP " + name + (counter ? "_total " : " ") + escapeHelp(first.description) + "\n";
    out += "# TYPE " + name + (counter ? "_total counter\n" : " histogram\n");
    for (const auto* value : series) {
      const auto& labels = value->series.labels;
      if (counter) {
        out += name + "_total" + labelText(labels) + " " + std::to_string(value->count) + "\n";
        continue;
      }
      const auto& histogram = value->histogram;
      std::uint64_t cumulative = 0;
      for (std::size_t i = 0; i < histogram.bounds.size(); ++i) {
        cumulative += histogram.counts[i];
        if (!detail::isExposedBound(i)) continue;
        out += name + "_bucket" + labelText(labels, "le=\"" + number(histogram.bounds[i]) + "\"") +
               " " + std::to_string(cumulative) + "\n";
      }
      out += name + "_bucket" + labelText(labels, "le=\"+Inf\"") + " " +
             std::to_string(histogram.count) + "\n";
      out += name + "_sum" + labelText(labels) + " " + number(histogram.sum) + "\n";
      out += name + "_count" + labelText(labels) + " " + std::to_string(histogram.count) + "\n";
    }
  }
  return out;
}

}  // namespace reconsume
