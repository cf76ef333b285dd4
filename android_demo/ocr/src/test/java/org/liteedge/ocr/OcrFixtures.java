package org.liteedge.ocr;

import java.awt.image.BufferedImage;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * The rendered pages and what the Python pipeline read on them (tests/java_fixtures.py writes
 * ocr_expected.tsv; make android-test passes the folder as -Dliteedge.fixtures).
 */
final class OcrFixtures {
  private OcrFixtures() {}

  static File file(String name) {
    String dir = System.getProperty("liteedge.fixtures");
    File file = new File(dir == null ? "" : dir, name);
    if (dir == null || !file.isFile()) {
      throw new AssertionError("missing fixture " + file + ": run `make android-test` (tests/java_fixtures.py)");
    }
    return file;
  }

  /** A PNG as an RgbImage (javax.imageio: host tests only; the app decodes with Android's Bitmap). */
  static RgbImage png(String name) throws IOException {
    BufferedImage image = ImageIO.read(file(name));
    int width = image.getWidth();
    int height = image.getHeight();
    return RgbImage.fromArgb(image.getRGB(0, 0, width, height, null, 0, width), width, height);
  }

  static CtcDecoder decoder() throws IOException {
    try (InputStream stream = new FileInputStream(file("ppocr_keys.txt"))) {
      return CtcDecoder.fromDictionary(stream);
    }
  }

  /** Image name -> the lines the Python pipeline found, in order. */
  static Map<String, List<OcrLine>> expected() throws IOException {
    Map<String, List<OcrLine>> pages = new LinkedHashMap<>();
    for (String row : Files.readAllLines(file("ocr_expected.tsv").toPath(), StandardCharsets.UTF_8)) {
      if (row.startsWith("#") || row.isEmpty()) {
        continue;
      }
      String[] fields = row.split("\t", -1);
      if (fields[1].equals("-1")) {
        pages.put(fields[0], new ArrayList<>());
        continue;
      }
      String[] corners = fields[2].split(" ");
      int[] xs = new int[4];
      int[] ys = new int[4];
      for (int i = 0; i < 4; i++) {
        xs[i] = Integer.parseInt(corners[2 * i]);
        ys[i] = Integer.parseInt(corners[2 * i + 1]);
      }
      pages.get(fields[0]).add(new OcrLine(new TextBox(xs, ys), unescape(fields[5]), Double.parseDouble(fields[4]),
          fields[3].equals("1")));
    }
    return pages;
  }

  private static String unescape(String text) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\\' && i + 1 < text.length()) {
        char next = text.charAt(++i);
        out.append(next == 't' ? '\t' : next == 'n' ? '\n' : next);
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
