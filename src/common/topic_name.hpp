// Pulsar topic names: "persistent://tenant/namespace/name[-partition-N]". A bare "name" means
// persistent://public/default/name and "tenant/namespace/name" means persistent://tenant/...,
// as in the Java client.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace reconsume::detail {

class TopicName {
 public:
  // Throws Error(errc::invalid_argument) naming the text for an empty name, an unknown domain,
  // or a wrong number of parts.
  static TopicName parse(std::string_view text);

  const std::string& domain() const { return domain_; }  // "persistent" or "non-persistent"
  const std::string& tenant() const { return tenant_; }
  const std::string& namespacePart() const { return namespace_; }
  const std::string& localName() const { return local_; }  // with any -partition-N suffix
  std::string namespaceName() const { return tenant_ + '/' + namespace_; }
  std::string toString() const;  // the canonical full name

  // The partition index from a "-partition-N" suffix, or -1.
  int partition() const { return partition_; }
  // This topic without its partition suffix.
  TopicName base() const;
  // Partition `index` of this (base) topic.
  TopicName partitionAt(int index) const;

  friend bool operator==(const TopicName&, const TopicName&) = default;

 private:
  std::string domain_, tenant_, namespace_, local_;
  int partition_ = -1;
};

// Shorthand: the canonical full name of `text`.
std::string canonicalTopic(std::string_view text);

// The canonical name of the topic `text` belongs to: without its "-partition-N" suffix. Equal to
// TopicName::parse(text).base().toString(), without parsing when `text` is canonical already (a
// message's topic), which is what the retry layer asks on every republish. Throws as parse().
std::string baseTopicName(std::string_view text);
// The same as a view into `text` when `text` is canonical; nothing otherwise (then ask
// baseTopicName, which parses).
std::optional<std::string_view> canonicalBaseTopic(std::string_view text) noexcept;

// The partition index of `text` ("…-partition-N"), or -1, also when `text` is not a valid name.
int partitionIndexOf(std::string_view text) noexcept;

}  // namespace reconsume::detail
