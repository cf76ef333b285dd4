package org.liteedge.runtime;

/**
 * Work-group size tuning of the GPU backend ({@link Interpreter.Options#setTuning}): candidates are
 * timed at each op's first run, and the choices are kept in the cache directory when one is set, so
 * later interpreters of the same model on the same device start tuned.
 */
public enum Tuning implements OptionNames.Named {
  /** The driver picks the work-group sizes (no timing at the first run). */
  NONE(0, "none"),
  /** A few candidates per kernel. */
  FAST(1, "fast"),
  /** More candidates: a slower first run, usually faster later ones. */
  NORMAL(2, "normal"),
  /** Every candidate: for an offline warm-up whose choices are cached. */
  EXHAUSTIVE(3, "exhaustive");

  private final int code;
  private final String tuningName;

  Tuning(int code, String tuningName) {
    this.code = code;
    this.tuningName = tuningName;
  }

  int code() {
    return code;
  }

  @Override
  public String optionName() {
    return tuningName;
  }

  /** The level called {@code name}: "none", "fast", "normal" or "exhaustive" (any case). */
  public static Tuning fromName(String name) {
    return OptionNames.parse(values(), name, "tuning");
  }
}
