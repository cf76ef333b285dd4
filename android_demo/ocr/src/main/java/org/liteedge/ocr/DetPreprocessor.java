package org.liteedge.ocr;

import java.nio.FloatBuffer;

/**
 * The detector's input (PaddleOCR's DetResizeForTest with limit_type "max" and NormalizeImage): the
 * longer side at most 960 pixels, both sides rounded to a multiple of 32, ImageNet mean and std.
 */
public final class DetPreprocessor {
  public static final int LIMIT_SIDE = 960;
  static final float[] MEAN = {0.485f, 0.456f, 0.406f};
  static final float[] STD = {0.229f, 0.224f, 0.225f};

  private DetPreprocessor() {}

  /** {height, width} of the detector's input for an image of this size. */
  public static int[] inputSize(int height, int width) {
    int longer = Math.max(height, width);
    double ratio = longer > LIMIT_SIDE ? (double) LIMIT_SIDE / longer : 1.0;
    return new int[] {
      Math.max((int) Math.floor(height * ratio / 32.0 + 0.5) * 32, 32),
      Math.max((int) Math.floor(width * ratio / 32.0 + 0.5) * 32, 32)
    };
  }

  public static ModelInput toInput(RgbImage image) {
    int[] size = inputSize(image.height(), image.width());
    RgbImage resized = ImageResize.bilinear(image, size[0], size[1]);
    ModelInput input = new ModelInput(3, size[0], size[1]);
    FloatBuffer values = input.floats();
    for (int c = 0; c < 3; c++) {
      for (int y = 0; y < size[0]; y++) {
        for (int x = 0; x < size[1]; x++) {
          values.put(((float) resized.get(x, y, c) / 255.0f - MEAN[c]) / STD[c]);
        }
      }
    }
    return input;
  }
}
