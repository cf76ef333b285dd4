package org.liteedge.ocr;

/**
 * PaddleOCR's get_rotate_crop_image: a text box cut out of the image as an upright line image
 * (bilinear, borders replicated), turned 90 degrees counter-clockwise when it is at least 1.5 times
 * taller than wide (vertical text).
 */
public final class LineCropper {
  private LineCropper() {}

  public static RgbImage crop(RgbImage image, TextBox box) {
    int width = Math.max((int) Math.max(box.distance(0, 1), box.distance(2, 3)), 1);
    int height = Math.max((int) Math.max(box.distance(0, 3), box.distance(1, 2)), 1);
    double x0 = box.x(0);
    double y0 = box.y(0);
    double x1 = box.x(1);
    double y1 = box.y(1);
    double x3 = box.x(3);
    double y3 = box.y(3);
    byte[] out = new byte[width * height * 3];
    for (int v = 0; v < height; v++) {
      for (int u = 0; u < width; u++) {
        double sx = x0 + ((double) u / width) * (x1 - x0) + ((double) v / height) * (x3 - x0);
        double sy = y0 + ((double) u / width) * (y1 - y0) + ((double) v / height) * (y3 - y0);
        ImageResize.sample(image, sx, sy, out, (v * width + u) * 3);
      }
    }
    RgbImage line = new RgbImage(width, height, out);
    return (double) height / width >= 1.5 ? line.rotate90CounterClockwise() : line;
  }
}
