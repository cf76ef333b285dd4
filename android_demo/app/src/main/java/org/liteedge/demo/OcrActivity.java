package org.liteedge.demo;

import android.app.Activity;
import android.content.ContentValues;
import android.content.Intent;
import android.graphics.Bitmap;
import android.net.Uri;
import android.os.Build;
import android.os.Bundle;
import android.provider.MediaStore;
import android.widget.TextView;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.liteedge.ocr.OcrLine;
import org.liteedge.ocr.OcrPipeline;
import org.liteedge.runtime.Interpreter;

/**
 * A photo (gallery or camera) or a sample page -> PP-OCRv4 det + cls + rec from the assets -> the
 * boxes drawn on the image and the text listed. The pipeline lives on one worker thread (an
 * interpreter is used by one thread), created there on first use and closed with the activity.
 */
public final class OcrActivity extends Activity {
  private static final int PICK_IMAGE = 1;
  private static final int TAKE_PHOTO = 2;

  private final ExecutorService worker = Executors.newSingleThreadExecutor();
  private OcrPipeline pipeline; // touched by the worker thread only
  private Uri photoUri;
  private BoxOverlayView overlay;
  private TextView result;

  @Override
  protected void onCreate(Bundle savedInstanceState) {
    super.onCreate(savedInstanceState);
    setContentView(R.layout.activity_ocr);
    overlay = findViewById(R.id.overlay);
    result = findViewById(R.id.result);
    findViewById(R.id.pick_gallery).setOnClickListener(v -> {
      Intent pick = new Intent(Intent.ACTION_GET_CONTENT).setType("image/*").addCategory(Intent.CATEGORY_OPENABLE);
      startActivityForResult(pick, PICK_IMAGE);
    });
    findViewById(R.id.take_photo).setOnClickListener(v -> {
      if (Build.VERSION.SDK_INT < 29) { // before Android 10 a MediaStore entry needs a storage permission
        result.setText(R.string.camera_needs_android_10);
        return;
      }
      // The camera app writes the full-size photo into a MediaStore entry this app owns: no permission.
      ContentValues values = new ContentValues();
      values.put(MediaStore.Images.Media.DISPLAY_NAME, "lite-edge-ocr-" + System.currentTimeMillis() + ".jpg");
      values.put(MediaStore.Images.Media.MIME_TYPE, "image/jpeg");
      photoUri = getContentResolver().insert(MediaStore.Images.Media.EXTERNAL_CONTENT_URI, values);
      Intent capture = new Intent(MediaStore.ACTION_IMAGE_CAPTURE).putExtra(MediaStore.EXTRA_OUTPUT, photoUri)
          .addFlags(Intent.FLAG_GRANT_WRITE_URI_PERMISSION);
      startActivityForResult(capture, TAKE_PHOTO);
    });
    findViewById(R.id.use_sample).setOnClickListener(v -> recognize(Bitmaps.samplePage()));
    if (!ModelAssets.present(this)) {
      result.setText(R.string.models_missing);
    }
  }

  @Override
  protected void onActivityResult(int requestCode, int resultCode, Intent data) {
    super.onActivityResult(requestCode, resultCode, data);
    if (resultCode != RESULT_OK) {
      return;
    }
    Uri uri = requestCode == PICK_IMAGE && data != null ? data.getData() : requestCode == TAKE_PHOTO ? photoUri : null;
    if (uri == null) {
      return;
    }
    result.setText(R.string.working);
    worker.execute(() -> {
      try {
        Bitmap bitmap = Bitmaps.decode(getContentResolver(), uri);
        runOnUiThread(() -> recognize(bitmap));
      } catch (Exception failure) {
        runOnUiThread(() -> result.setText(failure.toString()));
      }
    });
  }

  private void recognize(Bitmap bitmap) {
    result.setText(R.string.working);
    worker.execute(() -> {
      try {
        if (pipeline == null) {
          pipeline = OcrPipeline.open(ModelAssets.file(this, "det.lite"), ModelAssets.file(this, "cls.lite"),
              ModelAssets.file(this, "rec.lite"), ModelAssets.decoder(this),
              new Interpreter.Options().setNumThreads(Math.min(4, Runtime.getRuntime().availableProcessors())));
        }
        long start = System.nanoTime();
        List<OcrLine> lines = pipeline.run(Bitmaps.toRgb(bitmap));
        double ms = (System.nanoTime() - start) / 1e6;
        String text = describe(lines, ms, pipeline.lastTimesNanos());
        runOnUiThread(() -> {
          overlay.show(bitmap, lines);
          result.setText(text);
        });
      } catch (Exception failure) {
        runOnUiThread(() -> result.setText(failure.toString()));
      }
    });
  }

  private static String describe(List<OcrLine> lines, double ms, long[] modelNanos) {
    StringBuilder text = new StringBuilder(String.format(Locale.ROOT,
        "%d lines in %.0f ms (det %.0f, cls %.0f, rec %.0f)%n%n", lines.size(), ms, modelNanos[0] / 1e6,
        modelNanos[1] / 1e6, modelNanos[2] / 1e6));
    for (int i = 0; i < lines.size(); i++) {
      OcrLine line = lines.get(i);
      text.append(String.format(Locale.ROOT, "%d. %s  (%.2f%s)%n", i + 1, line.text, line.score,
          line.rotated180 ? ", turned 180" : ""));
    }
    return text.toString();
  }

  @Override
  protected void onDestroy() {
    worker.execute(() -> {
      if (pipeline != null) {
        pipeline.close();
        pipeline = null;
      }
    });
    worker.shutdown();
    super.onDestroy();
  }
}
