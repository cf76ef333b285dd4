package org.liteedge.runtime;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.Test;

/**
 * Threads: the runtime computes the same bytes whatever its thread count; interpreters in different
 * Java threads run at the same time; one interpreter shared by threads serializes their calls.
 */
public class ThreadsTest {
  private static float[] runCls(Interpreter interpreter, float[] input) throws Exception {
    interpreter.resizeInput(0, TestFixtures.shape("cls_input.bin"));
    float[][] out = new float[1][2];
    interpreter.run(TestFixtures.direct(input), out);
    return out[0];
  }

  @Test
  public void sameBytesAtOneTwoAndFourThreads() throws Exception {
    float[] input = TestFixtures.floats("cls_input.bin");
    float[] one;
    try (Interpreter interpreter = new Interpreter(TestFixtures.file("cls.lite"))) {
      one = runCls(interpreter, input);
    }
    for (int threads : new int[] {2, 4}) {
      try (Interpreter interpreter = new Interpreter(TestFixtures.file("cls.lite"),
          new Interpreter.Options().setNumThreads(threads))) {
        assertArrayEquals("threads=" + threads, one, runCls(interpreter, input), 0.0f);
      }
    }
  }

  @Test
  public void oneInterpreterPerThreadRunsConcurrently() throws Exception {
    float[] input = TestFixtures.floats("cls_input.bin");
    float[] expected;
    try (Interpreter interpreter = new Interpreter(TestFixtures.file("cls.lite"))) {
      expected = runCls(interpreter, input);
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<float[]>> results = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        results.add(pool.submit(() -> {
          try (Interpreter interpreter = new Interpreter(TestFixtures.file("cls.lite"))) {
            float[] last = null;
            for (int run = 0; run < 5; run++) {
              last = runCls(interpreter, input);
            }
            return last;
          }
        }));
      }
      for (Future<float[]> result : results) {
        assertArrayEquals(expected, result.get(), 0.0f);
      }
    } finally {
      pool.shutdown();
    }
  }

  @Test
  public void aSharedInterpreterSerializesCallsAndCloseWaits() throws Exception {
    float[] input = TestFixtures.floats("cls_input.bin");
    Interpreter shared = new Interpreter(TestFixtures.file("cls.lite"));
    float[] expected = runCls(shared, input);
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        results.add(pool.submit(() -> {
          int good = 0;
          for (int run = 0; run < 6; run++) {
            float[][] out = new float[1][2];
            try {
              synchronized (shared) { // resize + run as one step against the other threads
                shared.resizeInput(0, TestFixtures.shape("cls_input.bin"));
                shared.run(TestFixtures.direct(input), out);
              }
            } catch (IllegalStateException closed) {
              break;
            }
            assertArrayEquals(expected, out[0], 0.0f);
            good++;
          }
          return good;
        }));
      }
      int total = 0;
      for (Future<Integer> result : results) {
        total += result.get();
      }
      assertEquals(18, total);
      shared.close();
      assertEquals(IllegalStateException.class, callAfterClose(shared).getClass());
    } finally {
      pool.shutdown();
    }
  }

  private static Exception callAfterClose(Interpreter interpreter) {
    try {
      interpreter.allocateTensors();
      return new Exception("no failure");
    } catch (IllegalStateException expected) {
      return expected;
    }
  }
}
