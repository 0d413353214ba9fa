#include "retry/lazy_producer.hpp"

namespace reconsume::detail::retry {

void LazyProducer::get(Callback<std::shared_ptr<client::ProducerImpl>> done) {
  std::shared_ptr<client::ProducerImpl> ready;
  bool closed = false, startCreating = false;
  {
    std::lock_guard lock(mutex_);
    if (closed_.load(std::memory_order_relaxed)) {
      closed = true;
    } else if (ready_.load(std::memory_order_relaxed)) {  // made, and its first uses answered
      ready = producer_;
    } else {
      waiting_.push_back(std::move(done));
      startCreating = !creating_;
      creating_ = true;
    }
  }
  if (closed) {
    return done(Status(errc::closed, "the producer for " + options_.topic + " is closed"), nullptr);
  }
  if (ready) return done({}, ready);
  if (!startCreating) return;
  client::ProducerImpl::create(
      client_, options_,
      [self = shared_from_this()](const Status& status,
                                  std::shared_ptr<client::ProducerImpl> producer) {
        self->answer(status, std::move(producer));
      });
}

void LazyProducer::answer(const Status& status, std::shared_ptr<client::ProducerImpl> producer) {
  std::vector<Callback<std::shared_ptr<client::ProducerImpl>>> waiting;
  bool closedMeanwhile;
  {
    std::lock_guard lock(mutex_);
    closedMeanwhile = closed_.load(std::memory_order_relaxed);
    if (status.ok() && !closedMeanwhile) {
      producer_ = producer;  // close() closes it from now on; ready_ waits for the uses
    } else {
      creating_ = false;  // a failure: the next use tries again
    }
    waiting.swap(waiting_);
  }
  if (status.ok() && closedMeanwhile) producer->close([](const Status&) {});
  for (;;) {
    for (auto& callback : waiting) callback(status, producer);
    if (!status.ok() || closedMeanwhile) return;
    waiting.clear();
    std::lock_guard lock(mutex_);
    if (waiting_.empty()) {
      creating_ = false;
      ready_.store(producer.get(), std::memory_order_release);
      return;
    }
    waiting.swap(waiting_);  // came while those ran: they go next, in their order
  }
}

void LazyProducer::close(Callback<> done) {
  std::shared_ptr<client::ProducerImpl> producer;
  {
    std::lock_guard lock(mutex_);
    closed_.store(true, std::memory_order_release);
    producer = producer_;  // kept: a move that got it from created() may still be sending
  }
  if (producer) return producer->close(std::move(done));
  done({});
}

}  // namespace reconsume::detail::retry
