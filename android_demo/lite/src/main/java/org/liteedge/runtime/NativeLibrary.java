package org.liteedge.runtime;

/**
 * Loads the JNI library once. On Android it is {@code liblite_jni.so} from the app's native
 * libraries (it needs {@code liblite_runtime.so} beside it). Elsewhere the system property
 * {@code org.liteedge.runtime.library} may name the file to load (an absolute path), else
 * {@code java.library.path} is searched for {@code liblite_jni.so}.
 */
final class NativeLibrary {
  static final String PATH_PROPERTY = "org.liteedge.runtime.library";
  private static boolean loaded;

  private NativeLibrary() {}

  static synchronized void load() {
    if (loaded) {
      return;
    }
    String path = System.getProperty(PATH_PROPERTY);
    if (path != null && !path.isEmpty()) {
      System.load(path);
    } else {
      System.loadLibrary("lite_jni");
    }
    loaded = true;
  }
}
