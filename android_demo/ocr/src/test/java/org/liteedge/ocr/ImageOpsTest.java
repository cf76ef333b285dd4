package org.liteedge.ocr;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import org.junit.Test;

/** Resizing, rotating and cropping against hand-computed pixels. */
public class ImageOpsTest {
  private static RgbImage gradient(int width, int height) {
    byte[] rgb = new byte[width * height * 3];
    for (int y = 0; y < height; y++) {
      for (int x = 0; x < width; x++) {
        rgb[(y * width + x) * 3] = (byte) (x * 10);
        rgb[(y * width + x) * 3 + 1] = (byte) (y * 20);
        rgb[(y * width + x) * 3 + 2] = (byte) 200;
      }
    }
    return new RgbImage(width, height, rgb);
  }

  @Test
  public void resizingToTheSameSizeKeepsEveryPixel() {
    RgbImage image = gradient(7, 5);
    assertArrayEquals(image.toArgb(), ImageResize.bilinear(image, 5, 7).toArgb());
  }

  @Test
  public void halvingAveragesPixelPairs() {
    RgbImage image = gradient(8, 4);
    RgbImage half = ImageResize.bilinear(image, 2, 4);
    // Output x samples input x = 2x + 0.5: the mean of columns 2x and 2x + 1 (rounded half up).
    assertEquals(5, half.get(0, 0, 0));
    assertEquals(25, half.get(1, 0, 0));
    assertEquals(10, half.get(0, 0, 1));
    assertEquals(50, half.get(0, 1, 1));
    assertEquals(200, half.get(3, 1, 2));
  }

  @Test
  public void rotationsMovePixelsWhereNumpyDoes() {
    RgbImage image = gradient(3, 2);
    RgbImage turned = image.rotate180();
    assertEquals(image.get(0, 0, 0), turned.get(2, 1, 0));
    assertArrayEquals(image.toArgb(), turned.rotate180().toArgb());
    RgbImage left = image.rotate90CounterClockwise(); // numpy rot90: the last column becomes the first row
    assertEquals(2, left.width());
    assertEquals(3, left.height());
    assertEquals(image.get(2, 0, 0), left.get(0, 0, 0));
    assertEquals(image.get(2, 1, 1), left.get(1, 0, 1));
    assertEquals(image.get(0, 0, 0), left.get(0, 2, 0));
  }

  @Test
  public void anUprightBoxCropsThePixelsInside() {
    RgbImage image = gradient(10, 8);
    RgbImage line = LineCropper.crop(image, new TextBox(new int[] {2, 7, 7, 2}, new int[] {1, 1, 4, 4}));
    assertEquals(5, line.width());
    assertEquals(3, line.height());
    for (int y = 0; y < 3; y++) {
      for (int x = 0; x < 5; x++) {
        assertEquals(image.get(x + 2, y + 1, 0), line.get(x, y, 0));
        assertEquals(image.get(x + 2, y + 1, 1), line.get(x, y, 1));
      }
    }
  }

  @Test
  public void aTallBoxIsTurnedUpright() {
    RgbImage image = gradient(10, 10);
    RgbImage line = LineCropper.crop(image, new TextBox(new int[] {1, 3, 3, 1}, new int[] {0, 0, 9, 9}));
    assertEquals(9, line.width());
    assertEquals(2, line.height());
  }

  @Test
  public void regionsCopyTheirPixels() {
    RgbImage image = gradient(9, 6);
    RgbImage part = image.region(2, 3, 4, 2);
    assertEquals(image.get(2, 3, 0), part.get(0, 0, 0));
    assertEquals(image.get(5, 4, 1), part.get(3, 1, 1));
    assertThrows(IllegalArgumentException.class, () -> image.region(6, 0, 4, 2));
  }

  @Test
  public void argbRoundTrip() {
    int[] argb = {0xFF102030, 0xFFFFFFFF, 0xFF000000, 0x80ABCDEF};
    RgbImage image = RgbImage.fromArgb(argb, 2, 2);
    assertEquals(0x10, image.get(0, 0, 0));
    assertEquals(0xEF, image.get(1, 1, 2));
    assertEquals(0xFFABCDEF, image.toArgb()[3]);
  }
}
