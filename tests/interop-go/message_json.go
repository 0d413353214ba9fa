package main

import (
	"encoding/base64"

	"github.com/apache/pulsar-client-go/pulsar"
)

// messageLine is how a received message is printed: everything a C++ test compares.
func messageLine(index int, message pulsar.Message) line {
	l := event("message").with("index", index).with("topic", message.Topic())
	withID(l, message.ID())
	properties := message.Properties()
	if properties == nil {
		properties = map[string]string{}
	}
	var eventTime int64
	if !message.EventTime().IsZero() {
		eventTime = message.EventTime().UnixMilli()
	}
	return l.with("key", optional(message.Key())).
		with("orderingKey", optional(message.OrderingKey())).
		with("payload", string(message.Payload())).
		with("payloadBase64", base64.StdEncoding.EncodeToString(message.Payload())).
		with("properties", properties).
		with("redeliveryCount", message.RedeliveryCount()).
		with("publishTime", message.PublishTime().UnixMilli()).
		with("eventTime", eventTime)
}

// withID adds "messageId" (the Go client's own text form, "ledger:entry:partition" without the
// batch index; partition 0 on a topic that is not partitioned, where Java prints -1) and its
// parts. batchIndex is -1 outside a batch entry.
func withID(l line, id pulsar.MessageID) line {
	return l.with("messageId", id.String()).
		with("ledgerId", id.LedgerID()).
		with("entryId", id.EntryID()).
		with("partition", id.PartitionIdx()).
		with("batchIndex", id.BatchIdx()).
		with("batchSize", id.BatchSize())
}

// optional is nil (JSON null) for the empty string: the Go client gives "" for no key.
func optional(text string) any {
	if text == "" {
		return nil
	}
	return text
}
