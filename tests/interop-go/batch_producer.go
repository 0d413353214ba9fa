package main

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/pulsar-client-go/pulsar"
)

var batchProducerOptionNames = []string{"topic", "count", "keys"}

// batchProducer sends --count keyed messages ("key-<i % keys>", "message-<i>") asynchronously
// through a producer with the Go client's defaults (batching on: 10 ms, 1,000 messages, 128 KiB),
// flushes, and prints the id of each once all are confirmed.
func batchProducer(ctx context.Context, client pulsar.Client, opts options) error {
	topic, err := opts.required("topic")
	if err != nil {
		return err
	}
	count, err := opts.integer("count", 10, 0)
	if err != nil {
		return err
	}
	keys, err := opts.integer("keys", 1, 1)
	if err != nil {
		return err
	}
	sendTimeout := time.Second
	if deadline, ok := ctx.Deadline(); ok {
		sendTimeout = max(time.Until(deadline), time.Millisecond)
	}
	producer, err := client.CreateProducer(pulsar.ProducerOptions{Topic: topic, SendTimeout: sendTimeout})
	if err != nil {
		return err
	}
	defer producer.Close()

	type result struct {
		id  pulsar.MessageID
		err error
	}
	results := make([]chan result, count)
	for i := range results {
		results[i] = make(chan result, 1)
		done := results[i]
		producer.SendAsync(ctx, &pulsar.ProducerMessage{
			Key:     fmt.Sprintf("key-%d", int64(i)%keys),
			Payload: []byte(fmt.Sprintf("message-%d", i)),
		}, func(id pulsar.MessageID, _ *pulsar.ProducerMessage, err error) {
			done <- result{id, err}
		})
	}
	if err := producer.FlushWithCtx(ctx); err != nil {
		return err
	}
	for i, done := range results {
		var sent result
		select {
		case sent = <-done:
		case <-ctx.Done():
			return timeoutError{fmt.Sprintf("%d of %d sends were confirmed in time", i, count)}
		}
		if sent.err != nil {
			return fmt.Errorf("message-%d: %w", i, sent.err)
		}
		printLine(withID(event("sent").with("index", i).
			with("key", fmt.Sprintf("key-%d", int64(i)%keys)).
			with("payload", fmt.Sprintf("message-%d", i)), sent.id))
	}
	return nil
}
