package org.reconsume.interop;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** "--name value" options (repeatable) and "--flag" switches after the subcommand. */
final class Options {
  private static final Set<String> SWITCHES = Set.of("verify-hostname", "json");

  private final Map<String, List<String>> values = new HashMap<>();

  static Options parse(String[] args, int from) throws UsageError {
    Options options = new Options();
    for (int i = from; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--") || arg.length() == 2) {
        throw new UsageError("expected an option, got '" + arg + "'");
      }
      String name = arg.substring(2);
      String value = "true";
      if (!SWITCHES.contains(name)) {
        if (i + 1 >= args.length) throw new UsageError("option --" + name + " needs a value");
        value = args[++i];
      }
      options.values.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
    }
    return options;
  }

  String required(String name) throws UsageError {
    String value = optional(name, null);
    if (value == null) throw new UsageError("option --" + name + " is required");
    return value;
  }

  String optional(String name, String fallback) {
    List<String> list = values.get(name);
    return list == null ? fallback : list.get(list.size() - 1);
  }

  List<String> all(String name) {
    return values.getOrDefault(name, List.of());
  }

  boolean has(String name) {
    return values.containsKey(name);
  }

  long number(String name, long fallback) throws UsageError {
    String text = optional(name, null);
    if (text == null) return fallback;
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new UsageError("option --" + name + " '" + text + "' is not an integer");
    }
  }

  int integer(String name, int fallback) throws UsageError {
    long value = number(name, fallback);
    if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
      throw new UsageError("option --" + name + " '" + value + "' is out of range");
    }
    return (int) value;
  }

  /** Names of options given but not in {@code known}: a typo must not pass silently. */
  void rejectUnknown(Set<String> known) throws UsageError {
    for (String name : values.keySet()) {
      if (!known.contains(name)) throw new UsageError("unknown option --" + name);
    }
  }
}
