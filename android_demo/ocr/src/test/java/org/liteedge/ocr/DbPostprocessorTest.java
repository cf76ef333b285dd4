package org.liteedge.ocr;

import static org.junit.Assert.assertEquals;

import java.util.List;
import org.junit.Test;

/** DB post-processing on synthetic probability maps whose boxes are known. */
public class DbPostprocessorTest {
  private static void fill(float[] map, int width, int x0, int y0, int x1, int y1, float value) {
    for (int y = y0; y <= y1; y++) {
      for (int x = x0; x <= x1; x++) {
        map[y * width + x] = value;
      }
    }
  }

  @Test
  public void twoRegionsBecomeTwoGrownBoxesInReadingOrder() {
    int height = 64;
    int width = 96;
    float[] map = new float[height * width];
    fill(map, width, 50, 10, 89, 17, 0.9f); // 40 x 8 pixel centres: a 39 x 7 rectangle
    fill(map, width, 10, 40, 29, 49, 0.8f); // lower: second
    fill(map, width, 5, 5, 6, 6, 0.9f); // too small (side < 3): dropped
    fill(map, width, 60, 40, 80, 50, 0.35f); // over the threshold, score under 0.6: dropped
    List<TextBox> boxes = DbPostprocessor.boxes(map, height, width, height * 2, width * 2);
    assertEquals(2, boxes.size());
    // 39 x 7: grown by 39 * 7 * 1.5 / (2 * 46) = 4.451 on each side; the image is twice the map.
    TextBox first = boxes.get(0);
    assertEquals(Math.rint((50 - 4.451086956521739) * 2), first.x(0), 0);
    assertEquals(Math.rint((10 - 4.451086956521739) * 2), first.y(0), 0);
    assertEquals(Math.rint((89 + 4.451086956521739) * 2), first.x(2), 0);
    assertEquals(Math.rint((17 + 4.451086956521739) * 2), first.y(2), 0);
    assertEquals(first.y(0), first.y(1));
    assertEquals(first.x(0), first.x(3));
    assertEquals(boxes.get(1).x(0), Math.rint((10 - 19 * 9 * 1.5 / 56.0) * 2), 0);
  }

  @Test
  public void boxesOnOneRowAreReadLeftToRight() {
    int height = 40;
    int width = 120;
    float[] map = new float[height * width];
    fill(map, width, 70, 12, 110, 20, 0.9f);
    fill(map, width, 5, 14, 50, 22, 0.9f); // 2 pixels lower but further left: read first
    List<TextBox> boxes = DbPostprocessor.boxes(map, height, width, height, width);
    assertEquals(2, boxes.size());
    assertEquals(true, boxes.get(0).x(0) < boxes.get(1).x(0));
  }
}
