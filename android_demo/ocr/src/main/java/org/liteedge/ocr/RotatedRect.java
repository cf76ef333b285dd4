package org.liteedge.ocr;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A rectangle at any angle: centre, unit axis u along its width (v = u turned 90 degrees), sides. */
final class RotatedRect {
  final double cx;
  final double cy;
  final double ux;
  final double uy;
  final double width;
  final double height;

  RotatedRect(double cx, double cy, double ux, double uy, double width, double height) {
    this.cx = cx;
    this.cy = cy;
    this.ux = ux;
    this.uy = uy;
    this.width = width;
    this.height = height;
  }

  RotatedRect grown(double distance) {
    return new RotatedRect(cx, cy, ux, uy, width + 2.0 * distance, height + 2.0 * distance);
  }

  /** The smallest-area rectangle holding a convex hull: one of its sides lies on a hull edge. */
  static RotatedRect minAreaRect(List<int[]> hull) {
    if (hull.size() == 1) {
      return new RotatedRect(hull.get(0)[0], hull.get(0)[1], 1.0, 0.0, 0.0, 0.0);
    }
    RotatedRect best = null;
    double bestArea = Double.POSITIVE_INFINITY;
    for (int i = 0; i < hull.size(); i++) {
      int ax = hull.get(i)[0];
      int ay = hull.get(i)[1];
      int bx = hull.get((i + 1) % hull.size())[0];
      int by = hull.get((i + 1) % hull.size())[1];
      double length = Math.sqrt((double) ((bx - ax) * (bx - ax) + (by - ay) * (by - ay)));
      if (length == 0.0) {
        continue;
      }
      double ux = (bx - ax) / length;
      double uy = (by - ay) / length;
      double u0 = Double.POSITIVE_INFINITY;
      double u1 = Double.NEGATIVE_INFINITY;
      double v0 = Double.POSITIVE_INFINITY;
      double v1 = Double.NEGATIVE_INFINITY;
      for (int[] p : hull) {
        double u = (p[0] - ax) * ux + (p[1] - ay) * uy;
        double v = -(p[0] - ax) * uy + (p[1] - ay) * ux;
        u0 = Math.min(u0, u);
        u1 = Math.max(u1, u);
        v0 = Math.min(v0, v);
        v1 = Math.max(v1, v);
      }
      double area = (u1 - u0) * (v1 - v0);
      if (area < bestArea) {
        bestArea = area;
        double cu = (u0 + u1) / 2.0;
        double cv = (v0 + v1) / 2.0;
        best = new RotatedRect(ax + cu * ux - cv * uy, ay + cu * uy + cv * ux, ux, uy, u1 - u0, v1 - v0);
      }
    }
    return best;
  }

  /** Corners in PaddleOCR's get_mini_boxes order: top-left, top-right, bottom-right, bottom-left. */
  double[][] corners() {
    double hw = width / 2.0;
    double hh = height / 2.0;
    double vx = -uy;
    double vy = ux;
    double[][] signs = {{-1.0, -1.0}, {1.0, -1.0}, {1.0, 1.0}, {-1.0, 1.0}};
    List<double[]> raw = new ArrayList<>();
    for (double[] s : signs) {
      raw.add(new double[] {cx + s[0] * hw * ux + s[1] * hh * vx, cy + s[0] * hw * uy + s[1] * hh * vy});
    }
    return orderCorners(raw);
  }

  static double[][] orderCorners(List<double[]> points) {
    List<double[]> pts = new ArrayList<>(points);
    pts.sort((a, b) -> Double.compare(a[0], b[0])); // stable, like Python's sorted
    double[] first;
    double[] fourth;
    if (pts.get(1)[1] > pts.get(0)[1]) {
      first = pts.get(0);
      fourth = pts.get(1);
    } else {
      first = pts.get(1);
      fourth = pts.get(0);
    }
    double[] second;
    double[] third;
    if (pts.get(3)[1] > pts.get(2)[1]) {
      second = pts.get(2);
      third = pts.get(3);
    } else {
      second = pts.get(3);
      third = pts.get(2);
    }
    return new double[][] {first, second, third, fourth};
  }

  /** Whether the point lies in the rectangle, its edges included (1e-6 of slack for rounding). */
  boolean contains(double x, double y) {
    double dx = x - cx;
    double dy = y - cy;
    double along = dx * ux + dy * uy;
    double across = -dx * uy + dy * ux;
    return Math.abs(along) <= width / 2.0 + 1e-6 && Math.abs(across) <= height / 2.0 + 1e-6;
  }

  @Override
  public String toString() {
    return "RotatedRect" + Arrays.deepToString(corners());
  }
}
