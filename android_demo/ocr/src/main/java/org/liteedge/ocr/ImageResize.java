package org.liteedge.ocr;

/**
 * Bilinear sampling with replicated borders, computed in double and rounded half up to 8 bits, and
 * resizing with half-pixel centres (cv2.INTER_LINEAR's geometry) on top of it: exactly what the
 * Python side (tests/ocr_pipeline_reference.py) does, expression for expression.
 */
public final class ImageResize {
  private ImageResize() {}

  public static RgbImage bilinear(RgbImage image, int height, int width) {
    if (height <= 0 || width <= 0) {
      throw new IllegalArgumentException("target size " + width + "x" + height);
    }
    double scaleX = (double) image.width() / width;
    double scaleY = (double) image.height() / height;
    byte[] out = new byte[width * height * 3];
    for (int y = 0; y < height; y++) {
      double sy = (y + 0.5) * scaleY - 0.5;
      for (int x = 0; x < width; x++) {
        sample(image, (x + 0.5) * scaleX - 0.5, sy, out, (y * width + x) * 3);
      }
    }
    return new RgbImage(width, height, out);
  }

  /** Writes the 3 channels at source point (sx, sy), clamped into the image, to out[offset..offset+2]. */
  static void sample(RgbImage image, double sx, double sy, byte[] out, int offset) {
    double cx = clamp(sx, 0.0, image.width() - 1.0);
    double cy = clamp(sy, 0.0, image.height() - 1.0);
    int x0 = (int) Math.floor(cx);
    int y0 = (int) Math.floor(cy);
    int x1 = Math.min(x0 + 1, image.width() - 1);
    int y1 = Math.min(y0 + 1, image.height() - 1);
    double fx = cx - x0;
    double fy = cy - y0;
    for (int c = 0; c < 3; c++) {
      double top = image.get(x0, y0, c) * (1.0 - fx) + image.get(x1, y0, c) * fx;
      double bottom = image.get(x0, y1, c) * (1.0 - fx) + image.get(x1, y1, c) * fx;
      out[offset + c] = (byte) (int) Math.floor(top * (1.0 - fy) + bottom * fy + 0.5);
    }
  }

  static double clamp(double value, double low, double high) {
    return Math.min(Math.max(value, low), high);
  }
}
