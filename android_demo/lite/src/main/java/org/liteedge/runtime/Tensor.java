package org.liteedge.runtime;

import java.util.Arrays;

/**
 * An input or output of an {@link Interpreter} as it was when {@link Interpreter#getInputTensor} or
 * {@link Interpreter#getOutputTensor} was called: a snapshot, so ask again after a resize or run.
 *
 * <p>Input shapes are the current ones (the model's, or as resized; -1 marks a dynamic dim that is
 * not resized yet). Output shapes are the model's declared ones until the interpreter is allocated,
 * then the computed ones.
 */
public final class Tensor {
  private final int index;
  private final String name;
  private final DataType dataType;
  private final int[] shape;
  private final long numBytes;
  private final QuantizationParameters quantization;

  Tensor(int index, String name, DataType dataType, int[] shape, long numBytes,
         QuantizationParameters quantization) {
    this.index = index;
    this.name = name;
    this.dataType = dataType;
    this.shape = shape;
    this.numBytes = numBytes;
    this.quantization = quantization;
  }

  /** Its index among the model's inputs (or outputs). */
  public int index() {
    return index;
  }

  public String name() {
    return name;
  }

  public DataType dataType() {
    return dataType;
  }

  /** The dims (a copy); -1 for a dynamic dim not resolved yet. */
  public int[] shape() {
    return shape.clone();
  }

  public int numDimensions() {
    return shape.length;
  }

  /** Number of elements; -1 while a dim is dynamic. */
  public long numElements() {
    long count = 1;
    for (int dim : shape) {
      if (dim < 0) {
        return -1;
      }
      count *= dim;
    }
    return count;
  }

  /** Bytes of the data with the current shape; 0 while a dim is dynamic. */
  public long numBytes() {
    return numBytes;
  }

  /** The full quantization parameters (per tensor or per channel); empty for a float tensor. */
  public QuantizationParameters quantization() {
    return quantization;
  }

  /**
   * The per-tensor scale and zero point, as LiteRT's {@code Tensor.quantizationParams()} gives them:
   * (0, 0) when the tensor is not quantized per tensor.
   */
  public QuantizationParams quantizationParams() {
    float[] scales = quantization.scales();
    if (scales.length != 1) {
      return new QuantizationParams(0.0f, 0);
    }
    return new QuantizationParams(scales[0], (int) quantization.zeroPoints()[0]);
  }

  @Override
  public String toString() {
    return "Tensor{" + index + " '" + name + "' " + dataType + " " + Arrays.toString(shape) + "}";
  }

  /** Per-tensor affine quantization: {@code real = scale * (quantized - zeroPoint)}. */
  public static final class QuantizationParams {
    private final float scale;
    private final int zeroPoint;

    public QuantizationParams(float scale, int zeroPoint) {
      this.scale = scale;
      this.zeroPoint = zeroPoint;
    }

    public float getScale() {
      return scale;
    }

    public int getZeroPoint() {
      return zeroPoint;
    }
  }
}
