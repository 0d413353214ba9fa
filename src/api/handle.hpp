// Helpers shared by the public handles (Client, Producer, Consumer, Reader).
#pragma once

#include <boost/system/error_code.hpp>
#include <memory>
#include <string>

#include "common/status.hpp"

namespace reconsume::detail::api {

// A default-constructed handle has no state: using it is a programming error reported as
// errc::closed, naming the kind of handle.
template <typename Impl>
Impl& stateOf(const std::shared_ptr<Impl>& impl, const char* kind) {
  if (!impl) {
    throw Error(errc::closed, std::string("this ") + kind +
                                  " handle is empty (default-constructed or moved from)");
  }
  return *impl;
}

inline boost::system::error_code toErrorCode(const Status& status) {
  // Success without the conversion: a std::error_code becomes a Boost one through a
  // dynamic_cast of its category, on every completed asynchronous call.
  if (status.ok()) return {};
  return boost::system::error_code(status.code);
}

}  // namespace reconsume::detail::api
