"""Rendered text with known ground truth, for the PP-OCR int8 accuracy test.

Lines (for rec and cls) and pages (for det) are drawn with Pillow in Debian's DejaVu fonts
(fonts-dejavu-core) from a fixed random generator, so the text and every line's box are known
exactly. The words mix lower / upper case, digits, punctuation and short numbers, all of which are
in the PP-OCRv4 rec dictionary.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
FONT_FILES = ("DejaVuSans.ttf", "DejaVuSerif.ttf", "DejaVuSansMono.ttf", "DejaVuSans-Bold.ttf",
              "DejaVuSansCondensed.ttf", "DejaVuSerif-Bold.ttf")
WORDS = ("model", "runtime", "kernel", "tensor", "edge", "device", "Paper", "Invoice", "Total", "Date",
         "Name", "Street", "City", "Order", "price", "amount", "phone", "email", "report", "quick", "brown",
         "fox", "jumps", "over", "lazy", "dog", "Linux", "Debian", "ARM", "NEON", "camera", "scan", "text",
         "line", "page", "value", "status", "ready", "open", "close", "north", "south", "river", "green")
PUNCTUATION = (".", ",", ":", ";", "!", "?", "-", "/", "(", ")", "%", "#")
# PaddleOCR's preprocessing: det uses ImageNet mean / std, rec and cls map [0, 255] to [-1, 1].
DET_MEAN = np.array([0.485, 0.456, 0.406], np.float32)
DET_STD = np.array([0.229, 0.224, 0.225], np.float32)


def fonts_available() -> bool:
    return all((FONT_DIR / name).is_file() for name in FONT_FILES)


def _font(name: str, size: int):  # noqa: ANN202 - a PIL font object
    from PIL import ImageFont

    return ImageFont.truetype(str(FONT_DIR / name), size)


def random_line_text(rng: np.random.Generator, max_chars: int) -> str:
    """Two to five tokens: words (some capitalized or upper case), numbers, punctuation."""
    tokens: list[str] = []
    for _ in range(int(rng.integers(2, 6))):
        kind = rng.random()
        if kind < 0.6:
            word = str(rng.choice(WORDS))
            word = word.upper() if rng.random() < 0.15 else word
            tokens.append(word + (str(rng.choice(PUNCTUATION)) if rng.random() < 0.25 else ""))
        elif kind < 0.85:
            tokens.append(str(int(rng.integers(0, 100000))))
        else:
            tokens.append(f"{int(rng.integers(1, 32)):02d}/{int(rng.integers(1, 13)):02d}")
    text = " ".join(tokens)
    return text[:max_chars].strip() or "text"


def render_line(rng: np.random.Generator, height: int = 48, width: int = 320) -> tuple[np.ndarray, str]:
    """An RGB uint8 line crop (black text on white, font and size varied) and its text."""
    from PIL import Image, ImageDraw

    font_name = str(rng.choice(FONT_FILES))
    size = int(rng.integers(int(height * 0.55), int(height * 0.75)))
    text = random_line_text(rng, max_chars=24)
    measure = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    while size > 12 and measure.textlength(text, font=_font(font_name, size)) > width - 8:
        size -= 1
    while measure.textlength(text, font=_font(font_name, size)) > width - 8 and " " in text:
        text = text.rsplit(" ", 1)[0]  # still too long at the smallest size: drop the last token
    image = Image.new("RGB", (width, height), "white")
    left, top, _, bottom = measure.textbbox((0, 0), text, font=_font(font_name, size))
    y = (height - (bottom - top)) // 2 - top
    ImageDraw.Draw(image).text((4 - left, y), text, fill="black", font=_font(font_name, size))
    return np.asarray(image), text


Box = tuple[int, ...]


def render_page(rng: np.random.Generator, height: int, width: int) -> tuple[np.ndarray, list[Box]]:
    """An RGB uint8 page of text lines and each line's ink box (x0, y0, x1, y1)."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    boxes: list[Box] = []
    y = int(rng.integers(8, 24))
    while True:
        font = _font(str(rng.choice(FONT_FILES)), int(rng.integers(16, 30)))
        text = random_line_text(rng, max_chars=int(rng.integers(8, 30)))
        x = int(rng.integers(8, max(9, width // 3)))
        while draw.textlength(text, font=font) > width - x - 8 and " " in text:
            text = text.rsplit(" ", 1)[0]
        box = draw.textbbox((x, y), text, font=font)
        if box[3] > height - 8:
            break
        if box[2] <= width - 4:
            draw.text((x, y), text, fill="black", font=font)
            boxes.append(tuple(int(v) for v in box))
        y = box[3] + int(rng.integers(12, 36))
    return np.asarray(image), boxes


def rec_input(pixels: list[np.ndarray]) -> np.ndarray:
    """NCHW float32 batch for rec / cls: [0, 255] -> [-1, 1]."""
    batch = np.stack(pixels).astype(np.float32) / 127.5 - 1.0
    return np.ascontiguousarray(batch.transpose(0, 3, 1, 2))


def det_input(pixels: np.ndarray) -> np.ndarray:
    """NCHW float32 input for det: ImageNet normalization."""
    normalized = (pixels.astype(np.float32) / 255.0 - DET_MEAN) / DET_STD
    return np.ascontiguousarray(normalized.transpose(2, 0, 1)[None])
