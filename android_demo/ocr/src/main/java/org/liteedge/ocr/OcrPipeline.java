package org.liteedge.ocr;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.liteedge.runtime.Interpreter;
import org.liteedge.runtime.OpProfile;
import org.liteedge.runtime.Tensor;

/**
 * PP-OCR on the .lite runtime: det finds text boxes, each box is cut out upright, cls says whether
 * it is upside down (then it is turned), rec reads it. Not thread-safe (it owns three interpreters):
 * one pipeline per thread.
 */
public final class OcrPipeline implements AutoCloseable {
  public static final double CLS_THRESHOLD = 0.9;
  public static final double REC_DROP_SCORE = 0.5;

  private final Interpreter det;
  private final Interpreter cls;
  private final Interpreter rec;
  private final CtcDecoder decoder;
  private long detNanos;
  private long clsNanos;
  private long recNanos;

  /** Takes ownership of the three interpreters (closed with the pipeline). */
  public OcrPipeline(Interpreter det, Interpreter cls, Interpreter rec, CtcDecoder decoder) {
    this.det = det;
    this.cls = cls;
    this.rec = rec;
    this.decoder = decoder;
  }

  /** Opens det.lite, cls.lite and rec.lite with the same options. */
  public static OcrPipeline open(File det, File cls, File rec, CtcDecoder decoder, Interpreter.Options options) {
    List<Interpreter> opened = new ArrayList<>();
    try {
      for (File file : Arrays.asList(det, cls, rec)) {
        opened.add(new Interpreter(file, options));
      }
    } catch (RuntimeException failure) {
      for (Interpreter interpreter : opened) {
        interpreter.close();
      }
      throw failure;
    }
    return new OcrPipeline(opened.get(0), opened.get(1), opened.get(2), decoder);
  }

  /** Every line found, in reading order. */
  public List<OcrLine> run(RgbImage image) {
    detNanos = 0;
    clsNanos = 0;
    recNanos = 0;
    List<OcrLine> lines = new ArrayList<>();
    for (TextBox box : detect(image)) {
      OcrLine line = read(LineCropper.crop(image, box), box);
      if (line.score >= REC_DROP_SCORE) {
        lines.add(line);
      }
    }
    return lines;
  }

  /** The text boxes of an image. */
  public List<TextBox> detect(RgbImage image) {
    ModelInput input = DetPreprocessor.toInput(image);
    float[] map = runModel(det, input);
    int[] shape = input.shape();
    detNanos += det.getLastNativeInferenceDurationNanoseconds();
    return DbPostprocessor.boxes(map, shape[2], shape[3], image.height(), image.width());
  }

  /** Reads one upright line crop (cls, then rec); {@code box} is only carried into the result. */
  public OcrLine read(RgbImage line, TextBox box) {
    float[] classes = runModel(cls, LineInput.toInput(line, LineInput.CLS_WIDTH, LineInput.CLS_WIDTH));
    clsNanos += cls.getLastNativeInferenceDurationNanoseconds();
    boolean turned = classes[1] > classes[0] && classes[1] > CLS_THRESHOLD;
    RgbImage upright = turned ? line.rotate180() : line;
    int width = LineInput.recWidth(upright);
    float[] probabilities = runModel(rec, LineInput.toInput(upright, width, width));
    recNanos += rec.getLastNativeInferenceDurationNanoseconds();
    int[] shape = rec.getOutputTensor(0).shape(); // [1, steps, classes]
    CtcDecoder.Decoded decoded = decoder.decode(probabilities, shape[1], shape[2]);
    return new OcrLine(box, decoded.text, decoded.score, turned);
  }

  /** The CPUs CpuAffinity.FAST_CORES chose for the models (the same for all three); empty when none. */
  public int[] cpuAffinityCpus() {
    return det.getCpuAffinityCpus();
  }

  /**
   * Where the models run, for logs: "cpu", or the GPU backend's description (device, OpenCL library,
   * program compiled or loaded from the cache) and, with "auto" on the CPU, why.
   */
  public String backendDescription() {
    String info = det.getBackendInfo();
    if (!info.isEmpty()) {
      return info;
    }
    String note = det.getBackendNote();
    return note.isEmpty() ? "cpu" : "cpu (" + note + ")";
  }

  /** Starts (zeroing the counters) or stops per-op timing in all three models. */
  public void setProfiling(boolean enabled) {
    det.setProfiling(enabled);
    cls.setProfiling(enabled);
    rec.setProfiling(enabled);
  }

  /** Per-op profiles of {det, cls, rec} since profiling was switched on. */
  public List<List<OpProfile>> profiles() {
    return Arrays.asList(det.getOpProfile(), cls.getOpProfile(), rec.getOpProfile());
  }

  /** Native inference time of the last run(), per model: {det, cls, rec} in nanoseconds. */
  public long[] lastTimesNanos() {
    return new long[] {detNanos, clsNanos, recNanos};
  }

  /** Resizes input 0 to the input's shape when it differs, runs, returns output 0's values. */
  private static float[] runModel(Interpreter interpreter, ModelInput input) {
    if (!Arrays.equals(interpreter.getInputTensor(0).shape(), input.shape())) {
      interpreter.resizeInput(0, input.shape());
      interpreter.allocateTensors();
    }
    Tensor output = interpreter.getOutputTensor(0);
    ByteBuffer result = ByteBuffer.allocateDirect((int) output.numBytes()).order(ByteOrder.nativeOrder());
    interpreter.run(input.buffer(), result);
    result.rewind();
    float[] values = new float[(int) (output.numBytes() / 4)];
    result.asFloatBuffer().get(values);
    return values;
  }

  @Override
  public void close() {
    det.close();
    cls.close();
    rec.close();
  }
}
