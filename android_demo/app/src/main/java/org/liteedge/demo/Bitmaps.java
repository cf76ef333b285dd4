package org.liteedge.demo;

import android.content.ContentResolver;
import android.graphics.Bitmap;
import android.graphics.BitmapFactory;
import android.graphics.Canvas;
import android.graphics.Color;
import android.graphics.Paint;
import android.net.Uri;
import java.io.IOException;
import java.io.InputStream;
import org.liteedge.ocr.RgbImage;

/** Between Android's Bitmaps and the OCR library's RgbImage. */
final class Bitmaps {
  /** Photos are decoded at most this many pixels on their longer side (det works at <= 960). */
  static final int MAX_SIDE = 2048;

  private Bitmaps() {}

  static RgbImage toRgb(Bitmap bitmap) {
    int width = bitmap.getWidth();
    int height = bitmap.getHeight();
    int[] argb = new int[width * height];
    bitmap.getPixels(argb, 0, width, 0, 0, width, height);
    return RgbImage.fromArgb(argb, width, height);
  }

  /** Decodes an image, subsampled by a power of two until its longer side fits MAX_SIDE. */
  static Bitmap decode(ContentResolver resolver, Uri uri) throws IOException {
    BitmapFactory.Options bounds = new BitmapFactory.Options();
    bounds.inJustDecodeBounds = true;
    try (InputStream in = resolver.openInputStream(uri)) {
      BitmapFactory.decodeStream(in, null, bounds);
    }
    int sample = 1;
    while (Math.max(bounds.outWidth, bounds.outHeight) / sample > MAX_SIDE) {
      sample *= 2;
    }
    BitmapFactory.Options options = new BitmapFactory.Options();
    options.inSampleSize = sample;
    options.inPreferredConfig = Bitmap.Config.ARGB_8888;
    try (InputStream in = resolver.openInputStream(uri)) {
      Bitmap bitmap = BitmapFactory.decodeStream(in, null, options);
      if (bitmap == null) {
        throw new IOException("not an image this device can decode: " + uri);
      }
      return bitmap;
    }
  }

  /** A page of printed text, for trying the pipeline without a photo. */
  static Bitmap samplePage() {
    Bitmap page = Bitmap.createBitmap(720, 480, Bitmap.Config.ARGB_8888);
    Canvas canvas = new Canvas(page);
    canvas.drawColor(Color.WHITE);
    Paint paint = new Paint(Paint.ANTI_ALIAS_FLAG);
    paint.setColor(Color.BLACK);
    String[] lines = {"lite-edge runtime 0.1", "PP-OCRv4 on the phone", "Invoice 2026-11-27", "Total: 42.50 EUR",
        "NEON int8 kernels"};
    float y = 70;
    for (int i = 0; i < lines.length; i++) {
      paint.setTextSize(30 + 4 * (i % 3));
      canvas.drawText(lines[i], 30 + 25 * (i % 4), y, paint);
      y += 85;
    }
    return page;
  }
}
