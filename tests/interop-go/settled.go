package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/apache/pulsar-client-go/pulsar"
)

// settledMessages is a consumer interceptor that records which messages were acknowledged and
// which entries were negatively acknowledged, so that a command can wait for its messages to be
// settled before it closes the consumer.
//
// ReconsumeLater returns before anything happened: the Go client hands the copy to a goroutine
// that sends it to the retry (or dead-letter) topic and acknowledges the original only once the
// send succeeded. Exiting before that would lose the retry, and the client offers no other
// signal of it than this acknowledgement.
type settledMessages struct {
	lock    sync.Mutex
	changed chan struct{} // closed and replaced on every change
	acked   map[string]bool
	nacked  map[string]bool
}

func newSettledMessages() *settledMessages {
	return &settledMessages{changed: make(chan struct{}), acked: map[string]bool{},
		nacked: map[string]bool{}}
}

// messageKey names one message: ledger ids are unique in a cluster, so no topic is needed.
func messageKey(id pulsar.MessageID) string {
	return fmt.Sprintf("%d:%d:%d", id.LedgerID(), id.EntryID(), id.BatchIdx())
}

// entryKey names an entry: the Go client negatively acknowledges whole entries.
func entryKey(id pulsar.MessageID) string {
	return fmt.Sprintf("%d:%d", id.LedgerID(), id.EntryID())
}

func (s *settledMessages) BeforeConsume(pulsar.ConsumerMessage) {}

func (s *settledMessages) OnAcknowledge(_ pulsar.Consumer, id pulsar.MessageID) {
	s.record(func() { s.acked[messageKey(id)] = true })
}

func (s *settledMessages) OnNegativeAcksSend(_ pulsar.Consumer, ids []pulsar.MessageID) {
	s.record(func() {
		for _, id := range ids {
			s.nacked[entryKey(id)] = true
		}
	})
}

func (s *settledMessages) record(change func()) {
	s.lock.Lock()
	defer s.lock.Unlock()
	change()
	close(s.changed)
	s.changed = make(chan struct{})
}

// waitAcknowledged returns once every id is acknowledged, or an error when ctx ends first.
func (s *settledMessages) waitAcknowledged(ctx context.Context, ids []pulsar.MessageID) error {
	return s.wait(ctx, "acknowledged", func() int {
		count := 0
		for _, id := range ids {
			if s.acked[messageKey(id)] {
				count++
			}
		}
		return count
	}, len(ids))
}

// waitNegativelyAcknowledged returns once the entry of every id was sent back for redelivery.
func (s *settledMessages) waitNegativelyAcknowledged(ctx context.Context, ids []pulsar.MessageID) error {
	return s.wait(ctx, "negatively acknowledged", func() int {
		count := 0
		for _, id := range ids {
			if s.nacked[entryKey(id)] {
				count++
			}
		}
		return count
	}, len(ids))
}

func (s *settledMessages) wait(ctx context.Context, what string, count func() int, want int) error {
	for {
		s.lock.Lock()
		have := count()
		changed := s.changed
		s.lock.Unlock()
		if have >= want {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return timeoutError{fmt.Sprintf("%d of %d messages were %s in time", have, want, what)}
		}
	}
}
