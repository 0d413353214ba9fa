package org.reconsume.interop;

/** A bounded wait ran out: reported with exit code 124, like the watchdog. */
final class TimeoutError extends Exception {
  TimeoutError(String message) {
    super(message);
  }
}
