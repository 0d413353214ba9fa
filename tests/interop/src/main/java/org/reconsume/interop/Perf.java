package org.reconsume.interop;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.DeadLetterPolicy;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;
import org.apache.pulsar.client.api.SubscriptionType;

/**
 * perf: the Java client's side of `reconsume perf` (tools/perf.cpp), the same three phases with
 * the same names and JSON fields, so scripts/perf-compare.sh can set them side by side:
 *
 *   publish         N sends of S bytes through one producer, at most W in flight;
 *   consume + ack   the same N received and acknowledged asynchronously, W in flight;
 *   reconsumeLater  N fresh messages (published first, not measured) each reconsumed with a
 *                   one-hour delay, W in flight, so nothing comes back while it runs.
 *
 * The client keeps Java's defaults (producer batching, 100 ms acknowledgement grouping, receiver
 * queue of 1000) except one I/O and one listener thread, as `reconsume perf` has one I/O thread.
 * --rounds R repeats the phases R times in this JVM on fresh topics: later rounds run with a
 * warm JIT. One JSON object per round (--json) or a table per round. --admin-url U: also how
 * many entries the broker read back from its bookies during each phase, as `reconsume perf`
 * reports it (the broker's counter pulsar_ml_cache_pendingreads_entries_read_total in
 * U/metrics/, read outside the measured time).
 */
final class Perf {
  static final Set<String> OPTIONS =
      Set.of("url", "admin-url", "messages", "size", "window", "rounds", "json");

  /** As `reconsume perf --timeout`'s default: a receive waiting longer fails the phase. */
  private static final int RECEIVE_TIMEOUT_SECONDS = 30;

  private Perf() {}

  /** Runs every round; 0 when no operation failed, 1 otherwise. */
  static int run(Options options) throws Exception {
    String url = options.required("url");
    int messages = atLeast(options, "messages", 100_000, 1);
    int size = atLeast(options, "size", 1024, 0);
    int window = atLeast(options, "window", 1000, 1);
    int rounds = atLeast(options, "rounds", 1, 1);
    boolean json = options.has("json");
    BrokerReads broker = new BrokerReads(options.optional("admin-url", null));
    byte[] payload = new byte[size];
    Arrays.fill(payload, (byte) 'x');

    int failed = 0;
    PulsarClient client = PulsarClient.builder()
        .serviceUrl(url)
        .ioThreads(1)
        .listenerThreads(1)
        .build();
    try {
      for (int round = 1; round <= rounds; round++) {
        List<Phase> phases = runRound(client, broker, messages, payload, window);
        for (Phase phase : phases) failed += phase.failed;
        if (json) {
          List<Json> list = new ArrayList<>();
          for (Phase phase : phases) list.add(phase.toJson());
          Output.print(new Json().put("client", "java").put("round", round).put("rounds", rounds)
              .put("url", url).put("messages", messages).put("size", size).put("window", window)
              .put("ioThreads", 1).put("transactional", false).put("batching", true)
              .put("phases", list));
        } else {
          printTable(round, rounds, url, messages, size, window, phases);
        }
      }
    } finally {
      // As Main does: closing the client waits for its event loops; the process exits anyway.
      client.closeAsync();
    }
    return failed == 0 ? 0 : 1;
  }

