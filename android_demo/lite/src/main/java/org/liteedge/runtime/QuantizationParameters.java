package org.liteedge.runtime;

import java.util.Arrays;

/**
 * Affine quantization of a tensor: {@code real = scale * (quantized - zeroPoint)}, per tensor (one
 * scale, {@link #axis()} == -1) or per channel along {@link #axis()}. A float tensor has none:
 * empty arrays.
 */
public final class QuantizationParameters {
  private final float[] scales;
  private final long[] zeroPoints;
  private final int axis;

  QuantizationParameters(float[] scales, long[] zeroPoints, int axis) {
    this.scales = scales;
    this.zeroPoints = zeroPoints;
    this.axis = axis;
  }

  /** Whether the tensor is quantized at all. */
  public boolean isQuantized() {
    return scales.length > 0;
  }

  /** One scale per tensor or per channel (a copy). */
  public float[] scales() {
    return scales.clone();
  }

  /** One zero point per scale (zeros when the model gives none; a copy). */
  public long[] zeroPoints() {
    return zeroPoints.clone();
  }

  /** The channel axis of per-channel parameters, -1 for per-tensor ones. */
  public int axis() {
    return axis;
  }

  @Override
  public String toString() {
    return "QuantizationParameters{scales=" + Arrays.toString(scales) + ", zeroPoints="
        + Arrays.toString(zeroPoints) + ", axis=" + axis + "}";
  }
}
