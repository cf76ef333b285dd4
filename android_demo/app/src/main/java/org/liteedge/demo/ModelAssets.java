package org.liteedge.demo;

import android.content.Context;
import android.content.res.AssetFileDescriptor;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.liteedge.ocr.CtcDecoder;

/**
 * The models in the APK's assets (put there by `make android-assets`), copied once into the app's
 * files: the runtime maps a file page-aligned and uses its weights in place, whereas an asset maps at
 * the offset the APK gives it (4-byte aligned), which the runtime must copy.
 */
final class ModelAssets {
  static final String DICTIONARY = "ppocr_keys.txt";

  private ModelAssets() {}

  /** "det" + "int8" -> det_int8.lite; "fp32" -> det.lite. */
  static String modelName(String model, String precision) {
    return "int8".equals(precision) ? model + "_int8.lite" : model + ".lite";
  }

  /** The asset as a file in the app's private storage, copied when missing or of another size. */
  static File file(Context context, String name) throws IOException {
    File target = new File(context.getFilesDir(), name);
    long assetLength; // openFd works because .lite assets are stored uncompressed (app/build.gradle.kts)
    try (AssetFileDescriptor descriptor = context.getAssets().openFd(name)) {
      assetLength = descriptor.getLength();
    }
    if (target.isFile() && target.length() == assetLength) {
      return target;
    }
    File partial = new File(context.getFilesDir(), name + ".partial");
    try (InputStream in = context.getAssets().open(name); OutputStream out = new FileOutputStream(partial)) {
      byte[] chunk = new byte[1 << 16];
      for (int n = in.read(chunk); n > 0; n = in.read(chunk)) {
        out.write(chunk, 0, n);
      }
    }
    if (!partial.renameTo(target)) {
      throw new IOException("cannot move " + partial + " to " + target);
    }
    return target;
  }

  static CtcDecoder decoder(Context context) throws IOException {
    try (InputStream in = context.getAssets().open(DICTIONARY)) {
      return CtcDecoder.fromDictionary(in);
    }
  }

  /** Whether `make android-assets` has run before the build. */
  static boolean present(Context context) {
    try {
      for (String name : new String[] {"det.lite", "cls.lite", "rec.lite", DICTIONARY}) {
        context.getAssets().open(name).close();
      }
      return true;
    } catch (IOException missing) {
      return false;
    }
  }
}
