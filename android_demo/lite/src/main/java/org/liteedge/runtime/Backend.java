package org.liteedge.runtime;

import java.util.Locale;

/** Which compute backend runs the model; chosen by name with {@link Interpreter.Options#setBackend}. */
public enum Backend {
  /** The CPU kernels (NEON on ARM, AVX2 / AVX-512 on x86, portable C elsewhere). */
  CPU(0, "cpu"),
  /** The OpenCL GPU backend (Mali, Adreno); creating an interpreter fails where it is not available. */
  OPENCL(1, "opencl"),
  /** The best backend this runtime build and device offer, the CPU when there is no other. */
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

  /** The backend called {@code name} (any case); IllegalArgumentException for an unknown one. */
  public static Backend fromName(String name) {
    if (name == null) {
      throw new IllegalArgumentException("backend name is null: use \"cpu\", \"opencl\" or \"auto\"");
    }
    String wanted = name.trim().toLowerCase(Locale.ROOT);
    for (Backend backend : values()) {
      if (backend.backendName.equals(wanted)) {
        return backend;
      }
    }
    throw new IllegalArgumentException("unknown backend \"" + name + "\": use \"cpu\", \"opencl\" or \"auto\"");
  }

  static Backend fromCode(int code) {
    for (Backend backend : values()) {
      if (backend.code == code) {
        return backend;
      }
    }
    throw new LiteException(Status.INTERNAL, "unknown backend code " + code);
  }
}
