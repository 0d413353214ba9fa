package org.reconsume.interop;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** JSON lines on stdout, one per event; safe from several threads (the watchdog prints too). */
final class Output {
  private static final PrintStream OUT =
      new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);

  private Output() {}

  static synchronized void print(Json line) {
    OUT.println(line);
    OUT.flush();
  }
}
