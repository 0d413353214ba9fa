// A consumer's acknowledgements inside a transaction: the subscription is registered with the
// transaction (once per topic and subscription), then one ACK per message, carrying the
// transaction's id and a request id, is sent once the consumer is subscribed; its ACK_RESPONSE
// completes it (TransactionConflict: errc::transaction_conflict). They do not join the burst of
// plain acknowledgements, nor the BatchAcks bookkeeping: until the transaction commits they are
// pending, and an abort makes the messages available again.
#include <boost/asio/post.hpp>

#include "protocol/commands.hpp"
#include "protocol/message_id.hpp"
#include "pulsar/pulsar_consumer.hpp"
#include "pulsar/pulsar_transaction.hpp"

namespace reconsume::detail::pulsar {

namespace asio = boost::asio;

namespace {

// A batch message's ack_set, as the Java client sends it: every index of the batch still
// unacknowledged (bit set) except this one.
std::vector<std::int64_t> ackSetForIndex(int batchSize, int index) {
  std::vector<std::uint64_t> words((static_cast<std::size_t>(batchSize) + 63) / 64, 0);
  for (int i = 0; i < batchSize; ++i) {
    if (i != index) words[static_cast<std::size_t>(i / 64)] |= std::uint64_t{1} << (i % 64);
  }
  return {words.begin(), words.end()};
}

}  // namespace

void PulsarConsumer::acknowledge(const MessageData& message,
                                 const std::shared_ptr<client::BackendTransaction>& transaction,
                                 BackendCallback<> done) {
  auto txn = PulsarTransaction::from(transaction);
  if (!txn) {
    return done(Status(
        errc::invalid_argument,
        "acknowledgement on " + spec_.topic + ": the transaction is not one of this client's"));
  }
  auto status = txn->begin("acknowledgement of " + message.id.toString() + " on " + spec_.topic);
  if (!status.ok()) return done(status);
  Callback<> finish = [txn, done = std::move(done)](const Status& status) {
    txn->finished(status);
    done(status);
  };
  auto tracker = std::static_pointer_cast<protocol::BatchAckTracker>(message.backendState);
  int batchSize = message.id.batchSize() > 0 ? message.id.batchSize()
                  : tracker                  ? tracker->batchSize()
                                             : 0;
  txn->registerSubscription(
      spec_.topic, spec_.subscription,
      [self = shared_from_this(), id = message.id, batchSize, txnId = txn->id(),
       finish](const Status& status) {
        if (!status.ok()) return finish(status);
        asio::post(self->strand_, [self, id, batchSize, txnId, finish] {
          self->whenReady([self, id, batchSize, txnId, finish](const Status& status) {
            if (!status.ok()) return finish(status);
            self->sendTransactionalAck(id, batchSize, txnId, finish);
          });
        });
      });
}

void PulsarConsumer::sendTransactionalAck(const MessageId& id, int batchSize, const TxnId& txn,
                                          Callback<> done) {
  const auto& connection = attachment_.connection();
  auto requestId = connection->newRequestId();
  proto::BaseCommand command;
  if (id.batchIndex() >= 0 && batchSize > 0) {
    auto ackSet = ackSetForIndex(batchSize, id.batchIndex());
    command = protocol::ack(attachment_.id(), txn, requestId, id, ackSet);
    // The broker's pending-ack store counts a batch's messages by it.
    command.mutable_ack()->mutable_message_id(0)->set_batch_size(batchSize);
  } else {
    command = protocol::ack(attachment_.id(), txn, requestId, id);
  }
  requestAck(requestId, command,
             "ACK " + id.toString() + " in transaction " + txn.toString() + " on " + spec_.topic +
                 " (subscription '" + spec_.subscription + "')",
             std::move(done));
}

}  // namespace reconsume::detail::pulsar
