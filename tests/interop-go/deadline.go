package main

import (
	"context"
	"fmt"
	"os"
	"time"
)

// watchdogGrace is the time a run gets past its deadline for a bounded wait to report itself
// before the watchdog ends the process.
const watchdogGrace = 5 * time.Second

// timeoutError: the run did not finish within --timeout-ms.
type timeoutError struct{ message string }

func (e timeoutError) Error() string { return e.message }

// runDeadline bounds a whole command: its context ends at the deadline, and a watchdog ends the
// process a little later if something ignores the context (a producer the client retries to
// create forever, a close), so that no run can hang a test.
func runDeadline(command string, timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	go func() {
		time.Sleep(timeout + watchdogGrace)
		printLine(event("error").with("command", command).with("error", "timeout").
			with("message", fmt.Sprintf("%s did not finish within %d ms", command, timeout.Milliseconds())))
		os.Exit(exitFailed)
	}()
	return ctx, cancel
}
