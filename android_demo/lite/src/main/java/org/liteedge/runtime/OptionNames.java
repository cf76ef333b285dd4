package org.liteedge.runtime;

import java.util.Locale;

/** Looks up an option's enum constant by the name the C API, the CLI and Python use ("fp16", "auto"). */
final class OptionNames {
  private OptionNames() {}

  /** A constant with a lower-case option name. */
  interface Named {
    String optionName();
  }

  /** The constant of {@code values} called {@code name} (any case, spaces around ignored). */
  static <E extends Named> E parse(E[] values, String name, String what) {
    StringBuilder choices = new StringBuilder();
    for (E value : values) {
      choices.append(choices.length() == 0 ? "" : ", ").append('"').append(value.optionName()).append('"');
    }
    if (name == null) {
      throw new IllegalArgumentException(what + " name is null: use " + choices);
    }
    String wanted = name.trim().toLowerCase(Locale.ROOT);
    for (E value : values) {
      if (value.optionName().equals(wanted)) {
        return value;
      }
    }
    throw new IllegalArgumentException("unknown " + what + " \"" + name + "\": use " + choices);
  }
}
