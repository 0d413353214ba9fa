package org.reconsume.interop;

import java.util.concurrent.TimeUnit;

/**
 * The bound of a whole command (--timeout-ms). Waits take what remains; a watchdog ends the
 * process if something blocks past it (a lookup, a close), so no run can hang a test.
 */
final class Deadline {
  /** Extra time the watchdog grants after the deadline, for a bounded wait to report itself. */
  private static final long GRACE_MS = 5_000;

  static final int TIMEOUT_EXIT_CODE = 124;

  private final long endNanos;
  private final long timeoutMs;

  Deadline(long timeoutMs) {
    this.timeoutMs = timeoutMs;
    this.endNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
  }

  long timeoutMs() {
    return timeoutMs;
  }

  /** Milliseconds left, at least 1 (so a receive with it never means "wait forever"). */
  long remainingMs() {
    return Math.max(1, TimeUnit.NANOSECONDS.toMillis(endNanos - System.nanoTime()));
  }

  boolean passed() {
    return System.nanoTime() >= endNanos;
  }

  void startWatchdog(String command) {
    Thread watchdog = new Thread(() -> {
      try {
        Thread.sleep(timeoutMs + GRACE_MS);
      } catch (InterruptedException e) {
        return;
      }
      Output.print(Json.event("error")
          .put("command", command)
          .put("error", "timeout")
          .put("message", command + " did not finish within " + timeoutMs + " ms"));
      Runtime.getRuntime().halt(TIMEOUT_EXIT_CODE);
    }, "interop-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
  }
}
