package org.liteedge.runtime;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import org.junit.Test;

/** int8 models through Java: quantization parameters, byte inputs and outputs, against LiteRT. */
public class Int8ModelTest {
  @Test
  public void fullIntegerModelMatchesLiteRt() throws Exception {
    try (Interpreter interpreter = new Interpreter(TestFixtures.file("int8_net.lite"))) {
      Tensor input = interpreter.getInputTensor(0);
      assertEquals(DataType.INT8, input.dataType());
      assertArrayEquals(TestFixtures.shape("int8_net_input.bin"), input.shape());
      assertTrue(input.quantizationParams().getScale() > 0.0f);
      assertEquals(-1, input.quantization().axis());
      assertEquals(1, input.quantization().scales().length);

      byte[] values = TestFixtures.bytes("int8_net_input.bin");
      ByteBuffer in = ByteBuffer.allocateDirect(values.length); // int8: one byte per value, no byte order
      in.put(values).rewind();
      Map<Integer, Object> outputs = new HashMap<>();
      byte[][] results = new byte[interpreter.getOutputTensorCount()][];
      for (int i = 0; i < results.length; i++) {
        Tensor output = interpreter.getOutputTensor(i);
        assertEquals(DataType.INT8, output.dataType());
        results[i] = new byte[(int) output.numBytes()];
        outputs.put(i, ByteBuffer.wrap(results[i]));
      }
      interpreter.runForMultipleInputsOutputs(new Object[] {in}, outputs);
      for (int i = 0; i < results.length; i++) {
        Tensor output = interpreter.getOutputTensor(i);
        byte[] expected = TestFixtures.bytes("int8_net_expected_" + output.name() + ".bin");
        assertEquals(expected.length, results[i].length);
        // The runtime's int8 kernels follow TFLite's arithmetic: within 1 LSB of LiteRT (measured: equal).
        for (int j = 0; j < expected.length; j++) {
          assertTrue(output.name() + "[" + j + "]: " + results[i][j] + " vs LiteRT " + expected[j],
              Math.abs(results[i][j] - expected[j]) <= 1);
        }
      }
    }
  }

  @Test
  public void int8ClassifierAgreesWithFloat() throws Exception {
    float[] line = TestFixtures.floats("cls_input.bin");
    int[] shape = TestFixtures.shape("cls_input.bin");
    float[] fp32 = classify("cls.lite", line, shape);
    float[] int8 = classify("cls_int8.lite", line, shape);
    assertTrue(TestFixtures.file("cls_int8.lite").length() * 2 < TestFixtures.file("cls.lite").length());
    assertEquals(fp32[0] > fp32[1], int8[0] > int8[1]);
    // int8 error budget of a softmax probability after ~50 quantized layers (measured 0.004).
    assertTrue(TestFixtures.maxAbsDiff(fp32, int8) < 0.05);
  }

  private static float[] classify(String model, float[] input, int[] shape) {
    try (Interpreter interpreter = new Interpreter(TestFixtures.file(model))) {
      interpreter.resizeInput(0, shape);
      float[][] probabilities = new float[1][2];
      interpreter.run(TestFixtures.direct(input), probabilities);
      return probabilities[0];
    }
  }
}
