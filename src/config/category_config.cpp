#include "config/category_config.hpp"

#include "config/error_text.hpp"
#include "config/json_fields.hpp"
#include "reconsume/error.hpp"

namespace reconsume::detail::config {

std::map<std::string, CategoryPolicy> readCategories(const boost::json::object& object) {
  std::map<std::string, CategoryPolicy> categories;
  for (const auto& [key, value] : object) {
    std::string name(key);
    std::string path = "categories." + name;
    if (name.empty()) failJson("categories", value, "has a category with an empty name");
    if (!value.is_object()) failJson(path, value, "must be a JSON object");
    JsonFields fields(value.get_object(), path);
    CategoryPolicy category;
    if (const auto* retry = fields.object("retry")) {
      category.retry = readRetry(*retry, fields.pathOf("retry"));
    }
    category.deadLetter = fields.boolean("deadLetter").value_or(false);
    category.deadLetterTopic = fields.string("deadLetterTopic");
    fields.rejectUnknownKeys();
    if (category.retry && category.deadLetter) {
      throw Error(errc::invalid_argument,
                  path + " sets both 'retry' and 'deadLetter'; choose one of them");
    }
    categories.emplace(std::move(name), std::move(category));
  }
  return categories;
}

ErrorRules readErrorRules(const boost::json::array& rules,
                          const std::map<std::string, CategoryPolicy>& categories,
                          const ErrorTypeRegistry& errorTypes) {
  ErrorRules result;
  for (std::size_t i = 0; i < rules.size(); ++i) {
    std::string path = "errorRules[" + std::to_string(i) + "]";
    if (!rules[i].is_object()) failJson(path, rules[i], "must be a JSON object");
    JsonFields fields(rules[i].get_object(), path);
    auto type = fields.string("type");
    auto category = fields.string("category");
    fields.rejectUnknownKeys();
    if (!type) failJson(path, rules[i], "needs a \"type\" (an exception type name)");
    if (!category) failJson(path, rules[i], "needs a \"category\"");
    if (!categories.contains(*category)) {
      fields.fail("category", "is not one of the categories defined under \"categories\"");
    }
    try {
      errorTypes.addRule(result, *type, *category);
    } catch (const Error& e) {
      fields.fail("type", "is not known: " + errorText(e));
    }
  }
  return result;
}

}  // namespace reconsume::detail::config
