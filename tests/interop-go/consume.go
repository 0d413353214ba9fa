package main

import (
	"context"
	"fmt"

	"github.com/apache/pulsar-client-go/pulsar"
)

var consumeOptionNames = []string{"topic", "subscription", "count", "type", "initial-position", "ack"}

// consume receives --count messages with a plain consumer, prints and acknowledges each (--ack
// false leaves them unacknowledged). --count 0 only creates the subscription.
func consume(ctx context.Context, client pulsar.Client, opts options) error {
	topic, err := opts.required("topic")
	if err != nil {
		return err
	}
	subscription, err := opts.required("subscription")
	if err != nil {
		return err
	}
	count, err := opts.integer("count", 1, 0)
	if err != nil {
		return err
	}
	ack := opts.text("ack", "true")
	if ack != "true" && ack != "false" {
		return usagef("--ack '%s' is not true or false", ack)
	}
	subType, _, err := subscriptionType(opts)
	if err != nil {
		return err
	}
	position, err := initialPosition(opts)
	if err != nil {
		return err
	}
	consumer, err := client.Subscribe(pulsar.ConsumerOptions{
		Topic:                       topic,
		SubscriptionName:            subscription,
		Type:                        subType,
		SubscriptionInitialPosition: position,
		// Ack returns once the broker has the acknowledgement of the entry (the Go client sends
		// an entry's once all its messages are acknowledged).
		AckWithResponse: true,
	})
	if err != nil {
		return err
	}
	defer consumer.Close()
	printLine(event("subscribed").with("topic", topic).with("subscription", subscription))
	for i := 0; i < int(count); i++ {
		message, err := consumer.Receive(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return timeoutError{fmt.Sprintf("received %d of %d messages in time", i, count)}
			}
			return err
		}
		printLine(messageLine(i, message))
		if ack == "true" {
			if err := consumer.Ack(message); err != nil {
				return err
			}
		}
	}
	return nil
}