  private static List<Phase> runRound(PulsarClient client, BrokerReads broker, int messages,
      byte[] payload, int window) throws Exception {
    List<Phase> phases = new ArrayList<>();
    String plain = topicName("plain");
    // The consumer first, as in tools/perf.cpp: the subscription exists before the first send.
    try (Consumer<byte[]> consumer = client.newConsumer()
             .topic(plain)
             .subscriptionName("perf")
             .subscriptionType(SubscriptionType.Shared)
             .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
             .subscribe();
         Producer<byte[]> producer = client.newProducer().topic(plain).create()) {
      phases.add(measure("publish", "send", messages, window, broker,
          inFlight -> publish(producer, payload, messages, inFlight)));
      // With the default grouping (100 ms, no receipts) acknowledgeAsync completes as soon as
      // the acknowledgement is queued, not when the broker has it: Java's default, and the
      // figure compared against. Closing the consumer below sends what is still queued.
      phases.add(measure("consume + ack", "acknowledge", messages, window, broker,
          inFlight -> receiveAll(consumer, messages, inFlight, consumer::acknowledgeAsync)));
    }

    String retry = topicName("retry");
    // enableRetry: the consumer subscribes to the topic and its retry topic ("<topic>-perf-RETRY");
    // reconsumeLater publishes an unbatched copy there (Java's retry producer has batching off),
    // and once it is stored acknowledges the original (grouped, as above).
    try (Consumer<byte[]> consumer = client.newConsumer()
             .topic(retry)
             .subscriptionName("perf")
             .subscriptionType(SubscriptionType.Shared)
             .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
             .enableRetry(true)
             .deadLetterPolicy(DeadLetterPolicy.builder().maxRedeliverCount(16).build())
             .subscribe();
         Producer<byte[]> producer = client.newProducer().topic(retry).create()) {
      InFlight setup = new InFlight(window, messages);
      publish(producer, payload, messages, setup);
      setup.awaitAll();
      if (setup.failures() > 0) {
        System.err.printf("error: %d sends failed before the reconsume phase%n", setup.failures());
      }
      phases.add(measure("reconsumeLater", "reconsumeLater", messages, window, broker,
          inFlight -> receiveAll(consumer, messages, inFlight,
              message -> consumer.reconsumeLaterAsync(message, 1, TimeUnit.HOURS))));
    }
    return phases;
  }

  private static int publish(Producer<byte[]> producer, byte[] payload, int messages,
      InFlight inFlight) {
    for (int i = 0; i < messages; i++) inFlight.start(() -> producer.sendAsync(payload));
    return 0;
  }

  /** Receives {@code messages} and starts {@code act} on each; the messages not received. */
  private static int receiveAll(Consumer<byte[]> consumer, int messages, InFlight inFlight,
      Function<Message<byte[]>, CompletableFuture<?>> act) throws PulsarClientException {
    for (int i = 0; i < messages; i++) {
      Message<byte[]> message = consumer.receive(RECEIVE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
      if (message == null) {
        System.err.printf("error: received %d of %d messages, then none for %d s%n", i, messages,
            RECEIVE_TIMEOUT_SECONDS);
        return messages - i;
      }
      inFlight.start(() -> act.apply(message));
    }
    return 0;
  }

  private interface Work {
    /** Starts the phase's operations through {@code inFlight}; failures it counted itself. */
    int run(InFlight inFlight) throws Exception;
  }

  /** Runs {@code work} until every operation it started completed, and measures it. */
  private static Phase measure(String name, String latencyOf, int messages, int window,
      BrokerReads broker, Work work) throws Exception {
    InFlight inFlight = new InFlight(window, messages);
    Long readsBefore = broker.read();
    long cpuBefore = processCpuNanos();
    long systemBefore = processSystemNanos();
    long start = System.nanoTime();
    int failed = work.run(inFlight);
    inFlight.awaitAll();
    double wallSeconds = (System.nanoTime() - start) / 1e9;
    double cpuSeconds = (processCpuNanos() - cpuBefore) / 1e9;
    double systemSeconds = (processSystemNanos() - systemBefore) / 1e9;
    long peakRss = peakRssBytes();
    Long readsAfter = readsBefore == null ? null : broker.read();
    Long bookieReads = readsAfter == null ? null : readsAfter - readsBefore;
    return new Phase(name, messages, wallSeconds, cpuSeconds, systemSeconds, peakRss,
        failed + inFlight.failures(), latencyOf, inFlight.sortedLatencies(), bookieReads);
  }

  /**
   * The broker's count of entries read from its bookies (not its cache), from its Prometheus
   * metrics: the sum of pulsar_ml_cache_pendingreads_entries_read_total over its label sets,
   * read line by line; null without --admin-url or when it cannot be read (said once).
   */
  private static final class BrokerReads {
    private static final String COUNTER = "pulsar_ml_cache_pendingreads_entries_read_total";
    private final URI metrics;
    private final HttpClient http;
    private boolean failed;

    BrokerReads(String adminUrl) {
      metrics = adminUrl == null ? null : URI.create(adminUrl.replaceAll("/+$", "") + "/metrics/");
      http = adminUrl == null ? null
          : HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    }

    Long read() {
      if (metrics == null || failed) return null;
      try {
        HttpResponse<java.util.stream.Stream<String>> response = http.send(
            HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(30)).GET().build(),
            HttpResponse.BodyHandlers.ofLines());
        if (response.statusCode() / 100 != 2) {
          throw new IOException("HTTP " + response.statusCode());
        }
        long[] total = {0};
        boolean[] found = {false};
        try (var lines = response.body()) {
          lines.forEach(line -> {
            if (!line.startsWith(COUNTER)) return;
            String rest = line.substring(COUNTER.length());
            if (rest.startsWith("{")) {
              rest = rest.substring(rest.indexOf('}') + 1);
            } else if (!rest.startsWith(" ")) {
              return;  // another metric whose name begins with this one's
            }
            total[0] += Math.round(Double.parseDouble(rest.trim().split("\\s+")[0]));
            found[0] = true;
          });
        }
        if (!found[0]) throw new IOException("no " + COUNTER);
        return total[0];
      } catch (IOException | RuntimeException e) {
        failed = true;
        System.err.println("warning: broker metrics at " + metrics + " could not be read: " + e);
        return null;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        failed = true;
        return null;
      }
    }
  }

