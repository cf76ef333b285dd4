package org.liteedge.ocr;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.Test;

/** Convex hull, minimum-area rectangle and corner order against shapes whose answer is known. */
public class GeometryTest {
  @Test
  public void hullDropsInteriorAndCollinearPoints() {
    List<int[]> points = new ArrayList<>();
    for (int x = 0; x <= 4; x++) {
      for (int y = 0; y <= 3; y++) {
        points.add(new int[] {x, y});
      }
    }
    List<int[]> hull = ConvexHull.of(points);
    assertEquals(4, hull.size());
    assertEquals(0, hull.get(0)[0]);
    assertEquals(0, hull.get(0)[1]);
  }

  @Test
  public void minAreaRectOfATiltedRectangleFindsItsSidesAndAngle() {
    // Integer points on a rectangle 30 x 10 turned so that its long side runs along (4, 3) / 5.
    List<int[]> points = new ArrayList<>();
    int[][] corners = {{0, 0}, {24, 18}, {18, 26}, {-6, 8}};
    for (int[] c : corners) {
      points.add(c);
    }
    RotatedRect rect = RotatedRect.minAreaRect(ConvexHull.of(points));
    double longer = Math.max(rect.width, rect.height);
    double shorter = Math.min(rect.width, rect.height);
    assertEquals(30.0, longer, 1e-9);
    assertEquals(10.0, shorter, 1e-9);
    assertEquals(9.0, rect.cx, 1e-9);
    assertEquals(13.0, rect.cy, 1e-9);
    // get_mini_boxes: of the two leftmost corners the upper one first, of the two rightmost the upper second.
    double[][] ordered = rect.corners();
    double[][] expected = {{0, 0}, {24, 18}, {18, 26}, {-6, 8}};
    for (int i = 0; i < 4; i++) {
      assertEquals(expected[i][0], ordered[i][0], 1e-9);
      assertEquals(expected[i][1], ordered[i][1], 1e-9);
    }
  }

  @Test
  public void minAreaRectOfAnUprightBlockAndContains() {
    List<int[]> points = new ArrayList<>();
    for (int y = 5; y <= 9; y++) {
      points.add(new int[] {10, y});
      points.add(new int[] {40, y});
    }
    RotatedRect rect = RotatedRect.minAreaRect(ConvexHull.of(points));
    assertEquals(120.0, rect.width * rect.height, 1e-9);
    assertTrue(rect.contains(10, 5));
    assertTrue(rect.contains(25, 7));
    assertFalse(rect.contains(41, 7));
    assertFalse(rect.contains(25, 10));
    double[][] corners = rect.grown(2.0).corners();
    assertEquals(8.0, corners[0][0], 1e-9);
    assertEquals(3.0, corners[0][1], 1e-9);
    assertEquals(42.0, corners[2][0], 1e-9);
    assertEquals(11.0, corners[2][1], 1e-9);
  }
}
