"""The oracle for real-model tests: onnxruntime on the very same ONNX file, held to the rule of
lite_converter/app/onnx_oracle.py (`lite check` uses it too; its docstring says why):
``max|ours - ort| <= max(1e-4 * max(1, max|ort|), 2 * spread)``, ``spread`` being onnxruntime's own
optimized-vs-unoptimized difference.
"""

from __future__ import annotations

import os

import numpy as np

from lite_converter.app.onnx_oracle import SPREAD_FACTOR, TOLERANCE, max_abs_difference, onnxruntime_outputs

__all__ = ["SPREAD_FACTOR", "TOLERANCE", "assert_matches_onnxruntime", "max_abs_difference",
           "onnxruntime_outputs"]


def assert_matches_onnxruntime(ours: dict[str, np.ndarray], model_path: str | os.PathLike,
                               feeds: dict[str, np.ndarray], what: str) -> dict[str, np.ndarray]:
    """Checks ``ours`` against onnxruntime with the rule above; returns onnxruntime's outputs."""
    reference = onnxruntime_outputs(model_path, feeds)
    literal = onnxruntime_outputs(model_path, feeds, optimized=False)
    assert set(ours) == set(reference), f"{what}: outputs {sorted(ours)} != onnxruntime's {sorted(reference)}"
    for name, expected in reference.items():
        actual = np.asarray(ours[name])
        assert actual.shape == expected.shape, f"{what} {name}: shape {actual.shape} != ort {expected.shape}"
        assert np.isfinite(actual).all(), f"{what} {name}: non-finite values"
        spread = max_abs_difference(literal[name], expected)
        bound = max(TOLERANCE * max(1.0, float(np.abs(expected).max())), SPREAD_FACTOR * spread)
        diff = max_abs_difference(actual, expected)
        assert diff <= bound, (f"{what} {name}: max|ours - ort| = {diff:.3g} > {bound:.3g} "
                               f"(onnxruntime optimized vs unoptimized: {spread:.3g})")
    return reference
