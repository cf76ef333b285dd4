package org.liteedge.ocr;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;

import org.junit.Test;

/** Input sizes and normalization of det, cls and rec (PaddleOCR's rules). */
public class PreprocessTest {
  @Test
  public void detSizesAreMultiplesOf32WithTheLongerSideAtMost960() {
    assertArrayEquals(new int[] {480, 608}, DetPreprocessor.inputSize(480, 600));
    assertArrayEquals(new int[] {352, 512}, DetPreprocessor.inputSize(360, 500));
    assertArrayEquals(new int[] {32, 32}, DetPreprocessor.inputSize(5, 9));
    assertArrayEquals(new int[] {960, 544}, DetPreprocessor.inputSize(2000, 1125)); // ratio 0.48
  }

  @Test
  public void detNormalizesWithImageNetMeanAndStd() {
    byte[] rgb = new byte[40 * 32 * 3];
    java.util.Arrays.fill(rgb, (byte) 255);
    ModelInput input = DetPreprocessor.toInput(new RgbImage(40, 32, rgb));
    assertArrayEquals(new int[] {1, 3, 32, 32}, input.shape());
    assertEquals((1.0f - 0.485f) / 0.229f, input.get(0, 5, 5), 1e-6f);
    assertEquals((1.0f - 0.406f) / 0.225f, input.get(2, 31, 31), 1e-6f);
  }

  @Test
  public void lineInputsKeepTheAspectRatioAndPadWithZero() {
    byte[] rgb = new byte[96 * 24 * 3]; // black, 4:1
    RgbImage line = new RgbImage(96, 24, rgb);
    assertEquals(320, LineInput.recWidth(line));
    ModelInput cls = LineInput.toInput(line, LineInput.CLS_WIDTH, LineInput.CLS_WIDTH);
    assertArrayEquals(new int[] {1, 3, 48, 192}, cls.shape());
    assertEquals(-1.0f, cls.get(1, 10, 191), 0.0f); // 48 * 4 = 192 columns of black: -1
    ModelInput rec = LineInput.toInput(line, 320, 320);
    assertEquals(-1.0f, rec.get(0, 0, 191), 0.0f);
    assertEquals(0.0f, rec.get(0, 0, 192), 0.0f); // padding
    assertEquals(960, LineInput.recWidth(new RgbImage(200, 10, new byte[200 * 10 * 3])));
  }
}
