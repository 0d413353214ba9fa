package org.reconsume.interop;

/** A wrong command line: reported with exit code 2. */
final class UsageError extends Exception {
  UsageError(String message) {
    super(message);
  }
}
