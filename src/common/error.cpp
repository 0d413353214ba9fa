#include "reconsume/error.hpp"

#include "common/status.hpp"

namespace reconsume {
namespace {

class Category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "reconsume"; }
  std::string message(int value) const override {
    switch (static_cast<errc>(value)) {
      case errc::invalid_argument:
        return "invalid argument";
      case errc::timeout:
        return "timed out";
      case errc::connection_lost:
        return "connection lost";
      case errc::broker_error:
        return "broker error";
      case errc::authentication:
        return "authentication failed";
      case errc::not_found:
        return "not found";
      case errc::closed:
        return "closed";
      case errc::too_large:
        return "message too large";
      case errc::protocol_error:
        return "protocol error";
      case errc::producer_busy:
        return "producer queue full";
      case errc::unsupported:
        return "unsupported";
      case errc::unavailable:
        return "service unavailable";
      case errc::transaction_conflict:
        return "transaction conflict";
      case errc::transaction_not_found:
        return "transaction not found";
      case errc::acknowledgement_unconfirmed:
        return "the new message is stored but the acknowledgement of the original is unconfirmed";
      case errc::would_deadlock:
        return "a blocking call on the client's I/O thread would wait for itself";
    }
    return "unknown reconsume error " + std::to_string(value);
  }
};

}  // namespace

const std::error_category& category() noexcept {
  static const Category instance;
  return instance;
}

std::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), category()};
}

Error::Error(errc code, const std::string& message) : Error(make_error_code(code), message) {}
Error::Error(std::error_code code, const std::string& message) : std::system_error(code, message) {}

bool isRetryable(const std::error_code& code) noexcept {
  return code == errc::timeout || code == errc::connection_lost || code == errc::producer_busy ||
         code == errc::unavailable;
}

namespace detail {

Status Status::fromException(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::system_error& error) {
    return Status(error.code(), error.what());
  } catch (const std::exception& error) {
    return Status(errc::invalid_argument, error.what());
  }
}

}  // namespace detail
}  // namespace reconsume
