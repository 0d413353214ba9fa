#include <new>
#include <stdexcept>
#include <system_error>

#include "reconsume/error.hpp"
#include "reconsume/error_routing.hpp"

namespace reconsume {

ErrorTypeRegistry::ErrorTypeRegistry() {
  add<std::exception>("std::exception");
  add<std::runtime_error>("std::runtime_error");
  add<std::logic_error>("std::logic_error");
  add<std::invalid_argument>("std::invalid_argument");
  add<std::out_of_range>("std::out_of_range");
  add<std::domain_error>("std::domain_error");
  add<std::length_error>("std::length_error");
  add<std::range_error>("std::range_error");
  add<std::overflow_error>("std::overflow_error");
  add<std::underflow_error>("std::underflow_error");
  add<std::system_error>("std::system_error");
  add<std::bad_alloc>("std::bad_alloc");
  add<Error>("reconsume::Error");
}

void ErrorTypeRegistry::add(std::string name, Adder adder) {
  if (name.empty()) throw Error(errc::invalid_argument, "an exception type needs a name");
  if (adders_.contains(name)) {
    throw Error(errc::invalid_argument, "exception type '" + name + "' is registered already");
  }
  adders_.emplace(std::move(name), std::move(adder));
}

bool ErrorTypeRegistry::contains(std::string_view name) const {
  return adders_.find(name) != adders_.end();
}

void ErrorTypeRegistry::addRule(ErrorRules& rules, std::string_view name,
                                std::string category) const {
  auto found = adders_.find(name);
  if (found == adders_.end()) {
    std::string known;
    for (const auto& [type, adder] : adders_) known += (known.empty() ? "" : ", ") + type;
    throw Error(errc::invalid_argument, "unknown exception type '" + std::string(name) +
                                            "' (known: " + known + ")");
  }
  found->second(rules, std::move(category));
}

const ErrorTypeRegistry& ErrorTypeRegistry::builtin() {
  static const ErrorTypeRegistry registry;
  return registry;
}

}  // namespace reconsume
