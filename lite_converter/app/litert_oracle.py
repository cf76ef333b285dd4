"""LiteRT as the oracle of a converted .tflite model: outputs and every op's output tensor.

LiteRT runs the very same file twice: with its builtin kernels only (the reference: no delegate)
and with its default XNNPACK delegate; how far those two are apart is LiteRT's own ``spread``, the
counterpart of onnxruntime's optimized-vs-unoptimized one in onnx_oracle.py. Bounds:

* float tensors: ``max(1e-4 * scale, 2 * spread)``, scale = ``max(1, max|ref|)`` for an output and
  ``max(|t|, |each float input of the op|, 1e-3)`` for an intermediate tensor (as layer_check.py);
* quantized (int8 / uint8 / int16 with a scale) tensors, in quantization steps: ``max(1, 2 * spread)``;
  one step is the "1 LSB" of our int8 standard (a requantization may round the other way at a tie),
  and LiteRT's two int8 softmax implementations are themselves up to 6 steps apart (a lookup table
  in the builtin kernel, exp in XNNPACK's: tests/tflite_int8_net.py on random inputs);
* other integer and bool tensors: equal;
* an intermediate tensor over its bound is where a difference *starts* only when it is also over 10x
  its op's inputs' relative error (mark_where_it_starts says why).

`lite check model.tflite` prints it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from lite_converter.app.layer_check import MAGNITUDE_FLOOR
from lite_converter.app.litert_custom_ops import has_custom_transpose_conv, with_builtin_transpose_conv
from lite_converter.app.onnx_oracle import (
    SPREAD_FACTOR,
    TOLERANCE,
    OracleUnavailable,
    difference,
    max_abs_difference,
)

JUMP = 10.0


@dataclasses.dataclass
class TfliteTensor:
    """One tensor of LiteRT's run: its value and where it comes from."""

    name: str
    value: np.ndarray
    op: str  # the builtin writing it ("" for a graph input)
    op_index: int
    quantized: bool  # has a quantization scale: compared in steps
    inputs: list[str]  # the op's input tensor names


def _interpreter(data: bytes, builtin: bool, preserve: bool) -> Any:  # noqa: ANN401 - LiteRT's object
    try:
        from ai_edge_litert import interpreter as litert
    except ImportError:
        raise OracleUnavailable("LiteRT (the oracle) is missing: pip install 'lite-edge[tflite]'") from None
    resolver = (litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES if builtin
                else litert.OpResolverType.AUTO)
    return litert.Interpreter(model_content=data, experimental_op_resolver_type=resolver,
                              experimental_preserve_all_tensors=preserve, num_threads=1)


@dataclasses.dataclass
class LiteRtRun:
    """What one LiteRT run gave."""

    outputs: dict[str, np.ndarray]
    quantized: set[str]  # output names with a quantization scale
    tensors: list[TfliteTensor]  # with every_tensor: each op's outputs, in op order


def litert_run(data: bytes, feeds: Mapping[str, np.ndarray], builtin: bool = True,
               every_tensor: bool = False) -> LiteRtRun:
    """LiteRT on ``feeds`` (resizing inputs to their shapes): builtin kernels only, or with its default
    XNNPACK delegate; with ``every_tensor``, each op's output tensors too."""
    if has_custom_transpose_conv(data):  # MediaPipe's op, which LiteRT's package lacks: as builtins
        data = with_builtin_transpose_conv(data)
    interpreter = _interpreter(data, builtin, every_tensor)
    for detail in interpreter.get_input_details():
        value = np.asarray(feeds[detail["name"]])
        if list(value.shape) != list(detail["shape"]):
            interpreter.resize_tensor_input(detail["index"], list(value.shape), strict=False)
    interpreter.allocate_tensors()
    for detail in interpreter.get_input_details():
        interpreter.set_tensor(detail["index"], np.ascontiguousarray(feeds[detail["name"]], detail["dtype"]))
    interpreter.invoke()
    output_details = interpreter.get_output_details()
    outputs = {d["name"]: interpreter.get_tensor(d["index"]).copy() for d in output_details}
    quantized_outputs = {d["name"] for d in output_details if len(d["quantization_parameters"]["scales"]) > 0}
    tensors: list[TfliteTensor] = []
    if every_tensor:
        details = {d["index"]: d for d in interpreter.get_tensor_details()}
        for op in interpreter._get_ops_details():  # noqa: SLF001 - LiteRT's one way to list the ops
            inputs = [details[i]["name"] for i in op["inputs"] if i >= 0]
            for index in op["outputs"]:
                detail = details[index]
                quantized = len(detail["quantization_parameters"]["scales"]) > 0
                if np.dtype(detail["dtype"]).kind not in "biuf":
                    continue  # a resource (VAR_HANDLE), variant or string tensor: get_tensor crashes on some
                value = interpreter.get_tensor(index).copy()
                tensors.append(TfliteTensor(detail["name"], value, op["op_name"], op["index"], quantized,
                                            inputs))
    return LiteRtRun(outputs, quantized_outputs, tensors)


