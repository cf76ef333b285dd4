package org.liteedge.ocr;

import java.util.Arrays;

/** A text region: four integer corners in image pixels, clockwise from the top-left one. */
public final class TextBox {
  private final int[] xs;
  private final int[] ys;

  public TextBox(int[] xs, int[] ys) {
    if (xs == null || ys == null || xs.length != 4 || ys.length != 4) {
      throw new IllegalArgumentException("a box has 4 corners");
    }
    this.xs = xs.clone();
    this.ys = ys.clone();
  }

  public int x(int corner) {
    return xs[corner];
  }

  public int y(int corner) {
    return ys[corner];
  }

  /** Distance between corners a and b (sqrt of the integer square sum: the same double as Python's). */
  double distance(int a, int b) {
    int dx = xs[a] - xs[b];
    int dy = ys[a] - ys[b];
    return Math.sqrt((double) (dx * dx + dy * dy));
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof TextBox && Arrays.equals(xs, ((TextBox) other).xs) && Arrays.equals(ys, ((TextBox) other).ys);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(xs) + Arrays.hashCode(ys);
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder("[");
    for (int i = 0; i < 4; i++) {
      text.append(i > 0 ? ", " : "").append('(').append(xs[i]).append(", ").append(ys[i]).append(')');
    }
    return text.append(']').toString();
  }
}
