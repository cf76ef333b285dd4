"""PP-OCR int8 accuracy on rendered text with known ground truth (issue 4).

The PaddleOCR det / rec / cls models (lite_converter.app.zoo) are converted to fp32 .lite and compressed
to int8 .lite (slim.compress) once per session; calibration uses rendered text from its own seed,
disjoint from the evaluation text. Then, on our runtime:

* rec: >= 500 rendered lines (words, digits, punctuation; six DejaVu fonts; varied sizes), character
  accuracy (1 - normalized edit distance against the rendered text) of int8 within 1.0 point of fp32;
* det: >= 20 rendered pages, line recall (tests/ocr_metrics.py: DB threshold, components, unclip,
  IoU >= 0.5 against the drawn line boxes) of int8 within 2 points of fp32;
* cls: the same lines, half of them turned by 180 degrees, int8 predicts the fp32 class on >= 98%.

The fp32 scores are also checked against the ground truth, so a broken fp32 path cannot make the
comparison vacuous. Each test prints its table (pytest -s shows it).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import onnx
import pytest

pytest.importorskip("PIL")
pytest.importorskip("scipy")

from lite_converter.app import zoo  # noqa: E402
from lite_converter.app.demo import ctc_greedy_decode  # noqa: E402
from lite_converter.convert import convert_onnx  # noqa: E402
from runtime_arm import Interpreter  # noqa: E402
from tests import ocr_metrics, ocr_render  # noqa: E402

if not ocr_render.fonts_available():
    pytest.skip("Debian's fonts-dejavu-core is not installed (make test installs it)",
                allow_module_level=True)

import slim  # noqa: E402

REC_LINES = 500
DET_PAGES = 20
PAGE_SIZE = (480, 480)
CLS_WIDTH = 192
BATCH = 50
CALIBRATION_SEED, EVALUATION_SEED = 11, 12
CALIBRATION_LINES, CALIBRATION_PAGES = 24, 4


@dataclasses.dataclass(frozen=True)
class ModelPair:
    onnx: Path
    fp32: Path
    int8: Path
    int8_nodes: int


def _line_images(seed: int, count: int) -> tuple[list[np.ndarray], list[str]]:
    rng = np.random.default_rng(seed)
    lines = [ocr_render.render_line(rng) for _ in range(count)]
    return [pixels for pixels, _ in lines], [text for _, text in lines]


def _cls_images(lines: list[np.ndarray], seed: int) -> tuple[list[np.ndarray], np.ndarray]:
    """Lines squeezed to the cls width; every other one turned by 180 degrees (label 1)."""
    from PIL import Image

    turned = np.arange(len(lines)) % 2 == 1
    images = []
    for pixels, turn in zip(lines, turned, strict=True):
        image = Image.fromarray(pixels).resize((CLS_WIDTH, pixels.shape[0]), Image.BILINEAR)
        images.append(np.asarray(image.rotate(180) if turn else image))
    return images, turned.astype(np.int64)


def _pages(seed: int, count: int) -> list[tuple[np.ndarray, list[tuple[int, ...]]]]:
    rng = np.random.default_rng(seed)
    return [ocr_render.render_page(rng, *PAGE_SIZE) for _ in range(count)]


def _calibration(key: str) -> list[np.ndarray]:
    if key == "det":
        return [ocr_render.det_input(pixels) for pixels, _ in _pages(CALIBRATION_SEED, CALIBRATION_PAGES)]
    lines, _ = _line_images(CALIBRATION_SEED, CALIBRATION_LINES)
    if key == "cls":
        lines, _ = _cls_images(lines, CALIBRATION_SEED)
    return [ocr_render.rec_input(lines[i:i + 8]) for i in range(0, len(lines), 8)]


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ModelPair]:
    """fp32 and int8 .lite of det, rec and cls (dynamic batch / size kept), made once per session."""
    folder = tmp_path_factory.mktemp("ocr_int8")
    pairs = {}
    for key, path in zoo.fetch_all(["det", "rec", "cls"]).items():
        fp32, int8 = folder / f"{key}_fp32.lite", folder / f"{key}_int8.lite"
        convert_onnx(str(path), fp32)
        result = slim.compress(str(path), int8, _calibration(key), slim.QuantConfig(progress=False))
        pairs[key] = ModelPair(path, fp32, int8, len(result.int8_nodes))
    return pairs


def _run_batches(path: Path, batches: list[np.ndarray]) -> list[np.ndarray]:
    with Interpreter(model_path=str(path)) as interpreter:
        name = interpreter.input_names[0]
        return [next(iter(interpreter.run({name: batch}).values())) for batch in batches]


def _rec_characters() -> list[str]:
    model = onnx.load(str(zoo.fetch("rec")), load_external_data=False)
    return {p.key: p.value for p in model.metadata_props}["character"].splitlines()


def _table(title: str, rows: list[tuple[str, float, float]]) -> None:
    print(f"\n{title}\n{'metric':<32}{'fp32':>10}{'int8':>10}")
    for name, fp32, int8 in rows:
        print(f"{name:<32}{fp32:>10.2f}{int8:>10.2f}")


def test_rec_int8_character_accuracy_within_one_point(models: dict[str, ModelPair]) -> None:
    lines, truths = _line_images(EVALUATION_SEED, REC_LINES)
    batches = [ocr_render.rec_input(lines[i:i + BATCH]) for i in range(0, len(lines), BATCH)]
    characters = _rec_characters()
    scores = {}
    for precision in ("fp32", "int8"):
        outputs = np.concatenate(_run_batches(getattr(models["rec"], precision), batches))
        predictions = [ctc_greedy_decode(row, characters).strip() for row in outputs]
        scores[precision] = ocr_metrics.character_accuracy(predictions, truths)
    _table(f"PP-OCRv4 rec, {REC_LINES} rendered lines ({models['rec'].int8_nodes} int8 nodes)",
           [("character accuracy %", scores["fp32"], scores["int8"])])
    assert scores["fp32"] >= 90.0, scores  # the fp32 model reads the rendered text
    assert scores["int8"] >= scores["fp32"] - 1.0, scores


def test_det_int8_box_recall_within_two_points(models: dict[str, ModelPair]) -> None:
    pages = _pages(EVALUATION_SEED, DET_PAGES)
    truth_count = sum(len(boxes) for _, boxes in pages)
    recall = {}
    for precision in ("fp32", "int8"):
        maps = _run_batches(getattr(models["det"], precision), [ocr_render.det_input(p) for p, _ in pages])
        found = sum(ocr_metrics.found_lines(boxes, ocr_metrics.db_boxes(probability[0, 0]))
                    for (_, boxes), probability in zip(pages, maps, strict=True))
        recall[precision] = 100.0 * found / truth_count
    _table(f"PP-OCRv4 det, {DET_PAGES} pages {PAGE_SIZE}, {truth_count} lines "
           f"({models['det'].int8_nodes} int8 nodes)",
           [("line recall % (IoU >= 0.5)", recall["fp32"], recall["int8"])])
    assert truth_count >= 150
    assert recall["fp32"] >= 80.0, recall
    assert recall["int8"] >= recall["fp32"] - 2.0, recall


def test_cls_int8_keeps_predictions(models: dict[str, ModelPair]) -> None:
    lines, _ = _line_images(EVALUATION_SEED, REC_LINES)
    images, turned = _cls_images(lines, EVALUATION_SEED)
    batches = [ocr_render.rec_input(images[i:i + BATCH]) for i in range(0, len(images), BATCH)]
    predicted = {}
    for precision in ("fp32", "int8"):
        outputs = _run_batches(getattr(models["cls"], precision), batches)
        predicted[precision] = np.concatenate(outputs).argmax(axis=1)
    agreement = 100.0 * float(np.mean(predicted["int8"] == predicted["fp32"]))
    correct = {p: 100.0 * float(np.mean(predicted[p] == turned)) for p in predicted}
    _table(f"ppocr cls, {len(images)} lines, half turned 180 deg ({models['cls'].int8_nodes} int8 nodes)",
           [("orientation accuracy %", correct["fp32"], correct["int8"]),
            ("agreement with fp32 %", 100.0, agreement)])
    assert correct["fp32"] >= 90.0, correct
    assert agreement >= 98.0, agreement


# Measured int8 .lite / ONNX bytes with weight-only int8 under the runtime's prepare-time limit
# (docs/INT8_OPS.md): det 60.1%, rec 49.4%, cls 37.1% (before weight-only: 78.1%, 61.1%, 70.0%).
SIZE_CEILINGS = {"det": 0.27, "rec": 0.27, "cls": 0.33}  # issue 4: det and rec <= 27%


def test_int8_file_sizes(models: dict[str, ModelPair]) -> None:
    print(f"\n{'model':<8}{'ONNX bytes':>14}{'fp32 .lite':>14}{'int8 .lite':>14}{'int8 / ONNX':>14}")
    ratios = {}
    for key, pair in models.items():
        sizes = [path.stat().st_size for path in (pair.onnx, pair.fp32, pair.int8)]
        ratios[key] = sizes[2] / sizes[0]
        print(f"{key:<8}{sizes[0]:>14,}{sizes[1]:>14,}{sizes[2]:>14,}{ratios[key]:>14.1%}")
    assert all(ratios[key] <= ceiling for key, ceiling in SIZE_CEILINGS.items()), ratios
