package main

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/pulsar-client-go/pulsar"
)

var retryParticipantOptionNames = []string{"topic", "subscription", "max-redeliver", "receive",
	"then", "delay-ms", "nack-delay-ms", "type", "initial-position", "retry-topic",
	"dead-letter-topic", "initial-subscription"}

// retryParticipant is a consumer with the Go client's retry on (RetryEnable and a DLQPolicy):
// the client subscribes to the topic and to its retry topic itself. It receives --receive
// messages and does --then with each: ack, retry (ReconsumeLater with --delay-ms) or nack; then it
// waits until each of them is settled (acknowledged, or sent back for redelivery).
//
// What the Go client (v0.19.0) does, from its source (pulsar/consumer_impl.go, retry_router.go,
// dlq_router.go):
//   - retry topic "<topic>-<subscription>-RETRY", dead-letter topic "<topic>-<subscription>-DLQ",
//     <topic> the full name without "-partition-N"; the legacy "<domain>://<tenant>/<namespace>/
//     <subscription>-RETRY" and "-DLQ" are used instead when they exist as partitioned topics.
//     The names Java derives, and ours (SPEC.md §3).
//   - the retry topic is subscribed under the same subscription name and with the same
//     subscription type as the topic (Java and we always use Shared there).
//   - ReconsumeLater copies the properties, key, ordering key and event time; writes
//     RECONSUMETIMES (1, or the value it found + 1) and DELAY_TIME (ms); and, only when the
//     message had no RECONSUMETIMES, REAL_TOPIC (the message's topic, with "-partition-N" when
//     partitioned), ORIGIN_MESSAGE_ID and ORIGIN_MESSAGE_IDY_TIME, both "ledger:entry:partition"
//     without the batch index, partition 0 on a topic that is not partitioned. No
//     REAL_SUBSCRIPTION (Java writes it).
//   - it dead-letters instead when the new RECONSUMETIMES exceeds MaxDeliveries (Java's
//     maxRedeliverCount, our maxRetries), with the same properties and no delivery delay; a
//     message delivered MaxDeliveries times or more (redelivery count) is dead-lettered on
//     arrival, without reaching the application.
//   - retry and dead-letter producers use LZ4 and batching; copies with a delay are sent as
//     entries of their own.
func retryParticipant(ctx context.Context, client pulsar.Client, opts options) error {
	topic, err := opts.required("topic")
	if err != nil {
		return err
	}
	subscription, err := opts.required("subscription")
	if err != nil {
		return err
	}
	maxRedeliver, err := opts.integer("max-redeliver", pulsar.MaxReconsumeTimes, 1)
	if err != nil {
		return err
	}
	receive, err := opts.integer("receive", 1, 1)
	if err != nil {
		return err
	}
	then, err := opts.required("then")
	if err != nil {
		return err
	}
	if then != "ack" && then != "retry" && then != "nack" {
		return usagef("--then '%s' is not ack, retry or nack", then)
	}
	delayMs, err := opts.integer("delay-ms", 1000, 0)
	if err != nil {
		return err
	}
	nackDelayMs, err := opts.integer("nack-delay-ms", 1000, 1)
	if err != nil {
		return err
	}
	subType, subTypeName, err := subscriptionType(opts)
	if err != nil {
		return err
	}
	position, err := initialPosition(opts)
	if err != nil {
		return err
	}

	policy := &pulsar.DLQPolicy{
		MaxDeliveries:           uint32(maxRedeliver),
		RetryLetterTopic:        opts.text("retry-topic", ""),
		DeadLetterTopic:         opts.text("dead-letter-topic", ""),
		InitialSubscriptionName: opts.text("initial-subscription", ""),
	}
	settled := newSettledMessages()
	consumer, err := client.Subscribe(pulsar.ConsumerOptions{
		Topic:                       topic,
		SubscriptionName:            subscription,
		Type:                        subType,
		SubscriptionInitialPosition: position,
		RetryEnable:                 true,
		DLQ:                         policy,
		NackRedeliveryDelay:         time.Duration(nackDelayMs) * time.Millisecond,
		Interceptors:                pulsar.ConsumerInterceptors{settled},
		// Each acknowledgement, also of a message whose batch entry still holds unacknowledged
		// ones, goes to the broker and reaches the interceptor; the Go client otherwise holds
		// it back until the whole entry is acknowledged (the test broker enables
		// acknowledgmentAtBatchIndexLevelEnabled). Acknowledgements are not asked to wait for
		// the broker's answer (AckWithResponse): the retry router acknowledges from the
		// callback of its send, on the connection's reader, which that wait would block.
		EnableBatchIndexAcknowledgment: true,
	})
	if err != nil {
		return err
	}
	// Closing flushes the acknowledgements the client groups, before CLOSE_CONSUMER on the same
	// connection, so the broker has them once Close returns.
	defer consumer.Close()
	// Subscribe filled in the retry and dead-letter topic names the client derived.
	printLine(event("subscribed").with("topic", topic).with("subscription", subscription).
		with("subscriptionType", subTypeName).with("retryTopic", policy.RetryLetterTopic).
		with("deadLetterTopic", policy.DeadLetterTopic).with("maxDeliveries", policy.MaxDeliveries).
		with("initialSubscriptionName", policy.InitialSubscriptionName))

	var ids []pulsar.MessageID
	for i := 0; i < int(receive); i++ {
		message, err := consumer.Receive(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return timeoutError{fmt.Sprintf("received %d of %d messages in time", i, receive)}
			}
			return err
		}
		printLine(messageLine(i, message))
		switch then {
		case "ack":
			err = consumer.Ack(message)
		case "retry":
			consumer.ReconsumeLater(message, time.Duration(delayMs)*time.Millisecond)
		case "nack":
			consumer.Nack(message)
		}
		if err != nil {
			return err
		}
		ids = append(ids, message.ID())
		printLine(withID(event("action").with("index", i).with("action", then), message.ID()))
	}
	if then == "nack" {
		return settled.waitNegativelyAcknowledged(ctx, ids)
	}
	return settled.waitAcknowledged(ctx, ids)
}
