package org.liteedge.demo;

import android.content.Context;
import android.graphics.Bitmap;
import android.graphics.Canvas;
import android.graphics.Color;
import android.graphics.Paint;
import android.graphics.Path;
import android.graphics.RectF;
import android.util.AttributeSet;
import android.view.View;
import java.util.ArrayList;
import java.util.List;
import org.liteedge.ocr.OcrLine;

/** The image, scaled to fit, with each text box outlined and numbered. */
public final class BoxOverlayView extends View {
  private final Paint boxPaint = new Paint(Paint.ANTI_ALIAS_FLAG);
  private final Paint labelPaint = new Paint(Paint.ANTI_ALIAS_FLAG);
  private Bitmap image;
  private List<OcrLine> lines = new ArrayList<>();

  public BoxOverlayView(Context context, AttributeSet attributes) {
    super(context, attributes);
    boxPaint.setStyle(Paint.Style.STROKE);
    boxPaint.setStrokeWidth(3f);
    boxPaint.setColor(Color.rgb(230, 40, 40));
    labelPaint.setColor(Color.rgb(230, 40, 40));
    labelPaint.setTextSize(28f);
  }

  void show(Bitmap bitmap, List<OcrLine> found) {
    image = bitmap;
    lines = new ArrayList<>(found);
    invalidate();
  }

  @Override
  protected void onDraw(Canvas canvas) {
    super.onDraw(canvas);
    if (image == null) {
      return;
    }
    float scale = Math.min((float) getWidth() / image.getWidth(), (float) getHeight() / image.getHeight());
    float left = (getWidth() - image.getWidth() * scale) / 2f;
    float top = (getHeight() - image.getHeight() * scale) / 2f;
    canvas.drawBitmap(image, null, new RectF(left, top, left + image.getWidth() * scale,
        top + image.getHeight() * scale), null);
    for (int i = 0; i < lines.size(); i++) {
      OcrLine line = lines.get(i);
      Path outline = new Path();
      for (int corner = 0; corner < 4; corner++) {
        float x = left + line.box.x(corner) * scale;
        float y = top + line.box.y(corner) * scale;
        if (corner == 0) {
          outline.moveTo(x, y);
        } else {
          outline.lineTo(x, y);
        }
      }
      outline.close();
      canvas.drawPath(outline, boxPaint);
      canvas.drawText(Integer.toString(i + 1), left + line.box.x(0) * scale, top + line.box.y(0) * scale - 4f,
          labelPaint);
    }
  }
}
