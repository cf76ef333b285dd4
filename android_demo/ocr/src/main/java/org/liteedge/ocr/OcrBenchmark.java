package org.liteedge.ocr;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.liteedge.runtime.OpProfile;

/**
 * The benchmark screen's measurement: one warm-up run of the whole pipeline on an image, then
 * {@code runs} timed runs (medians of the wall time and of each model's native time), then one
 * profiled run whose per-op times are summed by op type. Plain Java, so it is tested on the host.
 */
public final class OcrBenchmark {
  public static final String[] MODELS = {"det", "cls", "rec"};

  private OcrBenchmark() {}

  /** What one benchmark measured. */
  public static final class Result {
    public final int runs;
    public final double medianTotalMs;
    /** Median native time per model (det, cls, rec; cls and rec summed over the lines). */
    public final double[] medianModelMs;
    /** Per model, milliseconds per op type in the profiled run, largest first. */
    public final List<Map<String, Double>> opTypeMs;
    /** Per model, every op of the profiled run, slowest first. */
    public final List<List<OpProfile>> slowestOps;
    public final List<OcrLine> lines;

    Result(int runs, double medianTotalMs, double[] medianModelMs, List<Map<String, Double>> opTypeMs,
           List<List<OpProfile>> slowestOps, List<OcrLine> lines) {
      this.runs = runs;
      this.medianTotalMs = medianTotalMs;
      this.medianModelMs = medianModelMs;
      this.opTypeMs = opTypeMs;
      this.slowestOps = slowestOps;
      this.lines = lines;
    }

    /** A monospace report: latencies, then per model the costliest op types and single ops. */
    public String format(String title, int topOps) {
      StringBuilder text = new StringBuilder(title).append('\n');
      text.append(String.format(Locale.ROOT, "%d lines read; median of %d runs: %.1f ms%n", lines.size(), runs,
          medianTotalMs));
      for (int m = 0; m < MODELS.length; m++) {
        text.append(String.format(Locale.ROOT, "  %-4s %8.1f ms%n", MODELS[m], medianModelMs[m]));
      }
      for (int m = 0; m < MODELS.length; m++) {
        text.append(String.format(Locale.ROOT, "%n%s: ms per op type (one run)%n", MODELS[m]));
        int shown = 0;
        for (Map.Entry<String, Double> op : opTypeMs.get(m).entrySet()) {
          if (shown++ == topOps) {
            break;
          }
          text.append(String.format(Locale.ROOT, "  %-24s %8.2f%n", op.getKey(), op.getValue()));
        }
        text.append(String.format(Locale.ROOT, "%s: slowest ops%n", MODELS[m]));
        for (OpProfile op : slowestOps.get(m).subList(0, Math.min(topOps, slowestOps.get(m).size()))) {
          text.append(String.format(Locale.ROOT, "  #%-4d %-16s %-28s %-6s %8.2f%n", op.opIndex(), op.opName(),
              op.nodeName(), op.backend(), op.totalSeconds() * 1e3));
        }
      }
      return text.toString();
    }
  }

  public static Result run(OcrPipeline pipeline, RgbImage image, int runs) {
    if (runs < 1) {
      throw new IllegalArgumentException("runs must be >= 1");
    }
    List<OcrLine> lines = pipeline.run(image); // warm-up: plans memory for these shapes
    double[] totals = new double[runs];
    double[][] perModel = new double[MODELS.length][runs];
    for (int r = 0; r < runs; r++) {
      long start = System.nanoTime();
      pipeline.run(image);
      totals[r] = (System.nanoTime() - start) / 1e6;
      long[] nanos = pipeline.lastTimesNanos();
      for (int m = 0; m < MODELS.length; m++) {
        perModel[m][r] = nanos[m] / 1e6;
      }
    }
    pipeline.setProfiling(true);
    pipeline.run(image);
    pipeline.setProfiling(false);
    List<Map<String, Double>> opTypes = new ArrayList<>();
    List<List<OpProfile>> slowest = new ArrayList<>();
    for (List<OpProfile> profile : pipeline.profiles()) {
      opTypes.add(byOpType(profile));
      List<OpProfile> sorted = new ArrayList<>(profile);
      Collections.sort(sorted, (a, b) -> Double.compare(b.totalSeconds(), a.totalSeconds()));
      slowest.add(sorted);
    }
    double[] modelMedians = new double[MODELS.length];
    for (int m = 0; m < MODELS.length; m++) {
      modelMedians[m] = median(perModel[m]);
    }
    return new Result(runs, median(totals), modelMedians, opTypes, slowest, lines);
  }

  /** Milliseconds per op type, largest first. */
  static Map<String, Double> byOpType(List<OpProfile> profile) {
    Map<String, Double> sums = new LinkedHashMap<>();
    for (OpProfile op : profile) {
      Double previous = sums.get(op.opName());
      sums.put(op.opName(), (previous == null ? 0.0 : previous) + op.totalSeconds() * 1e3);
    }
    List<Map.Entry<String, Double>> entries = new ArrayList<>(sums.entrySet());
    Collections.sort(entries, (a, b) -> Double.compare(b.getValue(), a.getValue()));
    Map<String, Double> sorted = new LinkedHashMap<>();
    for (Map.Entry<String, Double> entry : entries) {
      sorted.put(entry.getKey(), entry.getValue());
    }
    return sorted;
  }

  static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
  }
}
