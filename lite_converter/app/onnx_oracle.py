"""onnxruntime as the oracle of a converted ONNX model, and the rule its outputs are held to.

The rule: ``max|ours - ort| <= max(1e-4 * max(1, max|ort|), 2 * spread)``, where ``spread`` is how
far onnxruntime is from itself on the same input: its fully optimized session (fused, NCHWc
kernels) against the same model run with graph optimizations disabled. For most models the spread is
far below 1e-4 and the first term decides. For PP-OCRv4 det on a page of rendered text, onnxruntime's
two modes differ by 1.2-1.3e-4 (a steep sigmoid on fp32 logits summed in a different order): no fp32
implementation can be held to 1e-4 there, and "as close to onnxruntime as onnxruntime is to itself,
within a factor 2 for our own independent rounding" is the honest bound. The spread is measured from
onnxruntime alone, never from our output.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping

import numpy as np
import onnx

TOLERANCE = 1e-4
SPREAD_FACTOR = 2.0


NOT_FINITE = "non-finite values where onnxruntime's are finite"


class OracleUnavailable(Exception):
    """onnxruntime is not installed, or cannot run the model."""


def onnxruntime_outputs(model: str | os.PathLike | onnx.ModelProto, feeds: Mapping[str, np.ndarray],
                        optimized: bool = True) -> dict[str, np.ndarray]:
    """Runs the ONNX model (a path or a ModelProto) with onnxruntime (CPU, one thread: results do not
    depend on the machine's load) and returns every output by name."""
    try:
        import onnxruntime
    except ImportError:
        raise OracleUnavailable("onnxruntime (the oracle) is missing: pip install onnxruntime") from None
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3  # its optimizer's warnings are about its own passes, not the model
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    if not optimized:
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    source = model.SerializeToString() if isinstance(model, onnx.ModelProto) else os.fspath(model)
    session = onnxruntime.InferenceSession(source, options, providers=["CPUExecutionProvider"])
    names = [output.name for output in session.get_outputs()]
    return dict(zip(names, session.run(names, dict(feeds)), strict=True))


def max_abs_difference(ours: np.ndarray, reference: np.ndarray) -> float:
    """Largest absolute elementwise difference (shapes must already agree)."""
    return float(np.max(np.abs(ours.astype(np.float64) - reference.astype(np.float64)), initial=0.0))


@dataclasses.dataclass
class OutputComparison:
    """One model output against onnxruntime's under the rule above."""

    name: str
    error: float  # max |ours - onnxruntime|; inf for a shape mismatch or a non-finite value of ours
    spread: float  # max |onnxruntime optimized - unoptimized|
    bound: float
    problem: str = ""  # what made the error infinite

    @property
    def ok(self) -> bool:
        return self.error <= self.bound


def compare_output(name: str, actual: np.ndarray | None, expected: np.ndarray,
                   literal: np.ndarray, step: float = 0.0) -> OutputComparison:
    """Our value of output ``name`` (None: missing) against onnxruntime's optimized (``expected``) and
    unoptimized (``literal``) values. Integer and bool outputs must be equal; float ones are compared
    where onnxruntime's are finite. ``step``: the quantization step of an output a QDQ model
    dequantizes (one step is allowed on top of the rule)."""
    if expected is None:  # an empty ONNX optional
        return OutputComparison(name, 0.0 if actual is None else float("inf"), 0.0, 0.0,
                                "" if actual is None else "a value where onnxruntime's optional is empty")
    if isinstance(expected, list):  # an ONNX sequence: its tensors in turn, as one
        return _compare_sequence(name, actual, expected, literal, step)
    floating = expected.dtype.kind == "f"
    spread = max_abs_difference(literal, expected) if floating else 0.0
    magnitude = float(np.abs(expected.astype(np.float64)).max(initial=0.0))
    bound = max(TOLERANCE * max(1.0, magnitude), SPREAD_FACTOR * spread, step) if floating else 0.0
    error, problem = difference(actual, expected, "onnxruntime")
    return OutputComparison(name, error, spread, bound, problem)


def difference(actual: np.ndarray | None, expected: np.ndarray, oracle: str) -> tuple[float, str]:
    """(max |actual - expected| where ``expected`` is finite, "") or (inf, why they cannot be compared:
    ours missing, another shape, non-finite where the oracle's value is finite)."""
    if actual is None:
        return float("inf"), "missing from our outputs"
    actual = np.asarray(actual)
    if actual.shape != expected.shape:
        return float("inf"), f"shape {list(actual.shape)}, {oracle}'s {list(expected.shape)}"
    finite = np.isfinite(expected) if expected.dtype.kind == "f" else np.ones(expected.shape, bool)
    if actual.dtype.kind == "f" and not np.isfinite(actual[finite]).all():
        return float("inf"), NOT_FINITE
    return max_abs_difference(actual[finite], expected[finite]), ""


def _compare_sequence(name: str, actual: object, expected: list, literal: list,
                      step: float) -> OutputComparison:
    """A sequence output compared as the concatenation of its tensors, once their count and shapes
    agree."""
    if not isinstance(actual, list) or len(actual) != len(expected):
        count = len(actual) if isinstance(actual, list) else "no sequence"
        problem = f"{count} tensors, onnxruntime's {len(expected)}"
        return OutputComparison(name, float("inf"), 0.0, 0.0, problem)
    shapes = [np.shape(a) for a in actual]
    if shapes != [np.shape(e) for e in expected]:
        problem = f"tensor shapes {shapes} differ from onnxruntime's"
        return OutputComparison(name, float("inf"), 0.0, 0.0, problem)
    if not expected:
        return OutputComparison(name, 0.0, 0.0, 0.0)

    def joined(values: list) -> np.ndarray:
        return np.concatenate([np.asarray(v).reshape(-1) for v in values])

    return compare_output(name, joined(actual), joined(expected), joined(literal), step)
