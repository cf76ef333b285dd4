"""The layer-level oracle of tests/test_layer_oracles.py: lite_converter/app/layer_check.py (what
`lite check --layers` prints), plus the test's own demands on its inputs and on what was compared."""

from __future__ import annotations

import os
from collections.abc import Mapping

import numpy as np
import onnx

from lite_converter.app import layer_check
from lite_converter.app.layer_check import LayerReport, TensorComparison, onnxruntime_values

__all__ = ["LayerReport", "TensorComparison", "compare_layers", "onnxruntime_values"]


def compare_layers(model: onnx.ModelProto, feeds: Mapping[str, np.ndarray],
                   source: str | os.PathLike | None = None) -> LayerReport:
    """layer_check.compare_layers, failing where a test's input makes onnxruntime's values non-finite
    (choose another input) or where a tensor of ours has another shape or non-finite values."""
    report = layer_check.compare_layers(model, feeds, source)
    assert not report.not_finite, f"onnxruntime's {report.not_finite} are not finite: choose another input"
    problems = [(c.name, c.problem) for c in report.compared if c.problem]
    assert not problems, problems
    return report
