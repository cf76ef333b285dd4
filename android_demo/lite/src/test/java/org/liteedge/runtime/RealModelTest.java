package org.liteedge.runtime;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.Test;

/**
 * PaddleOCR's cls and rec models through JNI against onnxruntime on the source ONNX model, on a
 * line rendered by the Python demo. Bound: max |ours - onnxruntime| <= 1e-4 * max(1, max |ref|), the
 * fp32 bound of the repository's tests (float summation order differs between the engines).
 */
public class RealModelTest {
  private static void checkAgainstOnnxruntime(String key, Interpreter.Options options) throws Exception {
    float[] input = TestFixtures.floats(key + "_input.bin");
    float[] expected = TestFixtures.floats(key + "_expected_onnxruntime.bin");
    int[] outputShape = TestFixtures.shape(key + "_expected_onnxruntime.bin");
    try (Interpreter interpreter = new Interpreter(TestFixtures.file(key + ".lite"), options)) {
      interpreter.resizeInput(0, TestFixtures.shape(key + "_input.bin"));
      interpreter.allocateTensors();
      assertArrayEquals(outputShape, interpreter.getOutputTensor(0).shape());
      ByteBuffer output = ByteBuffer.allocateDirect(expected.length * 4).order(ByteOrder.nativeOrder());
      interpreter.run(TestFixtures.direct(input), output);
      float[] ours = TestFixtures.read(output);
      double bound = 1e-4 * Math.max(1.0, TestFixtures.maxAbs(expected));
      double diff = TestFixtures.maxAbsDiff(ours, expected);
      assertTrue(key + ": max |ours - onnxruntime| = " + diff + " > " + bound, diff <= bound);
    }
  }

  @Test
  public void clsMatchesOnnxruntime() throws Exception {
    checkAgainstOnnxruntime("cls", new Interpreter.Options());
  }

  @Test
  public void recMatchesOnnxruntime() throws Exception {
    checkAgainstOnnxruntime("rec", new Interpreter.Options());
  }

  @Test
  public void recMatchesOnnxruntimeOnTwoThreads() throws Exception {
    checkAgainstOnnxruntime("rec", new Interpreter.Options().setNumThreads(2));
  }

  @Test
  public void recTakesOtherWidths() throws Exception {
    float[] input = TestFixtures.floats("rec_input.bin"); // [1, 3, 48, 320]
    try (Interpreter interpreter = new Interpreter(TestFixtures.file("rec.lite"))) {
      for (int width : new int[] {160, 480, 320}) {
        float[][][][] image = new float[1][3][48][width];
        for (int c = 0; c < 3; c++) {
          for (int y = 0; y < 48; y++) {
            for (int x = 0; x < Math.min(width, 320); x++) {
              image[0][c][y][x] = input[(c * 48 + y) * 320 + x];
            }
          }
        }
        int classes = interpreter.getOutputTensor(0).shape()[2]; // declared [-1, -1, 6625]
        float[][][] probabilities = new float[1][width / 8][classes];
        interpreter.run(image, probabilities); // resizes to the array's width first
        float total = 0.0f;
        for (float p : probabilities[0][0]) {
          total += p;
        }
        assertTrue("softmax rows sum to 1, got " + total, Math.abs(total - 1.0f) < 1e-3f);
      }
    }
  }
}
