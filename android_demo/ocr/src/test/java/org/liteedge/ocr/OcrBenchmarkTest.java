package org.liteedge.ocr;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.Map;
import org.junit.Test;
import org.liteedge.runtime.Interpreter;

/**
 * The benchmark screen's measurement on the top of a rendered page (its first line; small, because
 * the suite also runs on the unoptimized ASan build), fp32 and with the int8 classifier.
 */
public class OcrBenchmarkTest {
  @Test
  public void measuresEveryModelAndProfilesTheirOps() throws Exception {
    RgbImage full = OcrFixtures.png("page_01.png");
    RgbImage page = full.region(0, 0, full.width(), 96);
    for (String cls : new String[] {"cls.lite", "cls_int8.lite"}) {
      try (OcrPipeline pipeline = OcrPipeline.open(OcrFixtures.file("det.lite"), OcrFixtures.file(cls),
          OcrFixtures.file("rec.lite"), OcrFixtures.decoder(), new Interpreter.Options().setNumThreads(2))) {
        OcrBenchmark.Result result = OcrBenchmark.run(pipeline, page, 2);
        assertEquals(OcrFixtures.expected().get("page_01.png").get(0).text, result.lines.get(0).text);
        for (double ms : result.medianModelMs) {
          assertTrue(ms > 0.0);
        }
        assertTrue(result.medianTotalMs >= result.medianModelMs[0]);
        Map<String, Double> det = result.opTypeMs.get(0);
        assertTrue(det.keySet().toString(), det.containsKey("CONV_2D"));
        double previous = Double.POSITIVE_INFINITY;
        for (double ms : det.values()) {
          assertTrue("largest first", ms <= previous);
          previous = ms;
        }
        assertTrue(result.slowestOps.get(2).get(0).totalSeconds() >= result.slowestOps.get(2).get(1).totalSeconds());
        String report = result.format("PP-OCRv4, 2 threads", 3);
        assertTrue(report, report.contains("det") && report.contains("CONV_2D") && report.contains("median of 2 runs")
            && report.contains("rec: slowest ops"));
      }
    }
  }

  @Test
  public void medianOfOddAndEvenCounts() {
    assertEquals(2.0, OcrBenchmark.median(new double[] {3, 1, 2}), 0.0);
    assertEquals(2.5, OcrBenchmark.median(new double[] {4, 1, 2, 3}), 0.0);
  }
}
