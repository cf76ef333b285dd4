package org.liteedge.ocr;

import java.util.ArrayList;
import java.util.List;

/**
 * PaddleOCR's DBPostProcess (threshold 0.3, box threshold 0.6, unclip ratio 1.5, min size 3): the
 * text boxes of the detector's probability map, in the image's pixels, in reading order.
 *
 * <p>Text regions are the 8-connected components of the thresholded map; each becomes the
 * minimum-area rectangle of its convex hull, scored by the mean probability inside it, grown by
 * {@code area * ratio / perimeter} on every side (what PaddleOCR's polygon offset does to a
 * rectangle), and scaled to the image. tests/ocr_pipeline_reference.py is the same in numpy.
 */
public final class DbPostprocessor {
  public static final float THRESHOLD = 0.3f;
  public static final double BOX_THRESHOLD = 0.6;
  public static final double UNCLIP_RATIO = 1.5;
  public static final int MIN_SIZE = 3;
  public static final int MAX_CANDIDATES = 1000;

  private DbPostprocessor() {}

  /** Boxes of the [height, width] map {@code probability} (row-major) for an image of imageHeight x imageWidth. */
  public static List<TextBox> boxes(float[] probability, int height, int width, int imageHeight, int imageWidth) {
    if (probability.length != height * width) {
      throw new IllegalArgumentException("the map has " + probability.length + " values, not " + height + "x" + width);
    }
    List<TextBox> boxes = new ArrayList<>();
    for (List<int[]> rowExtremes : components(probability, height, width)) {
      RotatedRect rect = RotatedRect.minAreaRect(ConvexHull.of(rowExtremes));
      if (Math.min(rect.width, rect.height) < MIN_SIZE) {
        continue;
      }
      if (score(probability, height, width, rect) < BOX_THRESHOLD) {
        continue;
      }
      double distance = rect.width * rect.height * UNCLIP_RATIO / (2.0 * (rect.width + rect.height));
      RotatedRect grown = rect.grown(distance);
      if (Math.min(grown.width, grown.height) < MIN_SIZE + 2) {
        continue;
      }
      double[][] corners = grown.corners();
      int[] xs = new int[4];
      int[] ys = new int[4];
      for (int i = 0; i < 4; i++) {
        xs[i] = (int) ImageResize.clamp(Math.rint(corners[i][0] / width * imageWidth), 0, imageWidth);
        ys[i] = (int) ImageResize.clamp(Math.rint(corners[i][1] / height * imageHeight), 0, imageHeight);
      }
      TextBox box = new TextBox(xs, ys);
      if ((int) box.distance(0, 1) <= 3 || (int) box.distance(0, 3) <= 3) {
        continue;
      }
      boxes.add(box);
    }
    return sortedBoxes(boxes);
  }

  /**
   * The 8-connected components of {@code probability > THRESHOLD}, at most MAX_CANDIDATES, in
   * raster order of their first pixel; each as the leftmost and rightmost pixel of each of its rows
   * (which have the component's convex hull).
   */
  static List<List<int[]>> components(float[] probability, int height, int width) {
    int[] label = new int[height * width];
    int[] stack = new int[height * width];
    List<List<int[]>> found = new ArrayList<>();
    for (int start = 0; start < label.length && found.size() < MAX_CANDIDATES; start++) {
      if (label[start] != 0 || !(probability[start] > THRESHOLD)) {
        continue;
      }
      int id = found.size() + 1;
      int top = 0;
      stack[top++] = start;
      label[start] = id;
      int minY = start / width;
      int maxY = minY;
      while (top > 0) {
        int p = stack[--top];
        int py = p / width;
        int px = p % width;
        minY = Math.min(minY, py);
        maxY = Math.max(maxY, py);
        for (int dy = -1; dy <= 1; dy++) {
          for (int dx = -1; dx <= 1; dx++) {
            int y = py + dy;
            int x = px + dx;
            if (y < 0 || y >= height || x < 0 || x >= width) {
              continue;
            }
            int q = y * width + x;
            if (label[q] == 0 && probability[q] > THRESHOLD) {
              label[q] = id;
              stack[top++] = q;
            }
          }
        }
      }
      found.add(rowExtremes(label, width, id, minY, maxY));
    }
    return found;
  }

  private static List<int[]> rowExtremes(int[] label, int width, int id, int minY, int maxY) {
    List<int[]> points = new ArrayList<>();
    for (int y = minY; y <= maxY; y++) {
      int first = -1;
      int last = -1;
      for (int x = 0; x < width; x++) {
        if (label[y * width + x] == id) {
          first = first < 0 ? x : first;
          last = x;
        }
      }
      if (first >= 0) {
        points.add(new int[] {first, y});
        points.add(new int[] {last, y});
      }
    }
    return points;
  }

  /** Mean probability over the pixels whose centre lies in the rectangle, added in raster order. */
  static double score(float[] probability, int height, int width, RotatedRect rect) {
    double[][] corners = rect.corners();
    double minX = Double.POSITIVE_INFINITY;
    double maxX = Double.NEGATIVE_INFINITY;
    double minY = Double.POSITIVE_INFINITY;
    double maxY = Double.NEGATIVE_INFINITY;
    for (double[] c : corners) {
      minX = Math.min(minX, c[0]);
      maxX = Math.max(maxX, c[0]);
      minY = Math.min(minY, c[1]);
      maxY = Math.max(maxY, c[1]);
    }
    int x0 = Math.min(Math.max((int) Math.floor(minX), 0), width - 1);
    int x1 = Math.min(Math.max((int) Math.ceil(maxX), 0), width - 1);
    int y0 = Math.min(Math.max((int) Math.floor(minY), 0), height - 1);
    int y1 = Math.min(Math.max((int) Math.ceil(maxY), 0), height - 1);
    double total = 0.0;
    int count = 0;
    for (int y = y0; y <= y1; y++) {
      for (int x = x0; x <= x1; x++) {
        if (rect.contains(x, y)) {
          total += probability[y * width + x];
          count++;
        }
      }
    }
    return count > 0 ? total / count : 0.0;
  }

  /** PaddleOCR's sorted_boxes: by the top-left corner's y then x; neighbours within 10 pixels of height by x. */
  static List<TextBox> sortedBoxes(List<TextBox> boxes) {
    List<TextBox> ordered = new ArrayList<>(boxes);
    ordered.sort((a, b) -> a.y(0) != b.y(0) ? Integer.compare(a.y(0), b.y(0)) : Integer.compare(a.x(0), b.x(0)));
    for (int i = 0; i < ordered.size() - 1; i++) {
      for (int j = i; j >= 0; j--) {
        TextBox upper = ordered.get(j);
        TextBox lower = ordered.get(j + 1);
        if (Math.abs(lower.y(0) - upper.y(0)) < 10 && lower.x(0) < upper.x(0)) {
          ordered.set(j, lower);
          ordered.set(j + 1, upper);
        } else {
          break;
        }
      }
    }
    return ordered;
  }
}
