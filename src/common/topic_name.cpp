#include "common/topic_name.hpp"

#include <charconv>
#include <vector>

#include "reconsume/error.hpp"

namespace reconsume::detail {
namespace {

constexpr std::string_view kPartitionSuffix = "-partition-";

[[noreturn]] void failTopicName(std::string_view text, std::string_view why) {
  throw Error(errc::invalid_argument,
              "topic name '" + std::string(text) + "' is invalid: " + std::string(why));
}

int partitionOf(std::string_view local) {
  auto at = local.rfind(kPartitionSuffix);
  if (at == std::string_view::npos) return -1;
  auto digits = local.substr(at + kPartitionSuffix.size());
  int index = -1;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty() || index < 0) {
    return -1;
  }
  return index;
}

}  // namespace

TopicName TopicName::parse(std::string_view text) {
  TopicName name;
  std::string_view rest = text;
  auto scheme = rest.find("://");
  if (scheme != std::string_view::npos) {
    name.domain_ = std::string(rest.substr(0, scheme));
    if (name.domain_ != "persistent" && name.domain_ != "non-persistent") {
      failTopicName(text, "the domain must be persistent or non-persistent");
    }
    rest.remove_prefix(scheme + 3);
  } else {
    name.domain_ = "persistent";
  }

  std::vector<std::string_view> parts;
  for (std::size_t begin = 0;;) {
    auto slash = rest.find('/', begin);
    parts.push_back(rest.substr(begin, slash - begin));
    if (slash == std::string_view::npos) break;
    begin = slash + 1;
  }
  if (parts.size() == 1 && scheme == std::string_view::npos) {
    name.tenant_ = "public";
    name.namespace_ = "default";
    name.local_ = std::string(parts[0]);
  } else if (parts.size() == 3) {
    name.tenant_ = std::string(parts[0]);
    name.namespace_ = std::string(parts[1]);
    name.local_ = std::string(parts[2]);
  } else {
    failTopicName(text, "expected name, tenant/namespace/name or domain://tenant/namespace/name");
  }
  if (name.tenant_.empty() || name.namespace_.empty() || name.local_.empty()) {
    failTopicName(text, "tenant, namespace and name must not be empty");
  }
  name.partition_ = partitionOf(name.local_);
  return name;
}

std::string TopicName::toString() const {
  return domain_ + "://" + tenant_ + '/' + namespace_ + '/' + local_;
}

TopicName TopicName::base() const {
  if (partition_ < 0) return *this;
  TopicName copy = *this;
  copy.local_ = local_.substr(0, local_.rfind(kPartitionSuffix));
  copy.partition_ = -1;
  return copy;
}

TopicName TopicName::partitionAt(int index) const {
  TopicName copy = base();
  copy.local_ += std::string(kPartitionSuffix) + std::to_string(index);
  copy.partition_ = index;
  return copy;
}

std::string canonicalTopic(std::string_view text) {
  return TopicName::parse(text).toString();
}

std::optional<std::string_view> canonicalBaseTopic(std::string_view text) noexcept {
  // Canonical: "persistent://tenant/namespace/name" with non-empty parts, three after the scheme.
  constexpr std::string_view kPersistent = "persistent://", kNonPersistent = "non-persistent://";
  std::string_view rest;
  if (text.substr(0, kPersistent.size()) == kPersistent) {
    rest = text.substr(kPersistent.size());
  } else if (text.substr(0, kNonPersistent.size()) == kNonPersistent) {
    rest = text.substr(kNonPersistent.size());
  } else {
    return std::nullopt;
  }
  auto first = rest.find('/');
  auto second = first == std::string_view::npos ? first : rest.find('/', first + 1);
  if (first == 0 || second == std::string_view::npos || second == first + 1 ||
      second + 1 == rest.size() || rest.find('/', second + 1) != std::string_view::npos) {
    return std::nullopt;
  }
  auto local = rest.substr(second + 1);
  if (partitionOf(local) < 0) return text;
  return text.substr(0, text.size() - local.size() + local.rfind(kPartitionSuffix));
}

std::string baseTopicName(std::string_view text) {
  if (auto base = canonicalBaseTopic(text)) return std::string(*base);
  return TopicName::parse(text).base().toString();
}

int partitionIndexOf(std::string_view text) noexcept {
  try {
    return TopicName::parse(text).partition();
  } catch (...) {
    return -1;
  }
}

}  // namespace reconsume::detail