@dataclasses.dataclass
class LiteRtComparison:
    """One tensor of ours against LiteRT's."""

    name: str
    error: float  # float: max |diff|; quantized: max |diff| in quantization steps; inf on a problem
    bound: float
    spread: float  # max |LiteRT builtin - LiteRT XNNPACK|
    op: str = ""
    scale: float = 1.0
    problem: str = ""
    quantized: bool = False
    inherited: float = 0.0  # the largest relative error among its op's compared inputs
    starts_here: bool = False  # over its bound and over JUMP times ``inherited``: see mark_where_it_starts

    @property
    def ok(self) -> bool:
        return self.error <= self.bound

    @property
    def relative_error(self) -> float:
        return self.error / self.scale


def compare_tensor(name: str, actual: np.ndarray | None, expected: np.ndarray, fast: np.ndarray | None,
                   quantized: bool, scale: float, op: str = "") -> LiteRtComparison:
    """Ours against LiteRT's builtin value ``expected`` (``fast``: XNNPACK's, for the spread)."""
    floating = expected.dtype.kind == "f"
    spread = max_abs_difference(fast, expected) if fast is not None and fast.shape == expected.shape else 0.0
    if floating:
        bound = max(TOLERANCE * scale, SPREAD_FACTOR * spread)
    else:
        bound = max(1.0, SPREAD_FACTOR * spread) if quantized else 0.0
    error, problem = difference(actual, expected, "LiteRT")
    return LiteRtComparison(name, error, bound, spread, op, scale if floating else 1.0, problem, quantized)


def output_scale(expected: np.ndarray) -> float:
    return max(1.0, float(np.abs(expected.astype(np.float64)).max(initial=0.0)))


def layer_scale(tensor: TfliteTensor, values: Mapping[str, np.ndarray]) -> float:
    """max(|t|, |each float input of its op|, 1e-3): rounding is relative to what was summed."""
    operands = [float(np.abs(values[i]).max(initial=0.0)) for i in tensor.inputs
                if i in values and values[i].dtype.kind == "f"]
    return max(float(np.abs(tensor.value).max(initial=0.0)) if tensor.value.dtype.kind == "f" else 0.0,
               *operands, MAGNITUDE_FLOOR)


def mark_where_it_starts(layers: list[LiteRtComparison], op_inputs: Mapping[str, list[str]]) -> None:
    """Marks the tensors where a difference starts: over their bound *and* over JUMP times the largest
    relative error of their op's inputs. Layers have no per-tensor spread (LiteRT keeps no intermediate
    tensor under its XNNPACK delegate), so the rounding of earlier ops, carried and amplified through a
    deep network, can take a tensor over 1e-4 of its scale by itself: MediaPipe's pose_landmark_full on
    random inputs has 10 such tensors, each at most 3.4x its inputs' relative error. A faulty op makes
    a new error, orders of magnitude over what it was given."""
    relative = {c.name: c.relative_error for c in layers}
    for c in layers:
        c.inherited = max((relative[i] for i in op_inputs.get(c.name, []) if i in relative), default=0.0)
        c.starts_here = not c.ok and c.relative_error > JUMP * c.inherited
