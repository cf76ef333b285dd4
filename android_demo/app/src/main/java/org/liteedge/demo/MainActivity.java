package org.liteedge.demo;

import android.app.Activity;
import android.content.Intent;
import android.os.Bundle;
import android.widget.TextView;
import org.liteedge.runtime.Interpreter;

/** Two ways in: read text in a photo, or benchmark the models. */
public final class MainActivity extends Activity {
  @Override
  protected void onCreate(Bundle savedInstanceState) {
    super.onCreate(savedInstanceState);
    setContentView(R.layout.activity_main);
    findViewById(R.id.open_ocr).setOnClickListener(v -> startActivity(new Intent(this, OcrActivity.class)));
    findViewById(R.id.open_benchmark).setOnClickListener(v -> startActivity(new Intent(this, BenchmarkActivity.class)));
    TextView version = findViewById(R.id.version);
    version.setText(ModelAssets.present(this)
        ? getString(R.string.runtime_version, Interpreter.runtimeVersion())
        : getString(R.string.models_missing));
  }
}
