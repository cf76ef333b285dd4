package org.liteedge.runtime;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;
import org.junit.Test;

/**
 * A streaming model (TFLite resource variables: state kept across runs) through Java, step by step
 * against LiteRT's outputs on the same stream, then reset.
 */
public class StreamingModelTest {
  private static final int STEPS = 20;

  @Test
  public void streamMatchesLiteRtAtEveryStepAndRestartsAfterReset() throws Exception {
    try (Interpreter interpreter = new Interpreter(TestFixtures.file("streaming.lite"))) {
      assertEquals(2, interpreter.getVariableCount());
      int outputs = interpreter.getOutputTensorCount();
      float[][] first = null;
      for (int step = 0; step < STEPS; step++) {
        float[][] got = runStep(interpreter, step, outputs);
        if (step == 0) {
          first = got;
        }
        for (int i = 0; i < outputs; i++) {
          float[] expected = TestFixtures.floats("streaming_expected_" + step + "_" + i + ".bin");
          // The fp32 bound of every TFLite import: 1e-5 relative to max(1, max|LiteRT|).
          double bound = 1e-5 * Math.max(1.0, TestFixtures.maxAbs(expected));
          assertTrue("step " + step + " output " + i,
              TestFixtures.maxAbsDiff(got[i], expected) <= bound);
        }
      }
      float[] last = TestFixtures.floats("streaming_expected_" + (STEPS - 1) + "_1.bin");
      assertTrue("the state moves", TestFixtures.maxAbsDiff(first[1], last) > 1e-3);
      interpreter.resetVariables();
      float[][] again = runStep(interpreter, 0, outputs);
      for (int i = 0; i < outputs; i++) {
        assertArrayEquals("after reset the stream starts afresh", first[i], again[i], 0.0f);
      }
    }
  }

  @Test
  public void statelessModelHasNoVariablesAndResetIsHarmless() {
    try (Interpreter interpreter = new Interpreter(TestFixtures.file("two_io.lite"))) {
      assertEquals(0, interpreter.getVariableCount());
      interpreter.resetVariables();
    }
  }

  private static float[][] runStep(Interpreter interpreter, int step, int outputs) throws Exception {
    float[] frame = TestFixtures.floats("streaming_input_" + step + ".bin");
    Map<Integer, Object> results = new HashMap<>();
    ByteBuffer[] buffers = new ByteBuffer[outputs];
    for (int i = 0; i < outputs; i++) {
      buffers[i] = ByteBuffer.allocateDirect((int) interpreter.getOutputTensor(i).numBytes())
          .order(ByteOrder.nativeOrder());
      results.put(i, buffers[i]);
    }
    interpreter.runForMultipleInputsOutputs(new Object[] {TestFixtures.direct(frame)}, results);
    float[][] values = new float[outputs][];
    for (int i = 0; i < outputs; i++) {
      buffers[i].rewind();
      values[i] = TestFixtures.read(buffers[i]);
    }
    return values;
  }
}