  /** At most {@code window} operations in flight, each timed from its call to its completion. */
  private static final class InFlight {
    private final int window;
    private final Semaphore permits;
    private final long[] latencies;
    private final AtomicInteger completed = new AtomicInteger();
    private final AtomicInteger failures = new AtomicInteger();

    InFlight(int window, int capacity) {
      this.window = window;
      this.permits = new Semaphore(window);
      this.latencies = new long[capacity];
    }

    void start(Supplier<CompletableFuture<?>> operation) {
      permits.acquireUninterruptibly();
      long start = System.nanoTime();
      CompletableFuture<?> future;
      try {
        future = operation.get();
      } catch (RuntimeException e) {
        future = CompletableFuture.failedFuture(e);
      }
      future.whenComplete((value, error) -> {
        // Each completion writes its own slot; the release publishes it to awaitAll.
        latencies[completed.getAndIncrement()] = System.nanoTime() - start;
        if (error != null && failures.incrementAndGet() == 1) {
          System.err.println("error: first failed operation: " + error);
        }
        permits.release();
      });
    }

    /** Returns once every started operation completed (all permits are back). */
    void awaitAll() {
      permits.acquireUninterruptibly(window);
      permits.release(window);
    }

    int failures() {
      return failures.get();
    }

    long[] sortedLatencies() {
      long[] sorted = Arrays.copyOf(latencies, completed.get());
      Arrays.sort(sorted);
      return sorted;
    }
  }

