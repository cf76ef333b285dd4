package org.liteedge.runtime;

/** Where an interpreter's threads run: the C API's {@code lite_cpu_affinity}. */
public enum CpuAffinity {
  /** Wherever the OS schedules them (default). */
  NONE(0),
  /**
   * The {@code numThreads} fastest CPUs (the big cores of a big.LITTLE / DynamIQ phone), chosen
   * from the kernel's cpu_capacity or cpufreq; the worker threads and the thread calling run() are
   * kept on them while a run lasts. Nothing is pinned where the CPUs are all alike.
   */
  FAST_CORES(1);

  private final int code;

  CpuAffinity(int code) {
    this.code = code;
  }

  int code() {
    return code;
  }
}
