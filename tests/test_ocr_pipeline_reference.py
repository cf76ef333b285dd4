"""The Python OCR pipeline that the Java one is held to (tests/ocr_pipeline_reference.py), checked
against what it must find: the text the demo rendered, and boxes where the lines are.

* On pages rendered by the demo (its renderer, other seeds than the Java fixtures), the pipeline
  finds one box per rendered line and reads >= 90% of the characters (PaddleOCR's normalized edit
  distance, spaces removed: PP-OCRv4's Chinese dictionary often joins words); turned upside down,
  cls turns every line back and >= 95% of the characters read the same.
* Its boxes overlap the boxes of the simplified, independent DB post-process of tests/ocr_metrics.py
  (scipy components, axis-aligned) with IoU >= 0.5.
* Its bilinear resize agrees with Pillow's on upscaling (within 1: Pillow works in fixed point).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PIL")
pytest.importorskip("scipy")

from lite_converter.app import zoo  # noqa: E402
from lite_converter.app.demo import render_page  # noqa: E402
from lite_converter.convert import convert_onnx  # noqa: E402
from lite_converter.reader import read_model  # noqa: E402
from tests import ocr_metrics  # noqa: E402
from tests import ocr_pipeline_reference as reference  # noqa: E402

PAGES = 6
SEED = 900


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory: pytest.TempPathFactory) -> reference.OcrPipeline:
    folder = tmp_path_factory.mktemp("ocr_pipeline")
    paths = {}
    for key, source in zoo.fetch_all(["det", "cls", "rec"]).items():
        paths[key] = folder / f"{key}.lite"
        convert_onnx(source, output_path=paths[key])
    characters = read_model(Path(paths["rec"]).read_bytes()).metadata["character"].split("\n")
    ocr = reference.OcrPipeline(str(paths["det"]), str(paths["cls"]), str(paths["rec"]), characters)
    yield ocr
    ocr.close()


def _pages() -> list[tuple[np.ndarray, list[str]]]:
    rng = np.random.default_rng(SEED)
    return [render_page(400 + 40 * i, 640 - 30 * i, rng) for i in range(PAGES)]


def _squeezed(text: str) -> str:
    return text.replace(" ", "")


def test_reads_the_rendered_lines(pipeline: reference.OcrPipeline) -> None:
    predictions, truths = [], []
    for pixels, lines in _pages():
        found = pipeline(pixels)
        assert len(found) == len(lines), ([line.text for line in found], lines)
        assert not any(line.rotated_180 for line in found)
        predictions += [_squeezed(line.text) for line in found]
        truths += [_squeezed(line) for line in lines]
    accuracy = ocr_metrics.character_accuracy(predictions, truths)
    assert accuracy >= 90.0, (accuracy, list(zip(predictions, truths, strict=True)))


def test_upside_down_pages_read_the_same(pipeline: reference.OcrPipeline) -> None:
    for pixels, _ in _pages()[:3]:
        upright = pipeline(pixels)
        turned = pipeline(np.ascontiguousarray(pixels[::-1, ::-1]))
        assert all(line.rotated_180 for line in turned)
        # Turned, the last line comes first; its box is found anew (a pixel off here and there), so a
        # character may read differently: >= 95% of them the same.
        assert len(turned) == len(upright)
        accuracy = ocr_metrics.character_accuracy([_squeezed(line.text) for line in reversed(turned)],
                                                  [_squeezed(line.text) for line in upright])
        assert accuracy >= 95.0, accuracy


def test_boxes_overlap_the_independent_db_boxes(pipeline: reference.OcrPipeline) -> None:
    for pixels, _ in _pages()[:3]:
        probability = pipeline._first_output(pipeline.det, reference.det_input(pixels))[0, 0]
        scale_y = pixels.shape[0] / probability.shape[0]
        scale_x = pixels.shape[1] / probability.shape[1]
        simple = [(x0 * scale_x, y0 * scale_y, x1 * scale_x, y1 * scale_y)
                  for x0, y0, x1, y1 in ocr_metrics.db_boxes(probability)]
        boxes = reference.db_boxes(probability, *pixels.shape[:2])
        assert boxes
        for box in boxes:
            xs, ys = [x for x, _ in box], [y for _, y in box]
            rect = (min(xs), min(ys), max(xs), max(ys))
            assert max(ocr_metrics.iou(rect, other) for other in simple) >= 0.5, (rect, simple)


def test_resize_agrees_with_pillow_on_upscaling() -> None:
    from PIL import Image

    rng = np.random.default_rng(1)
    image = rng.integers(0, 256, (13, 21, 3), dtype=np.uint8)
    ours = reference.resize_bilinear(image, 48, 70).astype(np.int16)
    pillow = np.asarray(Image.fromarray(image).resize((70, 48), Image.BILINEAR)).astype(np.int16)
    assert np.abs(ours - pillow).max() <= 1


def test_min_area_rect_of_a_tilted_rectangle() -> None:
    corners = [(0, 0), (24, 18), (18, 26), (-6, 8)]  # 30 x 10, long side along (4, 3) / 5
    rect = reference.min_area_rect(reference.convex_hull(corners))
    assert sorted((rect.width, rect.height)) == pytest.approx([10.0, 30.0])
    assert (rect.cx, rect.cy) == pytest.approx((9.0, 13.0))
    corners = [value for corner in rect.corners() for value in corner]
    assert corners == pytest.approx([0, 0, 24, 18, 18, 26, -6, 8])