  /** One phase's figures, as tools/perf_report.cpp writes them. */
  private record Phase(String name, int messages, double wallSeconds, double cpuSeconds,
      double cpuSystemSeconds,
      long peakRssBytes, int failed, String latencyOf, long[] latencyNanos,
      Long bookieEntryReads) {
    double messagesPerSecond() {
      return wallSeconds > 0 ? messages / wallSeconds : 0;
    }

    double cpuMicrosPerMessage() {
      return cpuSeconds / messages * 1e6;
    }

    /** Nearest-rank percentile in seconds; 0 without samples. */
    double quantile(double q) {
      if (latencyNanos.length == 0) return 0;
      int rank = (int) Math.ceil(q * latencyNanos.length);
      return latencyNanos[Math.min(latencyNanos.length, Math.max(rank, 1)) - 1] / 1e9;
    }

    Json toJson() {
      return new Json().put("name", name).put("messages", messages)
          .put("messagesPerSecond", messagesPerSecond()).put("wallSeconds", wallSeconds)
          .put("cpuSeconds", cpuSeconds).put("cpuMicrosPerMessage", cpuMicrosPerMessage())
          .put("cpuSystemSeconds", cpuSystemSeconds)
          .put("peakRssBytes", peakRssBytes).put("failed", failed)
          .put("latency", new Json().put("of", latencyOf).put("count", latencyNanos.length)
              .put("p50", quantile(0.5)).put("p99", quantile(0.99)).put("p999", quantile(0.999)))
          .put("bookieEntryReads", bookieEntryReads);
    }
  }

  private static void printTable(int round, int rounds, String url, int messages, int size,
      int window, List<Phase> phases) {
    StringBuilder out = new StringBuilder();
    out.append(String.format("java perf (round %d of %d): %d messages of %d bytes on %s "
        + "(window %d, 1 I/O thread, batching on)%n", round, rounds, messages, size, url, window));
    out.append(String.format("%n  %-15s %11s %8s %8s %9s %10s %7s%n", "phase", "messages/s",
        "wall", "CPU", "CPU/msg", "peak RSS", "failed"));
    for (Phase p : phases) {
      out.append(String.format("  %-15s %11.0f %7.2fs %7.2fs %7.1fus %10s %7d%n", p.name,
          p.messagesPerSecond(), p.wallSeconds, p.cpuSeconds, p.cpuMicrosPerMessage(),
          String.format("%.1f MiB", p.peakRssBytes / 1048576.0), p.failed));
    }
    out.append(String.format("%n  %-15s %-15s %10s %10s %10s%n", "latency (ms)", "of", "p50",
        "p99", "p99.9"));
    for (Phase p : phases) {
      out.append(String.format("  %-15s %-15s %10.3f %10.3f %10.3f%n", p.name, p.latencyOf,
          p.quantile(0.5) * 1e3, p.quantile(0.99) * 1e3, p.quantile(0.999) * 1e3));
    }
    System.out.print(out);
    System.out.flush();
  }

  private static String topicName(String phase) {
    return "persistent://public/default/java-perf-" + phase + "-"
        + Long.toUnsignedString(ThreadLocalRandom.current().nextLong() >>> 24, 36);
  }

  /**
   * User + system time of every thread of the process (the client's, the JIT's and the GC's).
   * HotSpot reads it with times(2): clock ticks (10 ms here), negligible over a 100000-message
   * phase but coarse for tiny runs.
   */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  /**
   * Of that, the time spent in the kernel: /proc/self/stat's stime (its 15th field), in clock
   * ticks of 10 ms (USER_HZ is 100 on Linux), as getrusage's ru_stime is for the C++ harness.
   */
  private static long processSystemNanos() {
    try {
      String stat = Files.readString(Path.of("/proc/self/stat"));
      // The command name (field 2) is in parentheses and may hold spaces; field 3 follows it.
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
      return Long.parseLong(fields[15 - 3]) * 10_000_000L;
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(
          "cannot read the process's system time from /proc/self/stat", e);
    }
  }

  /** The resident set's high-water mark (VmHWM), as getrusage's ru_maxrss; 0 when unknown. */
  private static long peakRssBytes() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.substring(6).trim().split("\\s+")[0]) * 1024;
        }
      }
    } catch (IOException | NumberFormatException e) {
      System.err.println("warning: no peak RSS: " + e);
    }
    return 0;
  }

  private static int atLeast(Options options, String name, int fallback, int min)
      throws UsageError {
    int value = options.integer(name, fallback);
    if (value < min) throw new UsageError("--" + name + " '" + value + "' must be at least " + min);
    return value;
  }
}
