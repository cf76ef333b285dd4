package org.liteedge.ocr;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;
import org.liteedge.runtime.Interpreter;

/**
 * The Java OCR pipeline against the Python one (tests/ocr_pipeline_reference.py, the Python demo's
 * rendering, normalization and CTC decoding) on pages the demo rendered: upright, turned by a few
 * degrees, upside down. The same boxes (integer corners, exactly), the same text (exactly), the same
 * cls decisions, scores within 1e-6 (from the library Python used: equal to ~1e-16, the same float32
 * outputs summed in the same order; from the unoptimized ASan build: 2e-8 apart, other rounding).
 *
 * <p>Every page by default; {@code -Dliteedge.ocr.pages=page_00.png,page_14.png} runs those only (the
 * ASan build of the runtime is unoptimized and ~100 times slower).
 */
@RunWith(Parameterized.class)
public class OcrPipelineTest {
  private static Map<String, List<OcrLine>> expected;
  private static OcrPipeline pipeline;

  @Parameterized.Parameter
  public String image;

  @Parameterized.Parameters(name = "{0}")
  public static Collection<Object[]> images() throws Exception {
    List<Object[]> images = new ArrayList<>();
    String chosen = System.getProperty("liteedge.ocr.pages");
    for (String name : OcrFixtures.expected().keySet()) {
      if (chosen == null || Arrays.asList(chosen.split(",")).contains(name)) {
        images.add(new Object[] {name});
      }
    }
    if (chosen != null && images.size() != chosen.split(",").length) {
      throw new AssertionError("liteedge.ocr.pages names pages the fixtures do not have: " + chosen);
    }
    if (chosen == null && images.size() < 20) {
      throw new AssertionError("the fixtures hold " + images.size() + " pages; the comparison needs >= 20");
    }
    return images;
  }

  @BeforeClass
  public static void openPipeline() throws Exception {
    expected = OcrFixtures.expected();
    pipeline = OcrPipeline.open(OcrFixtures.file("det.lite"), OcrFixtures.file("cls.lite"),
        OcrFixtures.file("rec.lite"), OcrFixtures.decoder(), new Interpreter.Options().setNumThreads(1));
  }

  @AfterClass
  public static void closePipeline() {
    if (pipeline != null) {
      pipeline.close();
    }
  }

  @Test
  public void readsWhatThePythonPipelineReads() throws Exception {
    List<OcrLine> want = expected.get(image);
    List<OcrLine> got = pipeline.run(OcrFixtures.png(image));
    assertEquals(image + ": lines " + got, want.size(), got.size());
    assertTrue(image + ": the Python pipeline read nothing", want.size() >= 3);
    for (int i = 0; i < want.size(); i++) {
      String where = image + " line " + i;
      assertEquals(where + " box", want.get(i).box, got.get(i).box);
      assertEquals(where + " text", want.get(i).text, got.get(i).text);
      assertEquals(where + " turned", want.get(i).rotated180, got.get(i).rotated180);
      assertEquals(where + " score", want.get(i).score, got.get(i).score, 1e-6);
    }
  }
}
