package org.liteedge.runtime;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.Test;

/**
 * The GPU backend through Java. {@code make android-test} runs the release JUnit run with PoCL (an
 * OpenCL implementation on the CPU: the same API calls and kernels a Mali or Adreno driver gets) and
 * the ASan run with no OpenCL library ({@code LITE_OPENCL_LIBRARY} naming a missing file), and says
 * which with {@code -Dliteedge.opencl=available|unavailable}; each test checks what that case must
 * do (without a device: the refusal, "auto" on the CPU with its reason, nothing cached), none is
 * skipped. Oracle: onnxruntime on the source ONNX model (the fixtures), fp32 within
 * 1e-4 * max(1, max|ref|); fp16 storage within 0.03 with the same CTC reading (the bounds of
 * tests/test_opencl_backend.py, docs/OPENCL.md "Precision").
 */
public class OpenClBackendTest {
  private static boolean openClAvailable() {
    String state = System.getProperty("liteedge.opencl");
    if ("available".equals(state)) {
      return true;
    }
    if ("unavailable".equals(state)) {
      return false;
    }
    throw new AssertionError("-Dliteedge.opencl=available|unavailable is not set: run `make android-test`");
  }

  /** rec on the given options: its output for the fixture line, after checking its shape. */
  private static float[] runRec(Interpreter interpreter) throws Exception {
    float[] expected = TestFixtures.floats("rec_expected_onnxruntime.bin");
    interpreter.resizeInput(0, TestFixtures.shape("rec_input.bin"));
    interpreter.allocateTensors();
    assertArrayEquals(TestFixtures.shape("rec_expected_onnxruntime.bin"), interpreter.getOutputTensor(0).shape());
    ByteBuffer output = ByteBuffer.allocateDirect(expected.length * 4).order(ByteOrder.nativeOrder());
    interpreter.run(TestFixtures.direct(TestFixtures.floats("rec_input.bin")), output);
    return TestFixtures.read(output);
  }

  private static void assertWithin(String what, float[] ours, float[] expected, double relative) {
    double bound = relative * Math.max(1.0, TestFixtures.maxAbs(expected));
    double diff = TestFixtures.maxAbsDiff(ours, expected);
    assertTrue(what + ": max |ours - onnxruntime| = " + diff + " > " + bound, diff <= bound);
  }

  /** CTC greedy decoding of a [1, steps, classes] output: the class ids read, blanks (0) and repeats dropped. */
  private static List<Integer> ctcReading(float[] probabilities, int classes) {
    List<Integer> reading = new ArrayList<>();
    int previous = 0;
    for (int step = 0; step < probabilities.length / classes; step++) {
      int best = 0;
      for (int c = 1; c < classes; c++) {
        if (probabilities[step * classes + c] > probabilities[step * classes + best]) {
          best = c;
        }
      }
      if (best != 0 && best != previous) {
        reading.add(best);
      }
      previous = best;
    }
    return reading;
  }

  private static int opsOn(Interpreter interpreter, String backend) {
    int count = 0;
    for (OpProfile op : interpreter.getOpProfile()) {
      if (op.computedBy() >= 0 && op.backend().equals(backend)) {
        count++;
      }
    }
    return count;
  }

  @Test
  public void openClRunsRecLikeOnnxruntimeOrSaysWhyNot() throws Exception {
    float[] expected = TestFixtures.floats("rec_expected_onnxruntime.bin");
    Interpreter.Options options = new Interpreter.Options().setBackend("opencl");
    if (!openClAvailable()) {
      LiteException refused = assertThrows(LiteException.class,
          () -> new Interpreter(TestFixtures.file("rec.lite"), options));
      assertEquals(Status.UNSUPPORTED, refused.status());
      assertTrue(refused.getMessage(), refused.getMessage().contains("'opencl' is unavailable")
          && refused.getMessage().contains("libOpenCL"));
      return;
    }
    try (Interpreter interpreter = new Interpreter(TestFixtures.file("rec.lite"), options)) {
      assertEquals(Backend.OPENCL, interpreter.getBackend());
      assertTrue(interpreter.getBackendInfo(), interpreter.getBackendInfo().contains("Portable Computing Language"));
      assertEquals("", interpreter.getBackendNote());
      float[] ours = runRec(interpreter);
      assertWithin("rec on OpenCL, fp32", ours, expected, 1e-4);
      int onCpu = opsOn(interpreter, "cpu");
      int onGpu = opsOn(interpreter, "opencl");
      assertEquals("every op of PP-OCRv4 rec has an OpenCL kernel", 0, onCpu);
      assertTrue("ops on OpenCL: " + onGpu, onGpu > 50);
    }
  }

  @Test
  public void halfPrecisionKeepsTheReading() throws Exception {
    float[] expected = TestFixtures.floats("rec_expected_onnxruntime.bin");
    int classes = TestFixtures.shape("rec_expected_onnxruntime.bin")[2];
    Interpreter.Options options = new Interpreter.Options().setBackend(Backend.AUTO).setPrecision("fp16");
    try (Interpreter interpreter = new Interpreter(TestFixtures.file("rec.lite"), options)) {
      float[] ours = runRec(interpreter);
      if (!openClAvailable()) {
        assertEquals(Backend.CPU, interpreter.getBackend());
        assertWithin("rec on the CPU: fp16 is the GPU's precision only", ours, expected, 1e-4);
        return;
      }
      assertWithin("rec on OpenCL, fp16 storage", ours, expected, 0.03);
      List<Integer> reading = ctcReading(expected, classes);
      assertTrue("the fixture line reads as text: " + reading, reading.size() >= 5);
      assertEquals(reading, ctcReading(ours, classes));
    }
  }

