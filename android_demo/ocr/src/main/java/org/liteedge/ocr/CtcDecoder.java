package org.liteedge.ocr;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * PaddleOCR's CTC decoding of the recognizer's [T, classes] probabilities: the best class per time
 * step, repeats merged, the blank (class 0) dropped. Class i (1 <= i <= characters) is character
 * i - 1 of the dictionary; the last class is the space.
 */
public final class CtcDecoder {
  private final String[] alphabet;

  public CtcDecoder(List<String> characters) {
    alphabet = new String[characters.size() + 2];
    alphabet[0] = "";
    for (int i = 0; i < characters.size(); i++) {
      alphabet[i + 1] = characters.get(i);
    }
    alphabet[alphabet.length - 1] = " ";
  }

  /** The dictionary: one character per line, UTF-8 (PaddleOCR's ppocr_keys_v1.txt, or the rec model's metadata). */
  public static CtcDecoder fromDictionary(InputStream stream) throws IOException {
    List<String> characters = new ArrayList<>();
    try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        characters.add(line);
      }
    }
    return new CtcDecoder(characters);
  }

  /** Number of classes the recognizer must output: blank + dictionary + space. */
  public int classCount() {
    return alphabet.length;
  }

  /** Decodes [steps, classes] row-major probabilities. */
  public Decoded decode(float[] probabilities, int steps, int classes) {
    if (classes != alphabet.length || probabilities.length < steps * classes) {
      throw new IllegalArgumentException("the recognizer gives " + classes + " classes, the dictionary has "
          + alphabet.length + " (blank + characters + space)");
    }
    StringBuilder text = new StringBuilder();
    double total = 0.0;
    int kept = 0;
    int previous = -1;
    for (int t = 0; t < steps; t++) {
      int best = 0;
      for (int c = 1; c < classes; c++) {
        if (probabilities[t * classes + c] > probabilities[t * classes + best]) {
          best = c;
        }
      }
      if (best != 0 && best != previous) {
        text.append(alphabet[best]);
        total += probabilities[t * classes + best];
        kept++;
      }
      previous = best;
    }
    return new Decoded(text.toString(), kept > 0 ? total / kept : 0.0);
  }

  /** A decoded line: its text and the mean probability of its characters. */
  public static final class Decoded {
    public final String text;
    public final double score;

    Decoded(String text, double score) {
      this.text = text;
      this.score = score;
    }
  }
}
