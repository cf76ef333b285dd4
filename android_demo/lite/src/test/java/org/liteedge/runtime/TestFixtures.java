package org.liteedge.runtime;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;

/**
 * The models and reference outputs written by tests/java_fixtures.py (make android-test passes their
 * folder as the system property liteedge.fixtures). Raw files are little-endian values with a
 * companion .shape file.
 */
final class TestFixtures {
  private TestFixtures() {}

  static File dir() {
    String path = System.getProperty("liteedge.fixtures");
    if (path == null || !new File(path).isDirectory()) {
      throw new AssertionError("the test fixtures are missing: run `make android-test` (it writes them with "
          + "tests/java_fixtures.py and passes -Dliteedge.fixtures=DIR)");
    }
    return new File(path);
  }

  static File file(String name) {
    File file = new File(dir(), name);
    if (!file.isFile()) {
      throw new AssertionError("missing fixture " + file);
    }
    return file;
  }

  static ByteBuffer raw(String name) throws IOException {
    return ByteBuffer.wrap(Files.readAllBytes(file(name).toPath())).order(ByteOrder.LITTLE_ENDIAN);
  }

  static float[] floats(String name) throws IOException {
    ByteBuffer bytes = raw(name);
    float[] values = new float[bytes.remaining() / 4];
    bytes.asFloatBuffer().get(values);
    return values;
  }

  static byte[] bytes(String name) throws IOException {
    return Files.readAllBytes(file(name).toPath());
  }

  static int[] shape(String name) throws IOException {
    String text = new String(Files.readAllBytes(file(name.replaceAll("\\.bin$", ".shape")).toPath()),
        StandardCharsets.UTF_8).trim();
    if (text.isEmpty()) {
      return new int[0];
    }
    String[] parts = text.split(" ");
    int[] dims = new int[parts.length];
    for (int i = 0; i < parts.length; i++) {
      dims[i] = Integer.parseInt(parts[i]);
    }
    return dims;
  }

  /** A direct buffer in native order holding the values (what apps feed the runtime). */
  static ByteBuffer direct(float[] values) {
    ByteBuffer buffer = ByteBuffer.allocateDirect(values.length * 4).order(ByteOrder.nativeOrder());
    buffer.asFloatBuffer().put(values);
    return buffer;
  }

  static float[] read(ByteBuffer buffer) {
    ByteBuffer view = buffer.duplicate().order(ByteOrder.nativeOrder());
    view.rewind();
    float[] values = new float[view.remaining() / 4];
    view.asFloatBuffer().get(values);
    return values;
  }

  /** max |a - b| over all values; fails on a length mismatch. */
  static double maxAbsDiff(float[] a, float[] b) {
    if (a.length != b.length) {
      throw new AssertionError("lengths " + a.length + " and " + b.length);
    }
    double worst = 0.0;
    for (int i = 0; i < a.length; i++) {
      worst = Math.max(worst, Math.abs((double) a[i] - b[i]));
    }
    return worst;
  }

  static double maxAbs(float[] values) {
    double worst = 0.0;
    for (float v : values) {
      worst = Math.max(worst, Math.abs(v));
    }
    return worst;
  }
}
