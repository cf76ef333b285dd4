package org.liteedge.ocr;

/**
 * Bilinear resizing with half-pixel centres (cv2.INTER_LINEAR's geometry), computed in double and
 * rounded half up to 8 bits: exactly what the Python side (tests/ocr_pipeline_reference.py) does.
 */
public final class ImageResize {
  private ImageResize() {}

  public static RgbImage bilinear(RgbImage image, int height, int width) {
    if (height <= 0 || width <= 0) {
      throw new IllegalArgumentException("target size " + width + "x" + height);
    }
    int inH = image.height();
    int inW = image.width();
    int[] x0 = new int[width];
    int[] x1 = new int[width];
    double[] fx = new double[width];
    for (int x = 0; x < width; x++) {
      double sx = clamp((x + 0.5) * ((double) inW / width) - 0.5, 0.0, inW - 1.0);
      x0[x] = (int) Math.floor(sx);
      x1[x] = Math.min(x0[x] + 1, inW - 1);
      fx[x] = sx - x0[x];
    }
    byte[] out = new byte[width * height * 3];
    for (int y = 0; y < height; y++) {
      double sy = clamp((y + 0.5) * ((double) inH / height) - 0.5, 0.0, inH - 1.0);
      int y0 = (int) Math.floor(sy);
      int y1 = Math.min(y0 + 1, inH - 1);
      double fy = sy - y0;
      for (int x = 0; x < width; x++) {
        for (int c = 0; c < 3; c++) {
          double top = image.get(x0[x], y0, c) * (1.0 - fx[x]) + image.get(x1[x], y0, c) * fx[x];
          double bottom = image.get(x0[x], y1, c) * (1.0 - fx[x]) + image.get(x1[x], y1, c) * fx[x];
          out[(y * width + x) * 3 + c] = (byte) (int) Math.floor(top * (1.0 - fy) + bottom * fy + 0.5);
        }
      }
    }
    return new RgbImage(width, height, out);
  }

  static double clamp(double value, double low, double high) {
    return Math.min(Math.max(value, low), high);
  }
}
