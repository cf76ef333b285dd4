"""``make android-assets``: the demo app's models, converted into android_demo/app/src/main/assets/.

det.lite, cls.lite, rec.lite: PaddleOCR's PP-OCRv4 det / rec and mobile cls (lite_converter.app.zoo),
converted with their dynamic dims; det_int8.lite, cls_int8.lite, rec_int8.lite: the same compressed
to int8 by slim.compress, calibrated on text the Python demo renders and normalizes
(lite_converter.app.demo.ocr_input: pages for det, lines for cls, half of them upside down, and rec);
ppocr_keys.txt: the recognizer's dictionary, from the model's metadata.

Usage: python android_demo/tools/make_assets.py [OUTPUT_DIR]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

import slim  # noqa: E402
from lite_converter.app import zoo  # noqa: E402
from lite_converter.app.demo import ocr_input  # noqa: E402
from lite_converter.convert import convert_onnx  # noqa: E402
from lite_converter.reader import read_model  # noqa: E402

DEFAULT_OUTPUT = ROOT / "android_demo" / "app" / "src" / "main" / "assets"
CALIBRATION_SEED = 7
CALIBRATION_PAGES, CALIBRATION_LINES = 6, 32


def calibration(key: str) -> list[np.ndarray]:
    """Model inputs normalized as the app does (one per batch), at sizes that need no resizing."""
    if key == "det":
        return [ocr_input("det", (1, 3, 480, 640), CALIBRATION_SEED + i)[0] for i in range(CALIBRATION_PAGES)]
    width = 192 if key == "cls" else 320
    batches = [ocr_input(key, (1, 3, 48, width), CALIBRATION_SEED + i)[0] for i in range(CALIBRATION_LINES)]
    if key == "cls":  # both orientations: every other line upside down (rows and columns reversed)
        batches = [batch if i % 2 == 0 else np.ascontiguousarray(batch[:, :, ::-1, ::-1])
                   for i, batch in enumerate(batches)]
    return batches


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="convert the demo app's models into its assets folder")
    parser.add_argument("output", nargs="?", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    args.output.mkdir(parents=True, exist_ok=True)
    for key, source in zoo.fetch_all(["det", "cls", "rec"]).items():
        start = time.perf_counter()
        fp32 = convert_onnx(source, output_path=args.output / f"{key}.lite")
        print(f"{key}.lite: {len(fp32) / 1e6:.2f} MB ({time.perf_counter() - start:.1f} s)", flush=True)
        start = time.perf_counter()
        slim.compress(str(source), args.output / f"{key}_int8.lite", calibration(key),
                      slim.QuantConfig(progress=False))
        size = (args.output / f"{key}_int8.lite").stat().st_size
        print(f"{key}_int8.lite: {size / 1e6:.2f} MB ({time.perf_counter() - start:.1f} s)", flush=True)
    characters = read_model((args.output / "rec.lite").read_bytes()).metadata["character"].split("\n")
    (args.output / "ppocr_keys.txt").write_text("\n".join(characters) + "\n", encoding="utf-8")
    print(f"ppocr_keys.txt: {len(characters)} characters; assets in {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
