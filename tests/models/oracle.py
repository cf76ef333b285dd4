"""The oracle for real-model tests: onnxruntime on the very same ONNX file, and the comparison rule.

One rule everywhere: ``max|ours - ort| <= 1e-4 * max(1, max|ort|)``, so the bound is absolute for
outputs of order one (probabilities, logits) and relative for large-valued outputs.
"""

from __future__ import annotations

import os

import numpy as np

TOLERANCE = 1e-4


def onnxruntime_outputs(model_path: str | os.PathLike, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Runs the ONNX model with onnxruntime (CPU, one thread: the machine is shared) by output name."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(os.fspath(model_path), options, providers=["CPUExecutionProvider"])
    names = [output.name for output in session.get_outputs()]
    return dict(zip(names, session.run(names, feeds), strict=True))


def max_abs_difference(ours: np.ndarray, reference: np.ndarray) -> float:
    """Largest absolute elementwise difference (shapes must already agree)."""
    return float(np.max(np.abs(ours.astype(np.float64) - reference.astype(np.float64)), initial=0.0))


def assert_matches(ours: dict[str, np.ndarray], reference: dict[str, np.ndarray], what: str) -> None:
    """Every reference output is present in ``ours`` with the same shape and within TOLERANCE."""
    assert set(ours) == set(reference), f"{what}: outputs {sorted(ours)} != onnxruntime's {sorted(reference)}"
    for name, expected in reference.items():
        actual = np.asarray(ours[name])
        assert actual.shape == expected.shape, f"{what} {name}: shape {actual.shape} != ort {expected.shape}"
        assert np.isfinite(actual).all(), f"{what} {name}: non-finite values"
        bound = TOLERANCE * max(1.0, float(np.abs(expected).max()))
        diff = max_abs_difference(actual, expected)
        assert diff <= bound, f"{what} {name}: max|ours - ort| = {diff:.3g} > {bound:.3g}"
