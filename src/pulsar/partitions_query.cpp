#include "pulsar/partitions_query.hpp"

#include <boost/asio/strand.hpp>

#include "common/steady_clock.hpp"
#include "pulsar/retry_budget.hpp"

namespace reconsume::detail::pulsar {
namespace {

class PartitionsQuery : public std::enable_shared_from_this<PartitionsQuery> {
 public:
  PartitionsQuery(std::shared_ptr<Network> network, std::string topic, MetadataCreation creation,
                  Callback<int> done)
      : network_(std::move(network)),
        topic_(std::move(topic)),
        creation_(creation),
        done_(std::move(done)),
        budget_(Backoff(network_->options->backoff)),
        timer_(boost::asio::make_strand(network_->executor), network_->clock()) {
    budget_.bound(network_->clock()->now() + network_->operationTimeout());
  }

  void attempt() {
    auto left = budget_.left(network_->clock()->now(), network_->operationTimeout());
    network_->lookup->partitions(topic_, left, creation_,
                                 [self = shared_from_this()](const Status& status, int count) {
                                   self->answered(status, count);
                                 });
  }

 private:
  void answered(const Status& status, int count) {
    if (status.ok()) return done_({}, count);
    auto wait = budget_.next(status, network_->clock()->now());
    if (!wait || network_->closed) return done_(status, 0);
    timer_.expiresAfter(*wait);
    timer_.asyncWait([self = shared_from_this()](boost::system::error_code) {
      if (self->network_->closed)
        return self->done_(Status(errc::closed, "the client is closed"), 0);
      self->attempt();
    });
  }

  std::shared_ptr<Network> network_;
  std::string topic_;
  MetadataCreation creation_;
  Callback<int> done_;
  RetryBudget budget_;
  Timer timer_;
};

}  // namespace

void queryPartitions(std::shared_ptr<Network> network, std::string topic, MetadataCreation creation,
                     Callback<int> done) {
  std::make_shared<PartitionsQuery>(std::move(network), std::move(topic), creation, std::move(done))
      ->attempt();
}

}  // namespace reconsume::detail::pulsar
