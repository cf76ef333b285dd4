package org.liteedge.runtime;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.List;
import org.junit.Test;

/** Per-op profiles (the demo's benchmark screen shows them). */
public class ProfilingTest {
  @Test
  public void everyOpIsListedAndTheConvolutionsAreTimed() throws Exception {
    try (Interpreter interpreter = new Interpreter(TestFixtures.file("cls.lite"))) {
      interpreter.resizeInput(0, TestFixtures.shape("cls_input.bin"));
      interpreter.setProfiling(true);
      float[][] out = new float[1][2];
      for (int run = 0; run < 3; run++) {
        interpreter.run(TestFixtures.direct(TestFixtures.floats("cls_input.bin")), out);
      }
      List<OpProfile> profile = interpreter.getOpProfile();
      assertTrue(profile.size() > 10);
      double convSeconds = 0.0;
      for (int i = 0; i < profile.size(); i++) {
        OpProfile op = profile.get(i);
        assertEquals(i, op.opIndex());
        assertTrue(op.calls() == 0 || op.calls() == 3);
        assertTrue(op.computedBy() == -1 || op.computedBy() >= i);
        assertEquals("the default backend is the CPU", "cpu", op.backend());
        if (op.opName().equals("CONV_2D")) {
          convSeconds += op.totalSeconds();
        }
      }
      assertTrue("CONV_2D time " + convSeconds, convSeconds > 0.0);
      interpreter.setProfiling(false);
      interpreter.run(TestFixtures.direct(TestFixtures.floats("cls_input.bin")), out);
      long calls = 0;
      for (OpProfile op : interpreter.getOpProfile()) {
        calls = Math.max(calls, op.calls());
      }
      assertEquals("counters keep their values while off", 3, calls);
    }
  }
}
