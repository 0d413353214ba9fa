#include "embedded/broker_registry.hpp"

#include <map>
#include <mutex>
#include <string>

#include "reconsume/error.hpp"

namespace reconsume::detail::embedded {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, std::weak_ptr<Broker>> brokers;
};

Registry& registry() {
  // Never destroyed: brokers may be released during static destruction.
  static auto* instance = new Registry;
  return *instance;
}

}  // namespace

std::shared_ptr<Broker> acquireBroker(const ServiceUrl& url, std::shared_ptr<Clock> clock) {
  auto config = BrokerConfig::fromOptions(url.options, url.text);
  auto& reg = registry();
  std::lock_guard lock(reg.mutex);
  std::erase_if(reg.brokers, [](const auto& entry) { return entry.second.expired(); });
  auto& slot = reg.brokers[url.host];
  if (auto running = slot.lock()) {
    if (clock && clock != running->clock()) {
      throw Error(errc::invalid_argument,
                  running->describe() + " already runs on another clock ('" + url.text +
                      "' was given a different one); pass the same clock, or none to adopt it");
    }
    if (url.options.count("maxMessageSize") &&
        config.maxMessageSize != running->config().maxMessageSize) {
      throw Error(errc::invalid_argument,
                  running->describe() + " already runs with maxMessageSize=" +
                      std::to_string(running->config().maxMessageSize) + "; '" + url.text +
                      "' asks for " + std::to_string(config.maxMessageSize));
    }
    return running;
  }
  auto broker =
      std::make_shared<Broker>(url.host, clock ? std::move(clock) : SystemClock::shared(), config);
  slot = broker;
  return broker;
}

std::shared_ptr<Broker> findBroker(const std::string& name) {
  auto& reg = registry();
  std::lock_guard lock(reg.mutex);
  auto found = reg.brokers.find(name);
  return found == reg.brokers.end() ? nullptr : found->second.lock();
}

}  // namespace reconsume::detail::embedded
