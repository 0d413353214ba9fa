// parseConsumerOptions / loadConsumerOptions of consumer_config.hpp.
#include "reconsume/consumer_config.hpp"

#include <boost/json/parser.hpp>
#include <cerrno>
#include <fstream>
#include <sstream>

#include "config/category_config.hpp"
#include "config/consumer_options_check.hpp"
#include "config/error_text.hpp"
#include "config/json_fields.hpp"
#include "reconsume/error.hpp"

namespace reconsume {
namespace {

using detail::config::JsonFields;

boost::json::value parseJson(std::string_view text) {
  boost::json::parser parser;
  boost::system::error_code error;
  std::size_t used = parser.write_some(text.data(), text.size(), error);
  if (!error && used < text.size()) error = boost::json::error::extra_data;
  if (error) {
    std::size_t line = 1, lineStart = 0;
    for (std::size_t i = 0; i < used && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        lineStart = i + 1;
      }
    }
    throw Error(errc::invalid_argument, "JSON syntax error at line " + std::to_string(line) +
                                            ", column " + std::to_string(used - lineStart + 1) +
                                            " (offset " + std::to_string(used) +
                                            "): " + error.message());
  }
  return parser.release();
}

template <typename Enum, std::size_t N>
std::optional<Enum> enumField(JsonFields& fields, std::string_view key,
                              const std::pair<std::string_view, Enum> (&names)[N]) {
  auto text = fields.string(key);
  if (!text) return std::nullopt;
  std::string known;
  for (const auto& [name, value] : names) {
    if (name == *text) return value;
    known += (known.empty() ? "" : ", ") + std::string(name);
  }
  fields.fail(key, "is not one of " + known);
}

constexpr std::pair<std::string_view, SubscriptionType> kSubscriptionTypes[] = {
    {"exclusive", SubscriptionType::exclusive},
    {"shared", SubscriptionType::shared},
    {"failover", SubscriptionType::failover},
    {"key_shared", SubscriptionType::keyShared},
};
constexpr std::pair<std::string_view, InitialPosition> kInitialPositions[] = {
    {"latest", InitialPosition::latest},
    {"earliest", InitialPosition::earliest},
};
constexpr std::pair<std::string_view, Jitter> kJitters[] = {
    {"none", Jitter::none},
    {"full", Jitter::full},
    {"equal", Jitter::equal},
    {"decorrelated", Jitter::decorrelated},
};

ExponentialBackoff readExponential(const boost::json::object& object, const std::string& path) {
  JsonFields fields(object, path);
  ExponentialBackoff backoff;
  backoff.min = fields.duration("min").value_or(backoff.min);
  backoff.max = fields.duration("max").value_or(backoff.max);
  backoff.multiplier = fields.number("multiplier").value_or(backoff.multiplier);
  backoff.jitter = enumField(fields, "jitter", kJitters).value_or(backoff.jitter);
  fields.rejectUnknownKeys();
  if (backoff.min.count() <= 0) fields.fail("min", "must be greater than zero");
  if (backoff.max < backoff.min) fields.fail("max", "must not be less than min");
  if (!(backoff.multiplier > 1.0)) fields.fail("multiplier", "must be greater than 1");
  return backoff;
}

RetryPolicy readPolicy(JsonFields& fields, const std::string& path) {
  auto levels = fields.string("levels");
  const auto* exponential = fields.object("exponential");
  auto maxRetries = fields.int32("maxRetries");
  if (maxRetries && *maxRetries < 1) fields.fail("maxRetries", "must be at least 1");
  if (levels && exponential) {
    throw Error(errc::invalid_argument,
                path + " sets both 'levels' and 'exponential'; choose one of them");
  }
  if (levels) {
    try {
      return RetryPolicy::levels(DelayLevels::parse(*levels), maxRetries);
    } catch (const Error& e) {
      fields.fail("levels", "is invalid: " + detail::config::errorText(e));
    }
  }
  if (exponential) {
    auto backoff = readExponential(*exponential, fields.pathOf("exponential"));
    return maxRetries ? RetryPolicy::exponential(backoff, *maxRetries)
                      : RetryPolicy::exponential(backoff);
  }
  throw Error(errc::invalid_argument,
              path +
                  " needs 'levels' (e.g. \"1s 5s 30s\") or 'exponential' (e.g. {\"min\": \"1s\", "
                  "\"max\": \"1m\", \"multiplier\": 2})");
}

}  // namespace

