package org.liteedge.runtime;

import java.lang.reflect.Array;
import java.util.Arrays;

/** Shape and element type of (possibly multi-dimensional) Java primitive arrays. */
final class JavaArrays {
  private JavaArrays() {}

  /** Whether {@code value} is a primitive array of any rank (float[], int[][], ...). */
  static boolean isPrimitiveArray(Object value) {
    return value != null && value.getClass().isArray() && elementType(value.getClass()).isPrimitive();
  }

  /** The primitive type at the bottom of an array class: float for float[][][]. */
  static Class<?> elementType(Class<?> arrayClass) {
    Class<?> type = arrayClass;
    while (type.isArray()) {
      type = type.getComponentType();
    }
    return type;
  }

  static int rank(Object array) {
    int rank = 0;
    for (Class<?> type = array.getClass(); type.isArray(); type = type.getComponentType()) {
      rank++;
    }
    return rank;
  }

  /**
   * The dims of a rectangular array, read along its first elements; IllegalArgumentException for a
   * null row or a row whose length differs from its siblings' (checked over the whole array).
   */
  static int[] shape(Object array) {
    int[] dims = new int[rank(array)];
    fill(array, 0, dims, true);
    return dims;
  }

  private static void fill(Object array, int depth, int[] dims, boolean first) {
    if (array == null) {
      throw new IllegalArgumentException("the array has a null row at depth " + depth);
    }
    int length = Array.getLength(array);
    if (first) {
      dims[depth] = length;
    } else if (dims[depth] != length) {
      throw new IllegalArgumentException("the array is ragged: a row at depth " + depth + " has " + length
          + " elements, the first one " + dims[depth]);
    }
    if (depth + 1 < dims.length) {
      for (int i = 0; i < length; i++) {
        fill(Array.get(array, i), depth + 1, dims, first && i == 0);
      }
    }
  }

  static String describe(Object value) {
    if (value == null) {
      return "null";
    }
    if (isPrimitiveArray(value)) {
      return elementType(value.getClass()).getName() + Arrays.toString(shape(value));
    }
    return value.getClass().getName();
  }
}
