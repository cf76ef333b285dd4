package org.liteedge.runtime;

/** Time spent in one op of the graph since profiling was switched on ({@link Interpreter#setProfiling}). */
public final class OpProfile {
  private final int opIndex;
  private final String opName;
  private final String nodeName;
  private final double totalSeconds;
  private final long calls;
  private final int computedBy;
  private final String backend;

  OpProfile(int opIndex, String opName, String nodeName, double totalSeconds, long calls, int computedBy,
            String backend) {
    this.opIndex = opIndex;
    this.opName = opName;
    this.nodeName = nodeName;
    this.totalSeconds = totalSeconds;
    this.calls = calls;
    this.computedBy = computedBy;
    this.backend = backend;
  }

  /** Position of the op in the graph's execution order. */
  public int opIndex() {
    return opIndex;
  }

  /** The op code, e.g. "CONV_2D". */
  public String opName() {
    return opName;
  }

  /** The op's name in the model ("" when it has none). */
  public String nodeName() {
    return nodeName;
  }

  /** Summed wall time of its runs. */
  public double totalSeconds() {
    return totalSeconds;
  }

  /** Runs counted: one per invoke; 0 for ops computed once at prepare time or by another op. */
  public long calls() {
    return calls;
  }

  /**
   * The op whose run computes this op's outputs: its own index, the next op's when both run as one
   * pass (a 1x1 convolution absorbed by the depthwise one after it), -1 when computed at prepare time.
   */
  public int computedBy() {
    return computedBy;
  }

  /**
   * The backend the op was placed on at the last allocation ("cpu" for every op in this runtime
   * version); null before the interpreter was first allocated.
   */
  public String backend() {
    return backend;
  }

  @Override
  public String toString() {
    return String.format(java.util.Locale.ROOT, "%d %s %s: %.3f ms over %d calls", opIndex, opName, nodeName,
        totalSeconds * 1e3, calls);
  }
}
