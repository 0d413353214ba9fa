#include "admin/http_admin.hpp"

#include <algorithm>
#include <map>

#include "admin/admin_json.hpp"
#include "admin/admin_paths.hpp"
#include "admin/http_status.hpp"
#include "admin/http_transport.hpp"
#include "common/topic_name.hpp"
#include "reconsume/error.hpp"

namespace reconsume::detail::admin {
namespace {

using boost::beast::http::verb;

class HttpAdmin final : public client::AdminBackend {
 public:
  HttpAdmin(const ServiceUrl& url, const AdminOptions& options)
      : endpoint_(Endpoint::of(url)),
        transport_(options.tls, options.token),
        timeout_(options.timeout) {}

  void createPartitionedTopic(const std::string& topic, int partitions) override {
    TopicName name = TopicName::parse(topic);
    if (partitions < 1) {
      throw Error(errc::invalid_argument, "cannot create topic '" + topic + "' with " +
                                              std::to_string(partitions) +
                                              " partitions: at least 1 is needed");
    }
    call(verb::put, topicPath(name, "/partitions"), std::to_string(partitions));
  }

  int partitions(const std::string& topic) override {
    // checkAllowAutoCreation=false: asking must never create the topic.
    std::string path =
        topicPath(TopicName::parse(topic), "/partitions?checkAllowAutoCreation=false");
    Response response = send(verb::get, path);
    // Pulsar 4 answers 404 for a topic that does not exist (3.x answered 0 partitions).
    if (response.status == 404) return 0;
    check(verb::get, path, response);
    return parsePartitions(response.body, "GET " + path);
  }

  bool topicExists(const std::string& topic) override {
    TopicName name = TopicName::parse(topic);
    if (name.partition() < 0 && partitions(topic) > 0) return true;
    // Non-partitioned topics and single partitions are in the namespace's list.
    std::string path = namespaceTopicsPath(name);
    auto topics = parseTopicList(call(verb::get, path), "GET " + path);
    return std::find(topics.begin(), topics.end(), name.toString()) != topics.end();
  }

  void terminateTopic(const std::string& topic) override {
    TopicName name = TopicName::parse(topic);
    int count = name.partition() < 0 ? partitions(topic) : 0;
    if (count == 0) {
      call(verb::post, topicPath(name, "/terminate"));
      return;
    }
    // Partitions come into being with their first producer or consumer; one that does not exist
    // yet could not be terminated and could later take messages, so create them all first.
    call(verb::post, topicPath(name, "/createMissedPartitions"));
    for (int i = 0; i < count; ++i) {
      call(verb::post, topicPath(name.partitionAt(i), "/terminate"));
    }
  }

  void deleteTopic(const std::string& topic) override {
    TopicName name = TopicName::parse(topic);
    bool partitioned = name.partition() < 0 && partitions(topic) > 0;
    call(verb::delete_, topicPath(name, partitioned ? "/partitions" : ""));
  }

  std::vector<SubscriptionStats> subscriptions(const std::string& topic) override {
    TopicName name = TopicName::parse(topic);
    std::map<std::string, std::int64_t> backlogs;
    // getPreciseBacklog: the broker counts the entries past each cursor's position instead of
    // estimating from counters of what was added and acknowledged (an estimate that can lag).
    if (name.partition() < 0 && partitions(topic) > 0) {
      std::string path =
          topicPath(name, "/partitioned-stats?perPartition=true&getPreciseBacklog=true");
      addPartitionedSubscriptionBacklogs(call(verb::get, path), "GET " + path, backlogs);
    } else {
      std::string path = topicPath(name, "/stats?getPreciseBacklog=true");
      addSubscriptionBacklogs(call(verb::get, path), "GET " + path, backlogs);
    }
    std::vector<SubscriptionStats> result;
    result.reserve(backlogs.size());
    for (auto& [subscription, backlog] : backlogs) result.push_back({subscription, backlog});
    return result;  // by name: std::map keeps them sorted
  }

  SubscriptionCursor cursor(const std::string& topic, const std::string& subscription) override {
    TopicName name = TopicName::parse(topic);
    if (name.partition() < 0) {
      if (int count = partitions(topic); count > 0) {
        throw Error(errc::invalid_argument,
                    "topic " + topic + " is partitioned (" + std::to_string(count) +
                        " partitions): ask for the cursor of each partition");
      }
    }
    // internalStats is Pulsar's ManagedLedger view: the cursors' positions, not just counts.
    std::string path = topicPath(name, "/internalStats");
    SubscriptionCursor cursor;
    if (!parseCursor(call(verb::get, path), "GET " + path, subscription, name.partition(),
                     cursor)) {
      throw Error(errc::not_found,
                  "topic " + topic + " has no subscription '" + subscription + "'");
    }
    return cursor;
  }

 private:
  // Sends one request; throws Error when no HTTP answer came (transport failure, timeout).
  Response send(verb method, const std::string& path, std::string body = {}) const {
    Request request;
    request.method = method;
    request.target = path;
    request.body = std::move(body);
    Response response;
    auto deadline = Transport::Clock::now() + timeout_;
    transport_.request(endpoint_, std::move(request), deadline, response).raiseIfFailed();
    return response;
  }

  // Throws Error for an answer outside 2xx.
  static void check(verb method, const std::string& path, const Response& response) {
    statusOf(boost::beast::http::to_string(method), path, response.status, response.reasonPhrase,
             response.body)
        .raiseIfFailed();
  }

  // Sends one request and returns the body of a 2xx answer; throws Error otherwise.
  std::string call(verb method, const std::string& path, std::string body = {}) const {
    Response response = send(method, path, std::move(body));
    check(method, path, response);
    return std::move(response.body);
  }

  Endpoint endpoint_;
  Transport transport_;
  std::chrono::milliseconds timeout_;
};

}  // namespace

std::shared_ptr<client::AdminBackend> connectHttpAdmin(const ServiceUrl& url,
                                                       const AdminOptions& options) {
  if (url.kind != ServiceUrl::Kind::http && url.kind != ServiceUrl::Kind::https) {
    throw Error(errc::invalid_argument,
                "admin URL '" + url.text + "' is not http:// or https:// (Pulsar's admin API)");
  }
  if (options.timeout <= std::chrono::milliseconds::zero()) {
    throw Error(errc::invalid_argument,
                "admin timeout " + std::to_string(options.timeout.count()) + " ms is not positive");
  }
  return std::make_shared<HttpAdmin>(url, options);
}

}  // namespace reconsume::detail::admin