namespace detail::config {

RetryPolicy readRetry(const boost::json::object& object, const std::string& path) {
  JsonFields fields(object, path);
  auto policy = readPolicy(fields, path);
  auto limit = fields.duration("timeLimit");
  fields.rejectUnknownKeys();
  if (limit) {
    if (limit->count() <= 0) fields.fail("timeLimit", "must be positive");
    policy = policy.withTimeLimit(*limit);
  }
  return policy;
}

}  // namespace detail::config

namespace {

std::shared_ptr<const RedeliveryBackoff> readBackoff(const boost::json::object& object,
                                                     const std::string& path,
                                                     const BackoffRegistry& registry) {
  const boost::json::value* type = object.if_contains("type");
  if (!type) {
    throw Error(errc::invalid_argument, path + " needs a \"type\" (e.g. \"multiplier\")");
  }
  if (!type->is_string()) detail::config::failJson(path + ".type", *type, "must be a string");

  std::map<std::string, BackoffParams::Value, std::less<>> values;
  for (const auto& [key, value] : object) {
    if (key == "type") continue;
    std::string keyPath = path + '.' + std::string(key);
    if (value.is_string()) {
      values.emplace(key, std::string(value.get_string()));
    } else if (value.is_int64()) {
      values.emplace(key, value.get_int64());
    } else if (value.is_uint64()) {
      detail::config::failJson(keyPath, value, "is too large");
    } else if (value.is_double()) {
      values.emplace(key, value.get_double());
    } else if (value.is_bool()) {
      values.emplace(key, value.get_bool());
    } else {
      detail::config::failJson(keyPath, value, "must be a string, a number or a boolean");
    }
  }
  BackoffParams params(path, std::move(values));
  std::string typeName(type->get_string());
  std::shared_ptr<const RedeliveryBackoff> backoff;
  try {
    backoff = registry.create(typeName, params);
  } catch (const Error& e) {
    std::string text = detail::config::errorText(e);
    // Errors of BackoffParams already start with the path; others get it here.
    if (text.rfind(path, 0) != 0) text = path + " (type '" + typeName + "'): " + text;
    throw Error(e.code(), text);
  } catch (const std::exception& e) {
    throw Error(errc::invalid_argument, path + " (type '" + typeName + "'): " + e.what());
  }
  if (!backoff) {
    throw Error(errc::invalid_argument,
                path + " (type '" + typeName + "'): the factory returned no backoff");
  }
  for (const auto& key : params.unreadKeys()) {
    params.fail(key, "is not a parameter of redelivery backoff type '" + typeName + "'");
  }
  return backoff;
}

ConsumerOptions readOptions(const boost::json::value& document, const BackoffRegistry& registry,
                            const ErrorTypeRegistry& errorTypes) {
  if (!document.is_object()) {
    detail::config::failJson("the document", document, "must be a JSON object");
  }
  JsonFields fields(document.get_object(), "");
  ConsumerOptions options;

  if (const auto* topics = fields.array("topics")) {
    for (std::size_t i = 0; i < topics->size(); ++i) {
      const auto& topic = (*topics)[i];
      if (!topic.is_string()) {
        detail::config::failJson("topics[" + std::to_string(i) + "]", topic, "must be a string");
      }
      options.topics.emplace_back(topic.get_string());
    }
  }
  options.subscription = fields.string("subscription").value_or("");
  options.subscriptionType =
      enumField(fields, "subscriptionType", kSubscriptionTypes).value_or(options.subscriptionType);
  options.initialPosition =
      enumField(fields, "initialPosition", kInitialPositions).value_or(options.initialPosition);
  options.consumerName = fields.string("consumerName").value_or("");
  options.receiverQueueSize = fields.int32("receiverQueueSize").value_or(options.receiverQueueSize);
  options.maxTotalReceiverQueueSizeAcrossPartitions =
      fields.int32("maxTotalReceiverQueueSizeAcrossPartitions")
          .value_or(options.maxTotalReceiverQueueSizeAcrossPartitions);
  if (const auto* retry = fields.object("retry")) {
    options.retry = detail::config::readRetry(*retry, "retry");
  }
  if (const auto* categories = fields.object("categories")) {
    options.categories = detail::config::readCategories(*categories);
  }
  if (const auto* rules = fields.array("errorRules")) {
    options.errorRules = detail::config::readErrorRules(*rules, options.categories, errorTypes);
  }
  options.retryTopic = fields.string("retryTopic");
  options.deadLetterTopic = fields.string("deadLetterTopic");
  options.deadLetterSubscription =
      fields.string("deadLetterSubscription").value_or(options.deadLetterSubscription);
  options.transactionalRetry =
      fields.boolean("transactionalRetry").value_or(options.transactionalRetry);
  options.maxRedeliverCount = fields.int32("maxRedeliverCount").value_or(options.maxRedeliverCount);
  options.retryBatchingWindow =
      fields.duration("retryBatchingWindow").value_or(options.retryBatchingWindow);
  options.acknowledgmentGroupTime =
      fields.duration("acknowledgmentGroupTime").value_or(options.acknowledgmentGroupTime);
  options.acknowledgmentReceipts =
      fields.boolean("acknowledgmentReceipts").value_or(options.acknowledgmentReceipts);
  options.batchIndexAcknowledgement =
      fields.boolean("batchIndexAcknowledgement").value_or(options.batchIndexAcknowledgement);
  options.ackTimeout = fields.duration("ackTimeout").value_or(options.ackTimeout);
  options.negativeAckRedeliveryDelay =
      fields.duration("negativeAckRedeliveryDelay").value_or(options.negativeAckRedeliveryDelay);
  for (auto [key, target] :
       {std::pair{"negativeAckRedeliveryBackoff", &options.negativeAckRedeliveryBackoff},
        std::pair{"ackTimeoutRedeliveryBackoff", &options.ackTimeoutRedeliveryBackoff}}) {
    if (const auto* backoff = fields.object(key)) *target = readBackoff(*backoff, key, registry);
  }
  fields.rejectUnknownKeys();
  detail::config::validateConsumerOptions(options);
  return options;
}

ConsumerOptions parseFrom(std::string_view json, const BackoffRegistry& registry,
                          const ErrorTypeRegistry& errorTypes, const std::string& source) {
  try {
    return readOptions(parseJson(json), registry, errorTypes);
  } catch (const Error& e) {
    throw Error(e.code(), source + ": " + detail::config::errorText(e));
  }
}

}  // namespace

ConsumerOptions parseConsumerOptions(std::string_view json, const BackoffRegistry& registry,
                                     const ErrorTypeRegistry& errorTypes) {
  return parseFrom(json, registry, errorTypes, "consumer options");
}

ConsumerOptions loadConsumerOptions(const std::filesystem::path& file,
                                    const BackoffRegistry& registry,
                                    const ErrorTypeRegistry& errorTypes) {
  std::error_code status;
  if (std::filesystem::is_directory(file, status)) {
    throw Error(errc::invalid_argument,
                "cannot read consumer options file '" + file.string() + "': it is a directory");
  }
  std::ifstream in(file, std::ios::binary);
  std::ostringstream content;
  if (in) content << in.rdbuf();
  if (!in || in.bad()) {
    int cause = errno;
    throw Error(errc::invalid_argument, "cannot read consumer options file '" + file.string() +
                                            "': " + std::generic_category().message(cause));
  }
  return parseFrom(content.str(), registry, errorTypes,
                   "consumer options file '" + file.string() + "'");
}

}  // namespace reconsume
