#include "retry/lazy_producer.hpp"

namespace reconsume::detail::retry {

void LazyProducer::get(Callback<std::shared_ptr<client::ProducerImpl>> done) {
  const bool queue = client_->io().get_executor().running_in_this_thread();
  std::unique_lock lock(mutex_);
  std::uint64_t attempt = 0;  // the creation this use waits for, once it waits
  for (;;) {
    if (closed_.load(std::memory_order_relaxed)) {
      lock.unlock();
      return done(Status(errc::closed, "the producer for " + options_.topic + " is closed"),
                  nullptr);
    }
    if (ready_.load(std::memory_order_relaxed)) {  // made, and its queued uses answered
      auto producer = producer_;
      lock.unlock();
      return done({}, producer);
    }
    if (attempt != 0 && failedAttempt_ >= attempt) {
      auto why = failure_;
      lock.unlock();
      return done(why, nullptr);
    }
    if (attempt == 0) {
      const bool start = !creating_;
      if (start) {
        creating_ = true;
        ++attempts_;
      }
      attempt = attempts_;
      if (queue) waiting_.push_back(std::move(done));
      if (start) {
        lock.unlock();
        create();  // may answer inside
        if (queue) return;
        lock.lock();
        continue;
      }
      if (queue) return;
    }
    settled_.wait(lock);
  }
}

void LazyProducer::create() {
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
      producer_ = producer;  // close() closes it from now on; ready_ waits for the queued uses
    } else {
      creating_ = false;  // a failure: the next use tries again
      if (!status.ok()) {
        failedAttempt_ = attempts_;
        failure_ = status;
      }
    }
    waiting.swap(waiting_);
  }
  if (!status.ok() || closedMeanwhile) settled_.notify_all();
  if (status.ok() && closedMeanwhile) producer->close([](const Status&) {});
  for (;;) {
    for (auto& callback : waiting) callback(status, producer);
    if (!status.ok() || closedMeanwhile) return;
    waiting.clear();
    {
      std::lock_guard lock(mutex_);
      if (waiting_.empty()) {
        creating_ = false;
        ready_.store(producer.get(), std::memory_order_release);
        break;
      }
      waiting.swap(waiting_);  // came while those ran: they go next, in their order
    }
  }
  settled_.notify_all();
}

void LazyProducer::close(Callback<> done) {
  std::shared_ptr<client::ProducerImpl> producer;
  {
    std::lock_guard lock(mutex_);
    closed_.store(true, std::memory_order_release);
    producer = producer_;  // kept: a move that got it from created() may still be sending
  }
  settled_.notify_all();  // a use waiting in get() is refused
  if (producer) return producer->close(std::move(done));
  done({});
}

}  // namespace reconsume::detail::retry
