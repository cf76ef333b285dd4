package org.liteedge.ocr;

/**
 * An 8-bit RGB image, rows top to bottom, 3 bytes per pixel. The OCR library works on this type
 * so it runs anywhere (an Android app converts a Bitmap with {@link #fromArgb}).
 */
public final class RgbImage {
  private final int width;
  private final int height;
  private final byte[] rgb;

  public RgbImage(int width, int height, byte[] rgb) {
    if (width <= 0 || height <= 0 || rgb == null || rgb.length != (long) width * height * 3) {
      throw new IllegalArgumentException("an RGB image of " + width + "x" + height + " needs "
          + (long) width * height * 3 + " bytes");
    }
    this.width = width;
    this.height = height;
    this.rgb = rgb;
  }

  /** From packed ARGB pixels (Android's Bitmap.getPixels, java.awt's getRGB); alpha is ignored. */
  public static RgbImage fromArgb(int[] argb, int width, int height) {
    if (argb == null || argb.length != (long) width * height) {
      throw new IllegalArgumentException("expected " + (long) width * height + " ARGB pixels");
    }
    byte[] rgb = new byte[argb.length * 3];
    for (int i = 0; i < argb.length; i++) {
      rgb[3 * i] = (byte) (argb[i] >> 16);
      rgb[3 * i + 1] = (byte) (argb[i] >> 8);
      rgb[3 * i + 2] = (byte) argb[i];
    }
    return new RgbImage(width, height, rgb);
  }

  public int width() {
    return width;
  }

  public int height() {
    return height;
  }

  /** Channel {@code c} (0 red, 1 green, 2 blue) of pixel (x, y), 0..255. */
  public int get(int x, int y, int c) {
    return rgb[(y * width + x) * 3 + c] & 0xFF;
  }

  /** The pixels as packed opaque ARGB (for Bitmap.createBitmap). */
  public int[] toArgb() {
    int[] argb = new int[width * height];
    for (int i = 0; i < argb.length; i++) {
      argb[i] = 0xFF000000 | (rgb[3 * i] & 0xFF) << 16 | (rgb[3 * i + 1] & 0xFF) << 8 | (rgb[3 * i + 2] & 0xFF);
    }
    return argb;
  }

  /** The pixels of the rectangle at (x, y), width x height, which must lie inside the image. */
  public RgbImage region(int x, int y, int regionWidth, int regionHeight) {
    if (x < 0 || y < 0 || regionWidth <= 0 || regionHeight <= 0 || x + regionWidth > width
        || y + regionHeight > height) {
      throw new IllegalArgumentException("region " + regionWidth + "x" + regionHeight + " at (" + x + ", " + y
          + ") outside a " + width + "x" + height + " image");
    }
    byte[] out = new byte[regionWidth * regionHeight * 3];
    for (int row = 0; row < regionHeight; row++) {
      System.arraycopy(rgb, ((y + row) * width + x) * 3, out, row * regionWidth * 3, regionWidth * 3);
    }
    return new RgbImage(regionWidth, regionHeight, out);
  }

  /** The image turned by 180 degrees. */
  public RgbImage rotate180() {
    byte[] out = new byte[rgb.length];
    int pixels = width * height;
    for (int i = 0; i < pixels; i++) {
      int j = pixels - 1 - i;
      out[3 * j] = rgb[3 * i];
      out[3 * j + 1] = rgb[3 * i + 1];
      out[3 * j + 2] = rgb[3 * i + 2];
    }
    return new RgbImage(width, height, out);
  }

  /** The image turned by 90 degrees counter-clockwise (numpy's rot90): the right column becomes the top row. */
  public RgbImage rotate90CounterClockwise() {
    byte[] out = new byte[rgb.length];
    int outWidth = height;
    for (int y = 0; y < width; y++) {
      for (int x = 0; x < outWidth; x++) {
        int source = (x * width + (width - 1 - y)) * 3;
        int target = (y * outWidth + x) * 3;
        out[target] = rgb[source];
        out[target + 1] = rgb[source + 1];
        out[target + 2] = rgb[source + 2];
      }
    }
    return new RgbImage(outWidth, width, out);
  }
}
