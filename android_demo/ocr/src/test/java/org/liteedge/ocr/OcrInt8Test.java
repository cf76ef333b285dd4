package org.liteedge.ocr;

import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.Test;
import org.liteedge.runtime.Interpreter;

/**
 * The benchmark screen's int8 models (make_assets.py: slim.compress of det, cls and rec) through the
 * Java pipeline read what fp32 reads: over the pages, >= 97% of the characters of the fp32 Python
 * reading (normalized edit distance, spaces removed) and the same number of lines on >= 90% of pages.
 */
public class OcrInt8Test {
  @Test
  public void int8ReadsWhatFp32Reads() throws Exception {
    Map<String, List<OcrLine>> expected = OcrFixtures.expected();
    List<String> pages = new ArrayList<>(expected.keySet());
    String chosen = System.getProperty("liteedge.ocr.pages");
    if (chosen != null) {
      pages = Arrays.asList(chosen.split(",")).subList(0, 1); // the ASan run: one page
    }
    long characters = 0;
    double errors = 0;
    int sameCount = 0;
    try (OcrPipeline pipeline = OcrPipeline.open(OcrFixtures.file("det_int8.lite"), OcrFixtures.file("cls_int8.lite"),
        OcrFixtures.file("rec_int8.lite"), OcrFixtures.decoder(), new Interpreter.Options().setNumThreads(2))) {
      for (String page : pages) {
        List<OcrLine> want = expected.get(page);
        List<OcrLine> got = pipeline.run(OcrFixtures.png(page));
        sameCount += got.size() == want.size() ? 1 : 0;
        String wantText = joined(want);
        String gotText = joined(got);
        characters += wantText.length();
        errors += editDistance(gotText, wantText);
      }
    }
    double accuracy = 100.0 * (1.0 - errors / characters);
    System.out.printf("int8 pipeline: %.2f%% of the fp32 characters, same line count on %d of %d pages%n", accuracy,
        sameCount, pages.size());
    assertTrue("character agreement " + accuracy, accuracy >= 97.0);
    assertTrue("pages with the same line count: " + sameCount, sameCount >= 0.9 * pages.size());
  }

  private static String joined(List<OcrLine> lines) {
    StringBuilder text = new StringBuilder();
    for (OcrLine line : lines) {
      text.append(line.text.replace(" ", "")).append('\n');
    }
    return text.toString();
  }

  /** Levenshtein distance, one row at a time. */
  static int editDistance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      int[] current = new int[b.length() + 1];
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(Math.min(previous[j] + 1, current[j - 1] + 1), substitute);
      }
      previous = current;
    }
    return previous[b.length()];
  }
}
