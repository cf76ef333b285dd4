package org.liteedge.ocr;

import java.util.ArrayList;
import java.util.List;

/** Andrew's monotone chain over integer points: the hull without collinear points, no duplicates. */
final class ConvexHull {
  private ConvexHull() {}

  /** Points packed as {x, y} pairs; returns the hull's corners in order (x-sorted start). */
  static List<int[]> of(List<int[]> points) {
    List<int[]> sorted = new ArrayList<>(points);
    sorted.sort((a, b) -> a[0] != b[0] ? Integer.compare(a[0], b[0]) : Integer.compare(a[1], b[1]));
    List<int[]> unique = new ArrayList<>();
    for (int[] p : sorted) {
      int[] last = unique.isEmpty() ? null : unique.get(unique.size() - 1);
      if (last == null || last[0] != p[0] || last[1] != p[1]) {
        unique.add(p);
      }
    }
    if (unique.size() <= 2) {
      return unique;
    }
    List<int[]> lower = new ArrayList<>();
    for (int[] p : unique) {
      while (lower.size() >= 2 && cross(lower.get(lower.size() - 2), lower.get(lower.size() - 1), p) <= 0) {
        lower.remove(lower.size() - 1);
      }
      lower.add(p);
    }
    List<int[]> upper = new ArrayList<>();
    for (int i = unique.size() - 1; i >= 0; i--) {
      int[] p = unique.get(i);
      while (upper.size() >= 2 && cross(upper.get(upper.size() - 2), upper.get(upper.size() - 1), p) <= 0) {
        upper.remove(upper.size() - 1);
      }
      upper.add(p);
    }
    List<int[]> hull = new ArrayList<>(lower.subList(0, lower.size() - 1));
    hull.addAll(upper.subList(0, upper.size() - 1));
    return hull;
  }

  private static long cross(int[] o, int[] a, int[] b) {
    return (long) (a[0] - o[0]) * (b[1] - o[1]) - (long) (a[1] - o[1]) * (b[0] - o[0]);
  }
}