  @Test
  public void autoFallsBackToTheCpuWithAReason() throws Exception {
    float[] expected = TestFixtures.floats("rec_expected_onnxruntime.bin");
    try (Interpreter interpreter = new Interpreter(TestFixtures.file("rec.lite"),
        new Interpreter.Options().setBackend("auto"))) {
      float[] ours = runRec(interpreter);
      assertWithin("rec with backend auto", ours, expected, 1e-4);
      if (openClAvailable()) {
        assertEquals(Backend.OPENCL, interpreter.getBackend());
        assertEquals("", interpreter.getBackendNote());
        assertEquals(0, opsOn(interpreter, "cpu"));
      } else {
        assertEquals(Backend.CPU, interpreter.getBackend());
        assertEquals("", interpreter.getBackendInfo());
        assertTrue(interpreter.getBackendNote(), interpreter.getBackendNote().startsWith("OpenCL unavailable"));
        assertEquals(0, opsOn(interpreter, "opencl"));
        assertEquals("", interpreter.getBackendProfile());
      }
    }
  }

  @Test
  public void cacheDirKeepsTheProgramAndTheTuning() throws Exception {
    File cache = Files.createTempDirectory("lite-opencl-cache").toFile();
    try {
      Interpreter.Options options = new Interpreter.Options().setBackend("auto").setCacheDir(cache)
          .setTuning(Tuning.FAST);
      float[] input = TestFixtures.floats("cls_input.bin");
      float[] expected = TestFixtures.floats("cls_expected_onnxruntime.bin");
      if (!openClAvailable()) {
        float[][] out = new float[1][2];
        try (Interpreter interpreter = new Interpreter(TestFixtures.file("cls.lite"), options)) {
          interpreter.resizeInput(0, TestFixtures.shape("cls_input.bin"));
          interpreter.setProfiling(true);
          interpreter.run(TestFixtures.direct(input), out);
          assertEquals(Backend.CPU, interpreter.getBackend());
          assertEquals("", interpreter.getBackendProfile());
        }
        assertWithin("cls on the CPU", out[0], expected, 1e-4);
        assertEquals("the CPU writes nothing into the GPU cache", 0, cache.list().length);
        return;
      }
      float[][] cold = new float[1][2];
      try (Interpreter interpreter = new Interpreter(TestFixtures.file("cls.lite"), options)) {
        interpreter.resizeInput(0, TestFixtures.shape("cls_input.bin"));
        interpreter.setProfiling(true);
        interpreter.run(TestFixtures.direct(input), cold);
        assertTrue(interpreter.getBackendInfo(), interpreter.getBackendInfo().contains("compiled from source"));
        String profile = interpreter.getBackendProfile();
        assertTrue(profile, profile.startsWith("program\tcompiled\t") && profile.contains("\ntune\tfast\t"));
        assertTrue(profile, profile.contains("\nkernel\t"));
      }
      assertWithin("cls on OpenCL, tuned", cold[0], expected, 1e-4);
      String[] files = cache.list();
      assertTrue("cache files: " + String.join(", ", files), files.length == 2);
      float[][] warm = new float[1][2];
      try (Interpreter interpreter = new Interpreter(TestFixtures.file("cls.lite"), options)) {
        interpreter.resizeInput(0, TestFixtures.shape("cls_input.bin"));
        interpreter.run(TestFixtures.direct(input), warm);
        String info = interpreter.getBackendInfo();
        assertTrue(info, info.contains("loaded from the binary cache") && info.contains("loaded from the cache"));
      }
      assertArrayEquals(cold[0], warm[0], 0.0f);
    } finally {
      for (File file : cache.listFiles()) {
        assertTrue(file.delete());
      }
      assertTrue(cache.delete());
    }
  }

  @Test
  public void gpuOptionsAreChecked() throws Exception {
    Interpreter.Options options = new Interpreter.Options();
    assertEquals(Precision.FP32, options.getPrecision());
    assertEquals(Tuning.NONE, options.getTuning());
    assertEquals(Precision.FP16_COMPUTE, options.setPrecision(" FP16_compute ").getPrecision());
    assertEquals(Tuning.EXHAUSTIVE, options.setTuning("Exhaustive").getTuning());
    IllegalArgumentException half = assertThrows(IllegalArgumentException.class, () -> options.setPrecision("half"));
    assertTrue(half.getMessage(), half.getMessage().contains("\"fp16\""));
    assertThrows(IllegalArgumentException.class, () -> options.setTuning("slow"));
    assertThrows(IllegalArgumentException.class, () -> options.setPrecision((Precision) null));
    File missing = new File(Files.createTempDirectory("lite-opencl").toFile(), "missing");
    IllegalArgumentException noDir = assertThrows(IllegalArgumentException.class, () -> options.setCacheDir(missing));
    assertTrue(noDir.getMessage(), noDir.getMessage().contains("not an existing directory"));
    assertTrue(missing.getParentFile().delete());
    assertEquals(null, options.setCacheDir(null).getCacheDir());
    assertNotEquals(Backend.AUTO, Backend.fromName("opencl"));
  }
}
