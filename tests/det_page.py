"""A rendered page for the PP-OCR det checks, and the two things that make a det comparison mean something.

On noise the detector's probability map is ~1e-6 everywhere, so a bound of 1e-4 would pass a runtime
that writes zeros. On a page of rendered text (tests/datasets/text_pages.py: grey background, blur,
noise, JPEG) the map is ~1 on the text: the check first asserts that it is (:func:`assert_text_found`),
then compares with a bound relative to the map's own magnitude (:func:`assert_det_close`);
:func:`check_det_against_onnxruntime` does both against onnxruntime on the source model.
"""

from __future__ import annotations

import os

import numpy as np

from lite_converter.app.demo import DET_PROBABILITY_THRESHOLD
from tests.datasets import text_pages
from tests.datasets.splits import EVALUATION_SEED
from tests.models.oracle import max_abs_difference, onnxruntime_outputs

# Small enough to run in a fraction of a second, large enough for a line of 14..40 px text.
DET_PAGE_SHAPE = (1, 3, 128, 160)
RELATIVE_BOUND = 1e-4  # the fp32 rule of tests/models/oracle.py
SPREAD_FACTOR = 2.0


def det_page(shape: tuple[int, ...] = DET_PAGE_SHAPE, seed: int = EVALUATION_SEED) -> np.ndarray:
    """NCHW float32 det input: one rendered page, ImageNet-normalized."""
    _, _, height, width = shape
    ((pixels, boxes),) = text_pages.render_pages(seed, 1, height, width)
    assert boxes, "the rendered page has no text line"
    return text_pages.det_input(pixels)


def assert_text_found(probabilities: np.ndarray, what: str) -> None:
    """The detector saw text: a confident pixel somewhere and a text fraction a page can have."""
    text, mean = float(np.mean(probabilities > DET_PROBABILITY_THRESHOLD)), float(probabilities.mean())
    assert float(probabilities.max()) > 0.5 and 0.005 < text < 0.5 and 0.002 < mean < 0.5, (
        f"{what}: degenerate text map (max {probabilities.max():.3g}, mean {probabilities.mean():.3g}, "
        f"{text:.2%} above {DET_PROBABILITY_THRESHOLD}): the comparison would prove nothing")


def assert_det_close(actual: np.ndarray, expected: np.ndarray, what: str, spread: float = 0.0) -> None:
    """``max|actual - expected| <= max(1e-4 * max|expected|, 2 * spread)``: relative to the map's own
    magnitude (~1 once :func:`assert_text_found` passed), or to onnxruntime's own optimized-vs-unoptimized
    ``spread`` where that is larger (tests/models/oracle.py says why det needs it)."""
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    bound = max(RELATIVE_BOUND * float(np.abs(expected).max()), SPREAD_FACTOR * spread)
    error = float(np.abs(actual.astype(np.float64) - expected).max())
    assert error <= bound, (f"{what}: max|ours - ort| = {error:.3g} > {bound:.3g} "
                            f"(onnxruntime's spread {spread:.3g})")


def check_det_against_onnxruntime(ours: np.ndarray, model_path: str | os.PathLike, x: np.ndarray,
                                  what: str) -> None:
    """``ours``, det's map for input ``x``, against onnxruntime on ``model_path``: onnxruntime found
    text, and ours is within :func:`assert_det_close` of its map."""
    (expected,) = onnxruntime_outputs(model_path, {"x": x}).values()
    (literal,) = onnxruntime_outputs(model_path, {"x": x}, optimized=False).values()
    assert_text_found(expected, what)
    assert_det_close(ours, expected, what, spread=max_abs_difference(literal, expected))
