// Paths of Pulsar's admin REST API v2 for a topic. Every name segment is percent-encoded, so a
// topic name can never change the shape of the path.
#pragma once

#include <string>
#include <string_view>

#include "common/topic_name.hpp"

namespace reconsume::detail::admin {

// "/admin/v2/<domain>/<tenant>/<namespace>/<name>" followed by `suffix` (e.g. "/stats").
std::string topicPath(const TopicName& topic, std::string_view suffix = {});

// "/admin/v2/<domain>/<tenant>/<namespace>": the list of the namespace's topics of that domain.
std::string namespaceTopicsPath(const TopicName& topic);

}  // namespace reconsume::detail::admin
