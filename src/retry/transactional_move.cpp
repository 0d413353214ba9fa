// reconsumeLater and deadLetter in transactional mode (ConsumerOptions::transactionalRetry): the
// new message is published and the original acknowledged in one transaction, which commits at
// the end. Any failure before the commit aborts it (the copy is discarded, the acknowledgement
// released); whatever happens, the message is in exactly one place (SPEC.md section 1).
#include "client/transaction_impl.hpp"
#include "retry/reconsumer.hpp"

namespace reconsume::detail::retry {

namespace {

struct Move {
  std::shared_ptr<client::ConsumerImpl> consumer;
  Message message;
  std::string target;
  Callback<> done;
  std::shared_ptr<client::BackendTransaction> transaction;

  std::string what() const {
    return "moving message " + message.id().toString() + " to " + target +
           (transaction ? " in transaction " + transaction->id().toString() : "");
  }

  // Aborts what was begun, gives the message back and reports. A negative acknowledgement of a
  // message the transaction's abort already made available again changes nothing.
  void fail(const std::string& step, const Status& why, bool abort = true) const {
    if (transaction && abort) {
      transaction->abort([log = consumer->client().log(), what = what()](const Status& status) {
        if (!status.ok()) log.debug(what + ": the abort failed: " + status.message);
      });
    }
    consumer->negativeAcknowledge(message);
    done(Status(why.code, what() + ": " + step + " failed: " + why.message));
  }
};

}  // namespace

void Reconsumer::moveInTransaction(const Message& message, OutgoingData outgoing,
                                   std::shared_ptr<LazyProducer> producer, Callback<> done) {
  auto move =
      std::make_shared<Move>(Move{consumer_, message, producer->topic(), std::move(done), nullptr});
  auto& client = consumer_->client();
  client.backend().newTransaction(
      client.options().operationTimeout,
      [move, producer, outgoing = std::move(outgoing)](
          const Status& begun, std::shared_ptr<client::BackendTransaction> transaction) {
        if (!begun.ok()) return move->fail("beginning the transaction", begun);
        move->transaction = std::move(transaction);
        producer->get([move, outgoing](const Status& status,
                                       std::shared_ptr<client::ProducerImpl> producer) {
          if (!status.ok()) return move->fail("creating the producer", status);
          producer->send(
              outgoing,
              [move](const Status& sent, const MessageId&) {
                if (!sent.ok()) return move->fail("publishing", sent);
                move->consumer->acknowledge(
                    move->message, move->transaction, [move](const Status& acked) {
                      if (!acked.ok()) return move->fail("acknowledging the original", acked);
                      client::commitTransaction(move->transaction, [move](const Status& committed) {
                        if (committed.ok()) return move->done({});
                        // Refused: the coordinator aborted it. Unknown: committed, or aborted
                        // by its timeout. Either way there is nothing left to abort.
                        move->fail("committing", committed, false);
                      });
                    });
              },
              move->transaction);
        });
      });
}

}  // namespace reconsume::detail::retry
