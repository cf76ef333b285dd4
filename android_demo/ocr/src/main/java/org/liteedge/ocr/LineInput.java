package org.liteedge.ocr;

import java.nio.FloatBuffer;

/**
 * The classifier's and recognizer's input (PaddleOCR's resize_norm_img): the line resized to a
 * height of 48 with its aspect ratio kept up to a maximum width, mapped from [0, 255] to [-1, 1],
 * and padded on the right with zeros to the input width.
 */
public final class LineInput {
  public static final int HEIGHT = 48;
  public static final int CLS_WIDTH = 192;
  public static final int REC_MIN_WIDTH = 320;

  private LineInput() {}

  /** predict_rec's input width for one line: 48 * max(320 / 48, width / height). */
  public static int recWidth(RgbImage line) {
    return (int) (HEIGHT * Math.max((double) REC_MIN_WIDTH / HEIGHT, (double) line.width() / line.height()));
  }

  public static ModelInput toInput(RgbImage line, int targetWidth, int maxWidth) {
    int resizedWidth = Math.min(maxWidth, (int) Math.ceil((double) HEIGHT * line.width() / line.height()));
    RgbImage resized = ImageResize.bilinear(line, HEIGHT, resizedWidth);
    ModelInput input = new ModelInput(3, HEIGHT, targetWidth);
    FloatBuffer values = input.floats();
    for (int c = 0; c < 3; c++) {
      for (int y = 0; y < HEIGHT; y++) {
        int row = (c * HEIGHT + y) * targetWidth;
        for (int x = 0; x < resizedWidth; x++) {
          values.put(row + x, (float) resized.get(x, y, c) / 127.5f - 1.0f);
        }
      }
    }
    return input;
  }
}
