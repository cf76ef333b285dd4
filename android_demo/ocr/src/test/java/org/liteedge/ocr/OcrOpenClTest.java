package org.liteedge.ocr;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.List;
import org.junit.Test;
import org.liteedge.runtime.Backend;
import org.liteedge.runtime.Interpreter;

/**
 * The OCR pipeline as the demo's benchmark screen opens it with backend "auto", against the Python
 * pipeline's reading (ocr_expected.tsv) on an upright and a turned page. The release JUnit run has
 * OpenCL (PoCL): every model on the GPU at fp32, the same text and cls decisions, box corners within
 * 1 px and scores within 1e-3 (the GPU sums in another order, ~1e-6 relative: a pixel at a text edge
 * may cross DB's threshold). The ASan run has no OpenCL: "auto" stays on the CPU, says why, and reads
 * exactly what OcrPipelineTest checks. {@code -Dliteedge.opencl} says which (make android-test).
 */
public class OcrOpenClTest {
  /** An upright and a turned page on the GPU; the turned one alone under ASan (a page costs 10-30 s there). */
  private static final String[] GPU_PAGES = {"page_00.png", "page_15.png"};
  private static final String[] CPU_PAGES = {"page_15.png"};

  @Test
  public void autoReadsThePagesOnWhicheverBackendItGets() throws Exception {
    String state = System.getProperty("liteedge.opencl");
    if (!"available".equals(state) && !"unavailable".equals(state)) {
      throw new AssertionError("-Dliteedge.opencl=available|unavailable is not set: run `make android-test`");
    }
    boolean gpu = state.equals("available");
    Interpreter.Options options = new Interpreter.Options().setBackend(Backend.AUTO);
    try (OcrPipeline pipeline = OcrPipeline.open(OcrFixtures.file("det.lite"), OcrFixtures.file("cls.lite"),
        OcrFixtures.file("rec.lite"), OcrFixtures.decoder(), options)) {
      String description = pipeline.backendDescription();
      assertTrue(description, gpu ? description.contains("Portable Computing Language")
          : description.startsWith("cpu (OpenCL unavailable"));
      for (String page : gpu ? GPU_PAGES : CPU_PAGES) {
        List<OcrLine> want = OcrFixtures.expected().get(page);
        List<OcrLine> got = pipeline.run(OcrFixtures.png(page));
        assertTrue(page + ": the Python pipeline read nothing", want.size() >= 3);
        assertEquals(page + ": lines " + got, want.size(), got.size());
        for (int i = 0; i < want.size(); i++) {
          String where = page + " line " + i;
          assertEquals(where + " text", want.get(i).text, got.get(i).text);
          assertEquals(where + " turned", want.get(i).rotated180, got.get(i).rotated180);
          assertEquals(where + " score", want.get(i).score, got.get(i).score, gpu ? 1e-3 : 1e-6);
          TextBox a = want.get(i).box;
          TextBox b = got.get(i).box;
          for (int k = 0; k < 4; k++) {
            int off = Math.max(Math.abs(a.x(k) - b.x(k)), Math.abs(a.y(k) - b.y(k)));
            assertTrue(where + " corners " + a + " vs " + b, off <= (gpu ? 1 : 0));
          }
        }
      }
    }
  }
}
