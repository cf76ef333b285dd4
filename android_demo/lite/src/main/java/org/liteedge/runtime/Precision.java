package org.liteedge.runtime;

/**
 * Precision of the GPU backend ({@link Interpreter.Options#setPrecision}); the CPU backend always
 * computes in float32 (or int8 for an int8 model).
 */
public enum Precision implements OptionNames.Named {
  /** float32 activations and math: matches the CPU within float rounding. */
  FP32(0, "fp32"),
  /** half-float activations, float math: half the memory traffic, about 1e-3 relative error per op. */
  FP16(1, "fp16"),
  /**
   * half activations and half math where the device has cl_khr_fp16 (elementwise ops, activations,
   * pooling, depthwise convolution); long sums (convolution, matmul, softmax) keep float accumulation.
   * A device without cl_khr_fp16 refuses it ({@link Backend#AUTO}: the CPU).
   */
  FP16_COMPUTE(2, "fp16_compute");

  private final int code;
  private final String precisionName;

  Precision(int code, String precisionName) {
    this.code = code;
    this.precisionName = precisionName;
  }

  int code() {
    return code;
  }

  @Override
  public String optionName() {
    return precisionName;
  }

  /** The precision called {@code name}: "fp32", "fp16" or "fp16_compute" (any case). */
  public static Precision fromName(String name) {
    return OptionNames.parse(values(), name, "precision");
  }
}
