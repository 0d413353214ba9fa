#include "admin/admin_paths.hpp"

#include <boost/url/encode.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

namespace reconsume::detail::admin {
namespace {

std::string segment(std::string_view text) {
  return boost::urls::encode(text, boost::urls::unreserved_chars);
}

}  // namespace

std::string namespaceTopicsPath(const TopicName& topic) {
  return "/admin/v2/" + segment(topic.domain()) + '/' + segment(topic.tenant()) + '/' +
         segment(topic.namespacePart());
}

std::string topicPath(const TopicName& topic, std::string_view suffix) {
  return namespaceTopicsPath(topic) + '/' + segment(topic.localName()) + std::string(suffix);
}

}  // namespace reconsume::detail::admin
