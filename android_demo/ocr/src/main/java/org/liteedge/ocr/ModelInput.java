package org.liteedge.ocr;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;

/** An NCHW float32 model input (batch 1) and its shape, in a direct buffer the runtime reads in place. */
public final class ModelInput {
  private final int[] shape;
  private final ByteBuffer bytes;

  ModelInput(int channels, int height, int width) {
    this.shape = new int[] {1, channels, height, width};
    this.bytes = ByteBuffer.allocateDirect(channels * height * width * 4).order(ByteOrder.nativeOrder());
  }

  /** {1, channels, height, width}. */
  public int[] shape() {
    return shape.clone();
  }

  /** The values, native byte order (a view: position 0, limit at the end). */
  public ByteBuffer buffer() {
    ByteBuffer view = bytes.duplicate().order(ByteOrder.nativeOrder());
    view.clear();
    return view;
  }

  FloatBuffer floats() {
    return buffer().asFloatBuffer();
  }

  /** Value at (channel, y, x). */
  public float get(int channel, int y, int x) {
    return floats().get((channel * shape[2] + y) * shape[3] + x);
  }
}
