package org.liteedge.runtime;

import java.nio.Buffer;

/**
 * The JNI functions (registered by lite_jni.c's JNI_OnLoad), one per C API call or data movement.
 * Handles are the C pointers as longs. Failures raise {@link LiteException} with the runtime's
 * message; callers have already checked indices, types and sizes (the native side checks sizes
 * again before writing anything).
 */
final class NativeApi {
  private NativeApi() {}

  static native String version();

  static native long loadModelFile(String path);

  /** Borrows {@code size} bytes at {@code offset} of a direct buffer: the caller keeps it alive. */
  static native long loadModelDirect(Buffer buffer, long offset, long size);

  /** Copies the bytes; the array may be freed afterwards. */
  static native long loadModelCopy(byte[] data, int offset, int size);

  static native void destroyModel(long model);

  /** {@code cacheDir} may be null; the codes are those of {@link Backend}, {@link Precision}, {@link Tuning}. */
  static native long createInterpreter(long model, int numThreads, int cpuAffinity, int backend, int precision,
                                       String cacheDir, int tuning, long maxMemoryBytes, float packedWeightRatio);

  static native void destroyInterpreter(long interpreter);

  static native String backendNote(long interpreter);

  /** "" when no GPU backend is in use. */
  static native String backendInfo(long interpreter);

  static native String backendProfile(long interpreter);

  static native long memoryBytes(long interpreter);

  static native long weightsBytes(long interpreter);

  static native int[] cpuAffinityCpus(long interpreter);

  static native int tensorCount(long interpreter, boolean input);

  static native String tensorName(long interpreter, boolean input, int index);

  static native int tensorDataType(long interpreter, boolean input, int index);

  static native long[] tensorShape(long interpreter, boolean input, int index);

  static native long tensorBytes(long interpreter, boolean input, int index);

  static native float[] quantizationScales(long interpreter, boolean input, int index);

  static native long[] quantizationZeroPoints(long interpreter, boolean input, int index);

  static native int quantizationAxis(long interpreter, boolean input, int index);

  static native void resizeInput(long interpreter, int index, long[] dims);

  static native void allocate(long interpreter);

  static native void invoke(long interpreter);

  static native void resetVariables(long interpreter);

  static native int variableCount(long interpreter);

  static native long arenaBytes(long interpreter);

  /**
   * Copies {@code bytes} bytes at byte {@code offset} of a direct buffer (of {@code elementBytes}
   * bytes per element) into input {@code index}.
   */
  static native void setInputDirect(long interpreter, int index, Buffer buffer, int elementBytes, long offset,
                                    long bytes);

  /** Copies {@code length} bytes of {@code data} from {@code offset} into input {@code index}. */
  static native void setInputBytes(long interpreter, int index, byte[] data, int offset, int length);

  /**
   * Copies a primitive array of {@code rank} dims (rank 1: a float[], rank 2: a float[][], ...)
   * into input {@code index}, row by row, straight into the runtime's input memory.
   */
  static native void setInputArray(long interpreter, int index, Object array, int rank);

  static native void getOutputDirect(long interpreter, int index, Buffer buffer, int elementBytes, long offset,
                                     long bytes);

  static native void getOutputBytes(long interpreter, int index, byte[] data, int offset, int length);

  static native void getOutputArray(long interpreter, int index, Object array, int rank);

  static native void setProfiling(long interpreter, boolean enabled);

  /** Fills the arrays (each of {@link #profileCount} entries) with every op's profile. */
  static native void profile(long interpreter, String[] opNames, String[] nodeNames, double[] seconds,
                             long[] calls, int[] computedBy, String[] backends);

  static native int profileCount(long interpreter);
}
