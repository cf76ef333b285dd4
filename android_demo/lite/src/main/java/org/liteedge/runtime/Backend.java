package org.liteedge.runtime;

/** Which compute backend runs the model; chosen with {@link Interpreter.Options#setBackend}. */
public enum Backend implements OptionNames.Named {
  /** The CPU kernels (NEON on ARM, AVX2 / AVX-512 on x86, portable C elsewhere). */
  CPU(0, "cpu"),
  /**
   * The OpenCL GPU backend (Mali, Adreno): the ops it has kernels for run on the GPU, the rest on the
   * CPU ({@link OpProfile#backend()} says which). Creating an interpreter fails with
   * {@link Status#UNSUPPORTED} and the reason where no OpenCL device is usable.
   */
  OPENCL(1, "opencl"),
  /** OpenCL where a device is usable, else the CPU ({@link Interpreter#getBackendNote()} says why). */
  AUTO(2, "auto");

  private final int code;
  private final String backendName;

  Backend(int code, String backendName) {
    this.code = code;
    this.backendName = backendName;
  }

  int code() {
    return code;
  }

  /** The name {@link Interpreter.Options#setBackend} takes: "cpu", "opencl" or "auto". */
  public String backendName() {
    return backendName;
  }

  @Override
  public String optionName() {
    return backendName;
  }

  /** The backend called {@code name} (any case); IllegalArgumentException for an unknown one. */
  public static Backend fromName(String name) {
    return OptionNames.parse(values(), name, "backend");
  }
}
