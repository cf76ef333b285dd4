package org.liteedge.runtime;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import org.junit.Test;

/**
 * The Interpreter API on small models whose results are computed here in Java: two_io.lite (a, b
 * float32 [N, 3] -> sum, product) and int64_ops.lite (x int64 [N] -> tripled, positive as bool).
 */
public class InterpreterApiTest {
  private static Interpreter twoIo() {
    return new Interpreter(TestFixtures.file("two_io.lite"));
  }

  private static float[][] matrix(int rows, float start) {
    float[][] values = new float[rows][3];
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < 3; j++) {
        values[i][j] = start + 0.37f * (3 * i + j) - 1.1f * (i % 2);
      }
    }
    return values;
  }

  @Test
  public void runtimeVersionIsReported() {
    assertTrue(Interpreter.runtimeVersion().matches("\\d+\\.\\d+\\.\\d+.*"));
  }

  @Test
  public void namesIndicesAndCounts() {
    try (Interpreter interpreter = twoIo()) {
      assertEquals(2, interpreter.getInputTensorCount());
      assertEquals(2, interpreter.getOutputTensorCount());
      assertEquals(1, interpreter.getInputIndex("b"));
      assertEquals(1, interpreter.getOutputIndex("product"));
      assertEquals("sum", interpreter.getOutputTensor(0).name());
      IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> interpreter.getInputIndex("c"));
      assertTrue(error.getMessage(), error.getMessage().contains("[a, b]"));
      assertThrows(IllegalArgumentException.class, () -> interpreter.getInputTensor(2));
      assertThrows(IllegalArgumentException.class, () -> interpreter.getOutputTensor(-1));
    }
  }

  @Test
  public void dynamicDimsAreMinusOneUntilResized() {
    try (Interpreter interpreter = twoIo()) {
      Tensor a = interpreter.getInputTensor(0);
      assertEquals(DataType.FLOAT32, a.dataType());
      assertArrayEquals(new int[] {-1, 3}, a.shape());
      assertEquals(-1, a.numElements());
      assertEquals(0, a.numBytes());
      assertFalse(a.quantization().isQuantized());
      assertEquals(0.0f, a.quantizationParams().getScale(), 0.0f);
      interpreter.resizeInput(0, new int[] {4, 3});
      interpreter.resizeInput(1, new int[] {4, 3});
      interpreter.allocateTensors();
      assertArrayEquals(new int[] {4, 3}, interpreter.getInputTensor(0).shape());
      assertEquals(48, interpreter.getInputTensor(1).numBytes());
      assertArrayEquals(new int[] {4, 3}, interpreter.getOutputTensor(1).shape());
      assertTrue(interpreter.getArenaBytes() > 0);
    }
  }

  @Test
  public void multipleInputsAndOutputsWithArrays() {
    try (Interpreter interpreter = twoIo()) {
      float[][] a = matrix(2, 1.5f);
      float[][] b = matrix(2, -0.25f);
      float[][] sum = new float[2][3];
      float[][] product = new float[2][3];
      Map<Integer, Object> outputs = new HashMap<>();
      outputs.put(0, sum);
      outputs.put(1, product);
      interpreter.runForMultipleInputsOutputs(new Object[] {a, b}, outputs);
      for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 3; j++) {
          assertEquals(a[i][j] + b[i][j], sum[i][j], 0.0f); // IEEE float addition: exact equality
          assertEquals(a[i][j] * b[i][j], product[i][j], 0.0f);
        }
      }
    }
  }

  @Test
  public void anArrayOfAnotherShapeResizesTheInput() {
    try (Interpreter interpreter = twoIo()) {
      for (int rows : new int[] {2, 5, 1, 7}) {
        float[][] a = matrix(rows, 0.5f);
        float[][] product = new float[rows][3];
        Map<Integer, Object> outputs = new HashMap<>();
        outputs.put(1, product); // output 0 is not read
        interpreter.runForMultipleInputsOutputs(new Object[] {a, a}, outputs);
        assertArrayEquals(new int[] {rows, 3}, interpreter.getOutputTensor(1).shape());
        assertEquals(a[rows - 1][2] * a[rows - 1][2], product[rows - 1][2], 0.0f);
      }
    }
  }

  @Test
  public void directBuffersAreReadAndWrittenInPlace() {
    try (Interpreter interpreter = twoIo()) {
      interpreter.resizeInput(0, new int[] {3, 3});
      interpreter.resizeInput(1, new int[] {3, 3});
      float[] a = new float[9];
      float[] b = new float[9];
      for (int i = 0; i < 9; i++) {
        a[i] = i * 0.5f - 2.0f;
        b[i] = 10.0f - i;
      }
      ByteBuffer sum = ByteBuffer.allocateDirect(36).order(ByteOrder.nativeOrder());
      FloatBuffer product = ByteBuffer.allocateDirect(36).order(ByteOrder.nativeOrder()).asFloatBuffer();
      Map<Integer, Object> outputs = new HashMap<>();
      outputs.put(0, sum);
      outputs.put(1, product);
      FloatBuffer typedB = TestFixtures.direct(b).asFloatBuffer();
      interpreter.runForMultipleInputsOutputs(new Object[] {TestFixtures.direct(a), typedB}, outputs);
      assertEquals("an output buffer's position moves past the data", 36, sum.position());
      assertEquals(9, product.position());
      assertEquals("an input buffer's position stays", 0, typedB.position());
      float[] sums = TestFixtures.read(sum);
      product.rewind();
      for (int i = 0; i < 9; i++) {
        assertEquals(a[i] + b[i], sums[i], 0.0f);
        assertEquals(a[i] * b[i], product.get(i), 0.0f);
      }
    }
  }

  @Test
  public void arrayBackedByteBuffersAreCopiedOnce() {
    try (Interpreter interpreter = twoIo()) {
      interpreter.resizeInput(0, new int[] {1, 3});
      interpreter.resizeInput(1, new int[] {1, 3});
      ByteBuffer a = ByteBuffer.allocate(12).order(ByteOrder.nativeOrder());
      a.putFloat(1.0f).putFloat(2.0f).putFloat(3.0f).rewind();
      ByteBuffer out = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder());
      out.position(4); // written at the position
      Map<Integer, Object> outputs = new HashMap<>();
      outputs.put(0, out);
      interpreter.runForMultipleInputsOutputs(new Object[] {a, a}, outputs);
      assertEquals(16, out.position());
      assertEquals(0.0f, out.getFloat(0), 0.0f);
      assertEquals(2.0f, out.getFloat(4), 0.0f);
      assertEquals(6.0f, out.getFloat(12), 0.0f);
    }
  }

  @Test
  public void aBufferInTheWrongByteOrderIsRefused() {
    try (Interpreter interpreter = twoIo()) {
      interpreter.resizeInput(0, new int[] {1, 3});
      interpreter.resizeInput(1, new int[] {1, 3});
      ByteOrder other = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
      ByteBuffer wrong = ByteBuffer.allocateDirect(12).order(other);
      Map<Integer, Object> outputs = new HashMap<>();
      IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
          () -> interpreter.runForMultipleInputsOutputs(new Object[] {wrong, wrong}, outputs));
      assertTrue(error.getMessage(), error.getMessage().contains("nativeOrder"));
    }
  }

  @Test
  public void mistakesInJavaDataAreIllegalArguments() {
    try (Interpreter interpreter = twoIo()) {
      float[][] a = matrix(2, 1.0f);
      Map<Integer, Object> outputs = new HashMap<>();
      outputs.put(0, new float[2][3]);
      IllegalArgumentException type = assertThrows(IllegalArgumentException.class,
          () -> interpreter.runForMultipleInputsOutputs(new Object[] {a, new int[2][3]}, outputs));
      assertTrue(type.getMessage(), type.getMessage().contains("FLOAT32") && type.getMessage().contains("int"));
      float[][] ragged = {{1, 2, 3}, {4, 5}};
      assertThrows(IllegalArgumentException.class,
          () -> interpreter.runForMultipleInputsOutputs(new Object[] {ragged, ragged}, outputs));
      assertThrows(IllegalArgumentException.class, () -> interpreter.runForMultipleInputsOutputs(new Object[] {a}, outputs));
      assertThrows(IllegalArgumentException.class,
          () -> interpreter.runForMultipleInputsOutputs(new Object[] {a, null}, outputs));
      assertThrows(IllegalArgumentException.class,
          () -> interpreter.runForMultipleInputsOutputs(new Object[] {a, "text"}, outputs));
      Map<Integer, Object> wrongShape = new HashMap<>();
      wrongShape.put(0, new float[3][2]);
      IllegalArgumentException shape = assertThrows(IllegalArgumentException.class,
          () -> interpreter.runForMultipleInputsOutputs(new Object[] {a, a}, wrongShape));
      assertTrue(shape.getMessage(), shape.getMessage().contains("[2, 3]"));
      Map<Integer, Object> badIndex = new HashMap<>();
      badIndex.put(5, new float[2][3]);
      assertThrows(IllegalArgumentException.class, () -> interpreter.runForMultipleInputsOutputs(new Object[] {a, a}, badIndex));
      // After all of that the interpreter still works.
      interpreter.runForMultipleInputsOutputs(new Object[] {a, a}, outputs);
      assertEquals(2 * a[1][1], ((float[][]) outputs.get(0))[1][1], 0.0f);
    }
  }

  @Test
  public void aShapeTheGraphCannotTakeIsTheRuntimesError() {
    try (Interpreter interpreter = twoIo()) {
      LiteException error = assertThrows(LiteException.class, () -> interpreter.resizeInput(0, new int[] {2, -2}));
      assertEquals(Status.INVALID_ARGUMENT, error.status());
      assertTrue(error.getMessage(), error.getMessage().contains("-2"));
      LiteException rank = assertThrows(LiteException.class, () -> interpreter.resizeInput(0, new int[9]));
      assertNotEquals(Status.OK, rank.status());
      interpreter.resizeInput(0, new int[] {2, 3});
      interpreter.resizeInput(1, new int[] {5, 3}); // a [2, 3] + [5, 3] add cannot broadcast
      LiteException prepare = assertThrows(LiteException.class, interpreter::allocateTensors);
      assertTrue(prepare.getMessage(), prepare.getMessage().length() > 10);
    }
  }

  @Test
  public void int64AndBoolTensors() {
    try (Interpreter interpreter = new Interpreter(TestFixtures.file("int64_ops.lite"))) {
      assertEquals(DataType.INT64, interpreter.getInputTensor(0).dataType());
      assertEquals(DataType.BOOL, interpreter.getOutputTensor(1).dataType());
      long[] x = {-5, 0, 7, Long.MAX_VALUE / 4, -1L << 40};
      long[] tripled = new long[5];
      boolean[] positive = new boolean[5];
      Map<Integer, Object> outputs = new HashMap<>();
      outputs.put(0, tripled);
      outputs.put(1, positive);
      interpreter.runForMultipleInputsOutputs(new Object[] {x}, outputs);
      long[] tripledAgain = new long[5];
      interpreter.run(x, tripledAgain); // the one-input form reads output 0
      assertArrayEquals(tripled, tripledAgain);
      byte[] positiveBytes = new byte[5]; // byte arrays carry BOOL too
      Map<Integer, Object> asBytes = new HashMap<>();
      asBytes.put(1, positiveBytes);
      interpreter.runForMultipleInputsOutputs(new Object[] {x}, asBytes);
      for (int i = 0; i < x.length; i++) {
        assertEquals(x[i] * 3, tripled[i]);
        assertEquals(x[i] > 0, positive[i]);
        assertEquals(x[i] > 0 ? 1 : 0, positiveBytes[i]);
      }
    }
  }

  @Test
  public void theOneInputFormRefusesAModelWithTwoInputs() {
    try (Interpreter interpreter = twoIo()) {
      IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
          () -> interpreter.run(matrix(2, 0.0f), new float[2][3]));
      assertTrue(error.getMessage(), error.getMessage().contains("2 inputs"));
    }
  }

  @Test
  public void closeIsIdempotentAndLaterCallsFail() {
    Interpreter interpreter = twoIo();
    interpreter.close();
    interpreter.close();
    assertThrows(IllegalStateException.class, () -> interpreter.getInputTensor(0));
    assertThrows(IllegalStateException.class, interpreter::allocateTensors);
    assertThrows(IllegalStateException.class, () -> interpreter.run(new float[1][3], new float[1][3]));
  }

  @Test
  public void modelsFromMappedHeapAndOffsetBuffers() throws Exception {
    File file = TestFixtures.file("two_io.lite");
    float[][] a = matrix(2, 3.0f);
    float[][] expected = new float[2][3];
    for (int i = 0; i < 2; i++) {
      for (int j = 0; j < 3; j++) {
        expected[i][j] = a[i][j] + a[i][j];
      }
    }
    MappedByteBuffer mapped;
    try (RandomAccessFile raf = new RandomAccessFile(file, "r"); FileChannel channel = raf.getChannel()) {
      mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
    }
    byte[] bytes = Files.readAllBytes(file.toPath());
    ByteBuffer shifted = ByteBuffer.allocateDirect(bytes.length + 3);
    shifted.position(3);
    shifted.put(bytes);
    shifted.position(3); // an unaligned start: the runtime copies it
    ByteBuffer[] sources = {mapped, ByteBuffer.wrap(bytes), shifted, ByteBuffer.wrap(bytes).asReadOnlyBuffer()};
    for (ByteBuffer source : sources) {
      try (Interpreter interpreter = new Interpreter(source, new Interpreter.Options().setNumThreads(2))) {
        float[][] sum = new float[2][3];
        Map<Integer, Object> outputs = new HashMap<>();
        outputs.put(0, sum);
        interpreter.runForMultipleInputsOutputs(new Object[] {a, a}, outputs);
        assertArrayEquals(expected[1], sum[1], 0.0f);
      }
    }
  }

  @Test
  public void optionsAreChecked() {
    Interpreter.Options options = new Interpreter.Options();
    assertThrows(IllegalArgumentException.class, () -> options.setNumThreads(0));
    assertEquals(1, options.setNumThreads(-1).getNumThreads());
    assertThrows(IllegalArgumentException.class, () -> options.setBackend("gpu"));
    assertThrows(IllegalArgumentException.class, () -> options.setCpuAffinity(null));
    assertEquals(Backend.OPENCL, options.setBackend(" OpenCL ").getBackend());
  }

  @Test
  public void cpuBackendIsTheDefault() {
    assertEquals(Backend.CPU, new Interpreter.Options().getBackend());
    try (Interpreter interpreter = new Interpreter(TestFixtures.file("two_io.lite"),
        new Interpreter.Options().setBackend("cpu"))) {
      assertEquals(Backend.CPU, interpreter.getBackend());
      assertEquals("", interpreter.getBackendNote());
      assertEquals("", interpreter.getBackendInfo());
      float[][] out = new float[1][3];
      Map<Integer, Object> outputs = new HashMap<>();
      outputs.put(0, out);
      interpreter.runForMultipleInputsOutputs(new Object[] {new float[][] {{1, 2, 3}}, new float[][] {{1, 1, 1}}},
          outputs);
      assertArrayEquals(new float[] {2, 3, 4}, out[0], 0.0f);
    }
  }


  @Test
  public void fastCoreAffinityRunsAndReportsItsChoice() {
    try (Interpreter interpreter = new Interpreter(TestFixtures.file("two_io.lite"),
        new Interpreter.Options().setNumThreads(1).setCpuAffinity(CpuAffinity.FAST_CORES))) {
      int[] cpus = interpreter.getCpuAffinityCpus();
      assertTrue(cpus.length <= 1); // this host's CPUs are alike: usually nothing is pinned
      int available = Runtime.getRuntime().availableProcessors();
      for (int cpu : cpus) {
        assertTrue(cpu >= 0 && cpu < Math.max(available, 1024));
      }
      float[][] out = new float[1][3];
      Map<Integer, Object> outputs = new HashMap<>();
      outputs.put(1, out);
      interpreter.runForMultipleInputsOutputs(new Object[] {new float[][] {{1, 2, 3}}, new float[][] {{2, 2, 2}}}, outputs);
      assertArrayEquals(new float[] {2, 4, 6}, out[0], 0.0f);
    }
  }

  @Test
  public void inferenceTimeIsMeasured() {
    try (Interpreter interpreter = twoIo()) {
      assertEquals(-1, interpreter.getLastNativeInferenceDurationNanoseconds());
      Map<Integer, Object> outputs = new HashMap<>();
      interpreter.runForMultipleInputsOutputs(new Object[] {matrix(4, 0), matrix(4, 1)}, outputs);
      assertTrue(interpreter.getLastNativeInferenceDurationNanoseconds() > 0);
    }
  }
}
