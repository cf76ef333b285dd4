package org.liteedge.runtime;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.Random;
import org.junit.Test;

/** Models that cannot be loaded fail with the runtime's status and message, and lose nothing. */
public class ModelErrorsTest {
  @Test
  public void aMissingFileIsAnIoErrorNamingThePath() {
    File missing = new File(TestFixtures.dir(), "no such model \u00e9\u6a21\u578b.lite");
    LiteException error = assertThrows(LiteException.class, () -> new Interpreter(missing));
    assertEquals(Status.IO_ERROR, error.status());
    assertTrue(error.getMessage(), error.getMessage().contains("no such model \u00e9\u6a21\u578b.lite"));
  }

  @Test
  public void garbageIsAnInvalidModel() {
    byte[] noise = new byte[4096];
    new Random(7).nextBytes(noise);
    LiteException error = assertThrows(LiteException.class, () -> new Interpreter(ByteBuffer.wrap(noise)));
    assertEquals(Status.INVALID_MODEL, error.status());
    assertThrows(LiteException.class, () -> new Interpreter(ByteBuffer.allocateDirect(0)));
  }

  @Test
  public void everyTruncationOfAModelIsRefused() throws Exception {
    byte[] model = Files.readAllBytes(TestFixtures.file("two_io.lite").toPath());
    for (int length = 0; length < model.length; length += 37) {
      byte[] cut = Arrays.copyOf(model, length);
      LiteException error = assertThrows(LiteException.class, () -> new Interpreter(ByteBuffer.wrap(cut)));
      assertEquals(length == 0 ? Status.INVALID_ARGUMENT : Status.INVALID_MODEL, error.status());
      assertTrue(error.getMessage(), error.getMessage().length() > 10);
    }
  }

  @Test
  public void flippedBytesNeverCrash() throws Exception {
    byte[] model = Files.readAllBytes(TestFixtures.file("int64_ops.lite").toPath());
    Random random = new Random(11);
    int refused = 0;
    for (int trial = 0; trial < 200; trial++) {
      byte[] changed = model.clone();
      for (int flips = 0; flips < 4; flips++) {
        changed[random.nextInt(changed.length)] ^= (byte) (1 << random.nextInt(8));
      }
      try (Interpreter interpreter = new Interpreter(ByteBuffer.wrap(changed))) {
        interpreter.resizeInput(0, new int[] {3});
        long[] tripled = new long[3];
        interpreter.run(new long[] {1, 2, 3}, tripled);
      } catch (LiteException | IllegalArgumentException expected) {
        assertTrue(expected.getMessage() != null && !expected.getMessage().isEmpty());
        refused++;
      }
    }
    // Flips in names, padding or unused bytes load and run; the rest is refused with a message.
    assertTrue("refused " + refused + " of 200", refused > 0);
  }
}
