#include "admin/http_status.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include "common/text.hpp"

namespace reconsume::detail::admin {
namespace {

constexpr std::size_t kMaxReason = 500;

errc errcOf(unsigned status) {
  switch (status) {
    case 400:
      return errc::invalid_argument;
    case 401:
    case 403:
      return errc::authentication;
    case 404:
      return errc::not_found;
    case 429:
    case 503:
      return errc::unavailable;
    default:
      return errc::broker_error;
  }
}

// Pulsar's 500 answers read "--- An unexpected error occurred in the server ---\n\nMessage: <what>
// \n\nStacktrace:\n...": keep <what>.
std::string_view essence(std::string_view reason) {
  constexpr std::string_view kMessage = "Message:";
  if (auto at = reason.find(kMessage); at != std::string_view::npos) {
    reason.remove_prefix(at + kMessage.size());
  }
  if (auto at = reason.find("\n\n"); at != std::string_view::npos) reason = reason.substr(0, at);
  return trimWhitespace(reason);
}

}  // namespace

std::string brokerReason(std::string_view body) {
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(body, ec);
  if (ec || !value.is_object()) return {};
  const auto* reason = value.as_object().if_contains("reason");
  if (reason == nullptr || !reason->is_string()) return {};
  std::string text(essence(reason->as_string()));
  if (text.size() > kMaxReason) {
    // Cut at a character boundary: never in the middle of a UTF-8 sequence.
    std::size_t cut = kMaxReason;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text = text.substr(0, cut) + "...";
  }
  return text;
}

Status statusOf(std::string_view method, std::string_view path, unsigned status,
                std::string_view reasonPhrase, std::string_view body) {
  if (status >= 200 && status < 300) return {};
  std::string message =
      std::string(method) + ' ' + std::string(path) + ": " + std::to_string(status);
  if (!reasonPhrase.empty()) message += ' ' + std::string(reasonPhrase);
  // Pulsar often sends its reason as the status line's phrase too: say it once.
  if (std::string reason = brokerReason(body); !reason.empty() && reason != reasonPhrase) {
    message += ": " + reason;
  }
  return Status(errcOf(status), message);
}

}  // namespace reconsume::detail::admin
