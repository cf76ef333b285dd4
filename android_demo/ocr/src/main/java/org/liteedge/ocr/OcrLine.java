package org.liteedge.ocr;

/** One line of text found in an image. */
public final class OcrLine {
  public final TextBox box;
  public final String text;
  /** Mean probability of the recognized characters (lines under 0.5 are dropped). */
  public final double score;
  /** Whether the direction classifier found the line upside down (it was read turned by 180 degrees). */
  public final boolean rotated180;

  public OcrLine(TextBox box, String text, double score, boolean rotated180) {
    this.box = box;
    this.text = text;
    this.score = score;
    this.rotated180 = rotated180;
  }

  @Override
  public String toString() {
    return box + " '" + text + "' " + String.format(java.util.Locale.ROOT, "%.3f", score) + (rotated180 ? " (180)" : "");
  }
}
