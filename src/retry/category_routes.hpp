// Routing by error (SPEC.md section 1): which retry policy and which dead-letter topic the failures
// of a category use — the category's own, else the consumer's.
//
// Thread safety: choose may be called from several threads at once; close once.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "client/client_impl.hpp"
#include "reconsume/consumer_options.hpp"
#include "retry/lazy_producer.hpp"

namespace reconsume::detail::retry {

class CategoryRoutes {
 public:
  // `options` checked and canonical; `deadLetters` the consumer's dead-letter producer, which a
  // category naming the same topic shares: one producer per topic.
  CategoryRoutes(const ConsumerOptions& options, const std::shared_ptr<client::ClientImpl>& client,
                 std::shared_ptr<LazyProducer> deadLetters);

  struct Choice {
    const RetryPolicy* policy = nullptr;  // null: no policy at all (deadLetterAtOnce, or an error)
    bool deadLetterAtOnce = false;
    std::shared_ptr<LazyProducer> deadLetters;
  };
  Choice choose(const std::optional<std::string>& category) const;
  // Whether any policy exists: the consumer's, or a category's.
  bool hasAnyPolicy() const;
  // Closes the categories' own dead-letter producers (not the consumer's).
  void close(Callback<> done);

 private:
  std::optional<RetryPolicy> policy_;
  std::map<std::string, CategoryPolicy, std::less<>> categories_;
  std::shared_ptr<LazyProducer> deadLetters_;
  std::map<std::string, std::shared_ptr<LazyProducer>> deadLettersByTopic_;
};

}  // namespace reconsume::detail::retry
