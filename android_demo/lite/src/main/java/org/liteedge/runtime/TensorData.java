package org.liteedge.runtime;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;
import java.util.Arrays;

/**
 * Moves data between Java objects and one input or output of a native interpreter.
 *
 * <p>Direct buffers go to and from native memory without a Java copy (the runtime copies once into
 * or out of its arena). Array-backed buffers are copied once from their backing array. Primitive
 * arrays of any rank are copied row by row, once, straight into or out of the runtime's memory.
 */
final class TensorData {
  private TensorData() {}

  /** The shape the value gives an input: the array's dims, or null for a buffer (no shape of its own). */
  static int[] shapeOf(Object value) {
    return JavaArrays.isPrimitiveArray(value) ? JavaArrays.shape(value) : null;
  }

  static void copyIn(long handle, Tensor input, Object value) {
    String what = "input " + input.index() + " '" + input.name() + "'";
    if (value instanceof Buffer) {
      Buffer buffer = (Buffer) value;
      long bytes = byteCount(buffer, what, input.dataType());
      if (bytes != input.numBytes()) {
        throw new IllegalArgumentException(what + " takes " + input.numBytes() + " bytes ("
            + input.dataType() + " " + Arrays.toString(input.shape()) + "), the buffer has " + bytes
            + " remaining");
      }
      if (buffer.isDirect()) {
        NativeApi.setInputDirect(handle, input.index(), buffer, elementBytes(buffer), byteOffset(buffer), bytes);
      } else {
        ByteBuffer heap = heapBytes(buffer, what);
        NativeApi.setInputBytes(handle, input.index(), heap.array(), heap.arrayOffset() + heap.position(),
            (int) bytes);
      }
      return;
    }
    checkArray(value, input, what);
    int[] shape = JavaArrays.shape(value);
    if (!Arrays.equals(shape, input.shape())) {
      throw new IllegalArgumentException(what + " has shape " + Arrays.toString(input.shape())
          + ", the array " + Arrays.toString(shape));
    }
    NativeApi.setInputArray(handle, input.index(), value, Math.max(1, shape.length));
  }

  static void copyOut(long handle, Tensor output, Object value) {
    String what = "output " + output.index() + " '" + output.name() + "'";
    if (value instanceof Buffer) {
      Buffer buffer = (Buffer) value;
      if (buffer.isReadOnly()) {
        throw new IllegalArgumentException(what + ": the buffer is read-only");
      }
      long bytes = byteCount(buffer, what, output.dataType());
      if (bytes < output.numBytes()) {
        throw new IllegalArgumentException(what + " has " + output.numBytes() + " bytes ("
            + output.dataType() + " " + Arrays.toString(output.shape()) + "), the buffer only " + bytes
            + " remaining");
      }
      if (buffer.isDirect()) {
        NativeApi.getOutputDirect(handle, output.index(), buffer, elementBytes(buffer), byteOffset(buffer),
            output.numBytes());
      } else {
        ByteBuffer heap = heapBytes(buffer, what);
        NativeApi.getOutputBytes(handle, output.index(), heap.array(), heap.arrayOffset() + heap.position(),
            (int) output.numBytes());
      }
      // Like a relative put: the data starts at the old position (rewind() before reading).
      buffer.position(buffer.position() + (int) (output.numBytes() / elementBytes(buffer)));
      return;
    }
    checkArray(value, output, what);
    int[] shape = JavaArrays.shape(value);
    int[] expected = output.shape();
    boolean scalar = expected.length == 0 && Arrays.equals(shape, new int[] {1});
    if (!scalar && !Arrays.equals(shape, expected)) {
      throw new IllegalArgumentException(what + " has shape " + Arrays.toString(expected) + ", the array "
          + Arrays.toString(shape));
    }
    NativeApi.getOutputArray(handle, output.index(), value, Math.max(1, shape.length));
  }

  private static void checkArray(Object value, Tensor tensor, String what) {
    if (!JavaArrays.isPrimitiveArray(value)) {
      throw new IllegalArgumentException(what + " (" + tensor.dataType() + "): expected a primitive Java array "
          + "or a Buffer, got " + JavaArrays.describe(value));
    }
    Class<?> element = JavaArrays.elementType(value.getClass());
    if (!tensor.dataType().acceptsJavaType(element)) {
      throw new IllegalArgumentException(what + " is " + tensor.dataType() + " (a "
          + tensor.dataType().javaType().getName() + " array in Java), got a " + element.getName() + " array");
    }
  }

  private static long byteCount(Buffer buffer, String what, DataType type) {
    if (type.byteSize() > 1 || !(buffer instanceof ByteBuffer)) {
      ByteOrder order = order(buffer);
      if (order != null && order != ByteOrder.nativeOrder()) {
        throw new IllegalArgumentException(what + ": the buffer is " + order + ", the runtime reads "
            + ByteOrder.nativeOrder() + " (call order(ByteOrder.nativeOrder()) on the ByteBuffer)");
      }
    }
    int element = elementBytes(buffer);
    if (!(buffer instanceof ByteBuffer) && element != type.byteSize()) {
      throw new IllegalArgumentException(what + " is " + type + " (" + type.byteSize() + " bytes per value), "
          + "got a " + buffer.getClass().getSimpleName() + " (" + element + " bytes per value)");
    }
    return (long) buffer.remaining() * element;
  }

  private static long byteOffset(Buffer buffer) {
    return (long) buffer.position() * elementBytes(buffer);
  }

  static int elementBytes(Buffer buffer) {
    if (buffer instanceof ByteBuffer) {
      return 1;
    } else if (buffer instanceof ShortBuffer) {
      return 2;
    } else if (buffer instanceof IntBuffer || buffer instanceof FloatBuffer) {
      return 4;
    } else if (buffer instanceof LongBuffer || buffer instanceof DoubleBuffer) {
      return 8;
    }
    throw new IllegalArgumentException("unsupported buffer type " + buffer.getClass().getName()
        + ": use a ByteBuffer, ShortBuffer, IntBuffer, FloatBuffer, LongBuffer or DoubleBuffer");
  }

  private static ByteOrder order(Buffer buffer) {
    if (buffer instanceof ByteBuffer) {
      return ((ByteBuffer) buffer).order();
    } else if (buffer instanceof ShortBuffer) {
      return ((ShortBuffer) buffer).order();
    } else if (buffer instanceof IntBuffer) {
      return ((IntBuffer) buffer).order();
    } else if (buffer instanceof FloatBuffer) {
      return ((FloatBuffer) buffer).order();
    } else if (buffer instanceof LongBuffer) {
      return ((LongBuffer) buffer).order();
    } else if (buffer instanceof DoubleBuffer) {
      return ((DoubleBuffer) buffer).order();
    }
    return null;
  }

  /** Array-backed ByteBuffers only: a typed heap buffer's elements are not bytes in native order. */
  private static ByteBuffer heapBytes(Buffer buffer, String what) {
    if (!(buffer instanceof ByteBuffer) || !buffer.hasArray()) {
      throw new IllegalArgumentException(what + ": a non-direct buffer must be a writable, array-backed "
          + "ByteBuffer; use ByteBuffer.allocateDirect(...).order(ByteOrder.nativeOrder()) or a Java array");
    }
    return (ByteBuffer) buffer;
  }
}
