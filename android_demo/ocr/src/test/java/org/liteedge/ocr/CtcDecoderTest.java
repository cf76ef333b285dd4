package org.liteedge.ocr;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import java.util.Arrays;
import org.junit.Test;

/** CTC decoding of hand-made probability rows. */
public class CtcDecoderTest {
  private static final CtcDecoder DECODER = new CtcDecoder(Arrays.asList("a", "b", "\u6587"));

  private static float[] rows(int... best) {
    int classes = DECODER.classCount(); // blank, a, b, 文, space
    float[] probabilities = new float[best.length * classes];
    for (int t = 0; t < best.length; t++) {
      for (int c = 0; c < classes; c++) {
        probabilities[t * classes + c] = c == best[t] ? 0.8f : 0.05f;
      }
    }
    return probabilities;
  }

  @Test
  public void repeatsMergeBlanksSeparateAndTheLastClassIsASpace() {
    CtcDecoder.Decoded decoded = DECODER.decode(rows(1, 1, 0, 1, 2, 2, 4, 3, 0, 0), 10, 5);
    assertEquals("aab \u6587", decoded.text);
    assertEquals(0.8, decoded.score, 1e-6);
  }

  @Test
  public void onlyBlanksReadNothing() {
    CtcDecoder.Decoded decoded = DECODER.decode(rows(0, 0, 0), 3, 5);
    assertEquals("", decoded.text);
    assertEquals(0.0, decoded.score, 0.0);
  }

  @Test
  public void aDictionaryThatDoesNotFitTheModelIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> DECODER.decode(new float[12], 2, 6));
  }
}
