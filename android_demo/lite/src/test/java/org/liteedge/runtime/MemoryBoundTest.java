package org.liteedge.runtime;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.Test;

/**
 * The memory options through Java, on PP-OCRv4 det (its 3x3 convolutions keep Winograd-transformed
 * weights by default) against onnxruntime's output for one rendered page, fp32 bound
 * 1e-4 * max(1, max|ref|).
 */
public class MemoryBoundTest {
  /** det's output for the fixture page with {@code options}; {@code memory[0]} gets getMemoryBytes(). */
  private static float[] runDet(Interpreter.Options options, long[] memory) throws Exception {
    float[] expected = TestFixtures.floats("det_expected_onnxruntime.bin");
    try (Interpreter interpreter = new Interpreter(TestFixtures.file("det.lite"), options)) {
      assertEquals("nothing is committed before the first allocation", 0, interpreter.getMemoryBytes());
      interpreter.resizeInput(0, TestFixtures.shape("det_input.bin"));
      ByteBuffer output = ByteBuffer.allocateDirect(expected.length * 4).order(ByteOrder.nativeOrder());
      interpreter.run(TestFixtures.direct(TestFixtures.floats("det_input.bin")), output);
      memory[0] = interpreter.getMemoryBytes();
      assertTrue("weights " + interpreter.getWeightsBytes(), interpreter.getWeightsBytes() > 1_000_000);
      assertTrue(memory[0] + " >= arena " + interpreter.getArenaBytes(), memory[0] >= interpreter.getArenaBytes());
      float[] ours = TestFixtures.read(output);
      double bound = 1e-4 * Math.max(1.0, TestFixtures.maxAbs(expected));
      double diff = TestFixtures.maxAbsDiff(ours, expected);
      assertTrue("det: max |ours - onnxruntime| = " + diff + " > " + bound, diff <= bound);
      return ours;
    }
  }

  @Test
  public void packedWeightRatioTradesMemoryForWork() throws Exception {
    long[] fastest = new long[1];
    long[] bounded = new long[1];
    runDet(new Interpreter.Options(), fastest);
    runDet(new Interpreter.Options().setPackedWeightRatio(1.0f), bounded);
    assertTrue("ratio 1.0 commits " + bounded[0] + " bytes, the default " + fastest[0], bounded[0] < fastest[0]);
  }

  @Test
  public void maxMemoryBytesRefusesAPlanOverIt() throws Exception {
    long[] needed = new long[1];
    runDet(new Interpreter.Options().setMaxMemoryBytes(Long.MAX_VALUE), needed);
    try (Interpreter interpreter = new Interpreter(TestFixtures.file("det.lite"),
        new Interpreter.Options().setMaxMemoryBytes(needed[0] / 2))) {
      interpreter.resizeInput(0, TestFixtures.shape("det_input.bin"));
      LiteException refused = assertThrows(LiteException.class, interpreter::allocateTensors);
      assertEquals(Status.OUT_OF_MEMORY, refused.status());
      assertTrue(refused.getMessage(), refused.getMessage().contains(Long.toString(needed[0] / 2)));
      assertEquals("nothing was allocated", 0, interpreter.getMemoryBytes());
    }
    long[] exact = new long[1];
    runDet(new Interpreter.Options().setMaxMemoryBytes(needed[0]), exact);
    assertEquals(needed[0], exact[0]);
  }

  @Test
  public void memoryOptionsAreChecked() {
    Interpreter.Options options = new Interpreter.Options();
    assertEquals(Interpreter.DEFAULT_MAX_MEMORY_BYTES, options.getMaxMemoryBytes());
    assertEquals(Float.POSITIVE_INFINITY, options.getPackedWeightRatio(), 0.0f);
    assertThrows(IllegalArgumentException.class, () -> options.setMaxMemoryBytes(0));
    assertThrows(IllegalArgumentException.class, () -> options.setPackedWeightRatio(Float.NaN));
    assertThrows(IllegalArgumentException.class, () -> options.setPackedWeightRatio(0.0f));
    assertThrows(IllegalArgumentException.class, () -> options.setPackedWeightRatio(-1.5f));
  }
}
