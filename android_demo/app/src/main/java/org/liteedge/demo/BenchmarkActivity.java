package org.liteedge.demo;

import android.app.Activity;
import android.os.Bundle;
import android.widget.CheckBox;
import android.widget.Spinner;
import android.widget.TextView;
import java.io.File;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.liteedge.ocr.OcrBenchmark;
import org.liteedge.ocr.OcrPipeline;
import org.liteedge.ocr.RgbImage;
import org.liteedge.runtime.CpuAffinity;
import org.liteedge.runtime.Interpreter;
import org.liteedge.runtime.Precision;

/**
 * Threads, backend, fp32 or int8, big cores or not -> the pipeline's median latency on the sample
 * page, each model's share and the op types that cost most (OcrBenchmark, tested on the host).
 */
public final class BenchmarkActivity extends Activity {
  private final ExecutorService worker = Executors.newSingleThreadExecutor();
  private TextView report;

  @Override
  protected void onCreate(Bundle savedInstanceState) {
    super.onCreate(savedInstanceState);
    setContentView(R.layout.activity_benchmark);
    report = findViewById(R.id.report);
    Spinner threads = findViewById(R.id.threads);
    Spinner backend = findViewById(R.id.backend);
    Spinner precision = findViewById(R.id.precision);
    Spinner runs = findViewById(R.id.runs);
    CheckBox fastCores = findViewById(R.id.fast_cores);
    findViewById(R.id.run).setOnClickListener(v -> run(
        Integer.parseInt(threads.getSelectedItem().toString()), backend.getSelectedItem().toString(),
        precision.getSelectedItem().toString(), Integer.parseInt(runs.getSelectedItem().toString()),
        fastCores.isChecked()));
    if (!ModelAssets.present(this)) {
      report.setText(R.string.models_missing);
    }
  }

  private void run(int threads, String backend, String precision, int runs, boolean fastCores) {
    report.setText(R.string.working);
    worker.execute(() -> {
      String text;
      // "fp16" runs the fp32 models with half-float GPU storage (the CPU computes them in fp32).
      String models = precision.equals("int8") ? "int8" : "fp32";
      Interpreter.Options options = new Interpreter.Options().setNumThreads(threads).setBackend(backend)
          .setPrecision(precision.equals("fp16") ? Precision.FP16 : Precision.FP32)
          .setCpuAffinity(fastCores ? CpuAffinity.FAST_CORES : CpuAffinity.NONE);
      File gpuCache = new File(getCodeCacheDir(), "lite-opencl");
      if (gpuCache.isDirectory() || gpuCache.mkdirs()) {
        options.setCacheDir(gpuCache); // the GPU program is compiled once, then loaded
      }
      try (OcrPipeline pipeline = OcrPipeline.open(
          ModelAssets.file(this, ModelAssets.modelName("det", models)),
          ModelAssets.file(this, ModelAssets.modelName("cls", models)),
          ModelAssets.file(this, ModelAssets.modelName("rec", models)), ModelAssets.decoder(this), options)) {
        RgbImage page = Bitmaps.toRgb(Bitmaps.samplePage());
        OcrBenchmark.Result result = OcrBenchmark.run(pipeline, page, runs);
        String title = String.format(Locale.ROOT, "PP-OCRv4 %s, %d thread(s), backend %s%s", precision, threads,
            backend, fastCores ? ", big cores" : "");
        text = result.format(title, 6) + "\nbackend: " + pipeline.backendDescription()
            + "\nbig cores chosen: " + Arrays.toString(pipeline.cpuAffinityCpus());
      } catch (Exception failure) {
        text = "failed: " + failure.getMessage();
      }
      String shown = text;
      runOnUiThread(() -> report.setText(shown));
    });
  }

  @Override
  protected void onDestroy() {
    worker.shutdown();
    super.onDestroy();
  }
}
