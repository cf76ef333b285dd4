package org.liteedge.runtime;

/** Why a runtime call failed: the C API's {@code lite_status} codes, same values. */
public enum Status {
  OK(0),
  INVALID_ARGUMENT(1),
  IO_ERROR(2),
  INVALID_MODEL(3),
  UNSUPPORTED(4),
  OUT_OF_MEMORY(5),
  SHAPE_ERROR(6),
  VERSION_MISMATCH(7),
  INTERNAL(8);

  private final int code;

  Status(int code) {
    this.code = code;
  }

  /** The numeric {@code lite_status} value. */
  public int code() {
    return code;
  }

  /** The status with this numeric value; {@link #INTERNAL} for a value this version does not know. */
  public static Status fromCode(int code) {
    for (Status status : values()) {
      if (status.code == code) {
        return status;
      }
    }
    return INTERNAL;
  }
}
