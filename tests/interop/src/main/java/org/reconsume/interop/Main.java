package org.reconsume.interop;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.pulsar.client.api.PulsarClient;

/**
 * The official Java client, driven from reconsume's C++ interop tests. One subcommand per run;
 * every event is a JSON line on stdout; logs go to stderr. Exit codes: 0 done, 1 failed,
 * 2 usage error, 124 timed out (--timeout-ms bounds the whole run, default 30000).
 */
public final class Main {
  private static final String USAGE = String.join("\n",
      "usage: java -jar reconsume-interop.jar <command> --url U [options]",
      "  retry-participant --topic T --subscription S --max-redeliver N --receive K",
      "      --then reconsume:<delayMs>|ack|none [--type shared|exclusive|failover|key_shared]",
      "      [--retry-topic R] [--dead-letter-topic D] [--initial-subscription I]",
      "  batch-producer --topic T --count N [--keys K]",
      "  consume --topic T --subscription S --count N [--type ...] [--ack true|false]",
      "  produce --topic T --count N [--property k=v]... [--key k] [--ordering-key k]",
      "      [--event-time ms] [--payload-prefix P] [--deliver-after-ms D]",
      "  perf [--messages N] [--size S] [--window W] [--rounds R] [--json]",
      "      (only --url of the common options; no --timeout-ms)",
      "common: [--timeout-ms M] [--initial-position earliest|latest] [--ca ca.pem]",
      "      [--verify-hostname] [--token T | --token-file F]");

  private interface Command {
    void run(PulsarClient client, Options options, Deadline deadline) throws Exception;
  }

  private Main() {}

  public static void main(String[] args) {
    // Before the first logger exists: the client's logs at warn and above, on stderr.
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
    // It warns, with a stack trace, about every legacy retry/DLQ name it probes and does not find.
    System.setProperty(
        "org.slf4j.simpleLogger.log.org.apache.pulsar.client.impl.BinaryProtoLookupService", "error");
    String name = args.length > 0 ? args[0] : "";
    int exitCode = run(name, args);
    System.exit(exitCode);
  }

  private static int run(String name, String[] args) {
    try {
      if (name.equals("perf")) {
        // Not a Command: perf builds its own client (one I/O thread, Java's defaults otherwise),
        // runs longer than a --timeout-ms watchdog would allow, and prints only its results.
        Options options = Options.parse(args, 1);
        options.rejectUnknown(Perf.OPTIONS);
        return Perf.run(options);
      }
      Command command;
      Set<String> known = new HashSet<>(Clients.OPTIONS);
      switch (name) {
        case "retry-participant" -> {
          command = RetryParticipant::run;
          known.addAll(RetryParticipant.OPTIONS);
        }
        case "batch-producer" -> {
          command = BatchProducer::run;
          known.addAll(BatchProducer.OPTIONS);
        }
        case "consume" -> {
          command = Consume::run;
          known.addAll(Consume.OPTIONS);
        }
        case "produce" -> {
          command = Produce::run;
          known.addAll(Produce.OPTIONS);
        }
        default -> throw new UsageError(name.isEmpty() ? "no command" : "unknown command '" + name + "'");
      }
      Options options = Options.parse(args, 1);
      options.rejectUnknown(known);
      long timeoutMs = options.number("timeout-ms", 30_000);
      if (timeoutMs <= 0) throw new UsageError("--timeout-ms '" + timeoutMs + "' must be positive");
      Deadline deadline = new Deadline(timeoutMs);
      deadline.startWatchdog(name);
      PulsarClient client = Clients.create(options, deadline);
      // Each command closes its producers and consumers, which flushes sends and acknowledgements.
      // Closing the client itself waits ~2 s for its event loops to quiesce; exiting does not.
      command.run(client, options, deadline);
      client.closeAsync();
      Output.print(Json.event("done").put("command", name));
      return 0;
    } catch (UsageError e) {
      Output.print(Json.event("error").put("command", name).put("error", "usage")
          .put("message", e.getMessage()));
      System.err.println(e.getMessage());
      System.err.println(USAGE);
      return 2;
    } catch (TimeoutError | TimeoutException e) {
      Output.print(Json.event("error").put("command", name).put("error", "timeout")
          .put("message", String.valueOf(e.getMessage())));
      return Deadline.TIMEOUT_EXIT_CODE;
    } catch (Exception e) {
      Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
      Output.print(Json.event("error").put("command", name).put("error", "failed")
          .put("exception", cause.getClass().getName())
          .put("message", String.valueOf(cause.getMessage())));
      cause.printStackTrace();
      return 1;
    }
  }
}
