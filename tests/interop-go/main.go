// Command reconsume-interop-go drives the official Go client (github.com/apache/pulsar-client-go)
// from reconsume's C++ interop tests (tests/integration/go_interop.hpp). One command per run;
// every event is a JSON line on stdout; the client's logs go to stderr. Exit codes: 0 done,
// 1 failed or timed out (the "error" line says which), 2 usage error. --timeout-ms (default
// 30000) bounds the whole run.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/apache/pulsar-client-go/pulsar"
)

const (
	exitDone   = 0
	exitFailed = 1
	exitUsage  = 2
)

const usage = `usage: reconsume-interop-go <command> --url U [options]
  retry-participant --topic T --subscription S --max-redeliver N --receive K
      --then ack|retry|nack [--delay-ms D] [--nack-delay-ms D]
      [--type shared|exclusive|failover|key_shared] [--retry-topic R]
      [--dead-letter-topic D] [--initial-subscription I]
  consume --topic T --subscription S --count K [--type ...] [--ack true|false]
  batch-producer --topic T --count N [--keys K]
common: [--timeout-ms M] [--initial-position earliest|latest] [--ca ca.pem]
      [--verify-hostname] [--token T | --token-file F]`

type command struct {
	run     func(ctx context.Context, client pulsar.Client, opts options) error
	options []string
}

var commands = map[string]command{
	"retry-participant": {retryParticipant, retryParticipantOptionNames},
	"consume":           {consume, consumeOptionNames},
	"batch-producer":    {batchProducer, batchProducerOptionNames},
}

func main() {
	name := ""
	if len(os.Args) > 1 {
		name = os.Args[1]
	}
	os.Exit(run(name, os.Args[min(2, len(os.Args)):]))
}

func run(name string, args []string) int {
	err := runCommand(name, args)
	var usageErr usageError
	var timeout timeoutError
	switch {
	case err == nil:
		printLine(event("done").with("command", name))
		return exitDone
	case errors.As(err, &usageErr):
		printLine(event("error").with("command", name).with("error", "usage").with("message", err.Error()))
		fmt.Fprintf(os.Stderr, "%s\n%s\n", err, usageText)
		return exitUsage
	case errors.As(err, &timeout):
		printLine(event("error").with("command", name).with("error", "timeout").with("message", err.Error()))
		return exitFailed
	default:
		printLine(event("error").with("command", name).with("error", "failed").
			with("type", fmt.Sprintf("%T", err)).with("message", err.Error()))
		fmt.Fprintln(os.Stderr, err)
		return exitFailed
	}
}

var usageText = usage

func runCommand(name string, args []string) error {
	cmd, ok := commands[name]
	if !ok {
		if name == "" {
			return usagef("no command")
		}
		return usagef("unknown command '%s'", name)
	}
	known := map[string]bool{"initial-position": true}
	for _, option := range append(clientOptionNames, cmd.options...) {
		known[option] = true
	}
	opts, err := parseOptions(args, known)
	if err != nil {
		return err
	}
	timeoutMs, err := opts.integer("timeout-ms", 30_000, 1)
	if err != nil {
		return err
	}
	timeout := time.Duration(timeoutMs) * time.Millisecond
	ctx, cancel := runDeadline(name, timeout)
	defer cancel()
	client, err := newClient(opts, timeout)
	if err != nil {
		return err
	}
	defer client.Close()
	return cmd.run(ctx, client, opts)
}
