package org.liteedge.runtime;

/** Element types of tensors: the C API's {@code lite_dtype} values, with their size in bytes. */
public enum DataType {
  FLOAT32(0, 4),
  /** IEEE half precision; Java arrays carry the raw bits as {@code short}. */
  FLOAT16(1, 2),
  FLOAT64(2, 8),
  INT8(3, 1),
  UINT8(4, 1),
  INT16(5, 2),
  INT32(6, 4),
  INT64(7, 8),
  /** One byte per value, 0 or 1. */
  BOOL(8, 1),
  UINT16(9, 2),
  UINT32(10, 4),
  UINT64(11, 8);

  private final int code;
  private final int byteSize;

  DataType(int code, int byteSize) {
    this.code = code;
    this.byteSize = byteSize;
  }

  /** The numeric {@code lite_dtype} value. */
  public int code() {
    return code;
  }

  /** Bytes per element. */
  public int byteSize() {
    return byteSize;
  }

  static DataType fromCode(int code) {
    for (DataType type : values()) {
      if (type.code == code) {
        return type;
      }
    }
    throw new LiteException(Status.UNSUPPORTED, "unknown tensor data type code " + code
        + " (a newer runtime than this Java library?)");
  }

  /**
   * The Java primitive type that holds one element in a Java array: {@code float} for FLOAT32,
   * {@code byte} for INT8 / UINT8, {@code boolean} or {@code byte} for BOOL, {@code short} for the
   * 16-bit types (FLOAT16 as raw bits), and so on. Unsigned types use the signed Java type of the
   * same width.
   */
  public Class<?> javaType() {
    switch (this) {
      case FLOAT32:
        return float.class;
      case FLOAT64:
        return double.class;
      case INT8:
      case UINT8:
        return byte.class;
      case BOOL:
        return boolean.class;
      case FLOAT16:
      case INT16:
      case UINT16:
        return short.class;
      case INT32:
      case UINT32:
        return int.class;
      case INT64:
      case UINT64:
        return long.class;
      default:
        throw new AssertionError(this);
    }
  }

  /** Whether Java arrays of {@code primitive} can carry this type's elements. */
  boolean acceptsJavaType(Class<?> primitive) {
    return primitive == javaType() || (this == BOOL && primitive == byte.class);
  }
}
