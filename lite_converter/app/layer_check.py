"""Layer by layer against onnxruntime: every intermediate tensor of a converted ONNX model.

A model-level tolerance hides a fault in one layer (a dropped bias in one depthwise layer moved
MobileNetV2's logits by 4.5e-6, 22x under their 1e-4 bound); compared where it happens, the same
fault is a large fraction of that tensor's own values. So:

* onnxruntime's side: every float node output of the ONNX model becomes a graph output;
* our side: the converter's ``keep_tensors`` option (lite_converter/passes/keep_tensors.py) keeps
  the same names as extra outputs where they survive the fusions, in the ONNX model's layout (NCHW),
  so both sides compare in the model's layout. A tensor the runtime computes inside a fused pair (a
  1x1 convolution run band by band by the depthwise convolution after it) is *not* kept: a second
  reader would turn the fused path off; its reader's output, computed by the fused path, is compared;
* each tensor against its own bound: ``max(1e-4 * scale(t), 2 * spread(t))`` where ``scale(t) =
  max(|t|, |each float input of the node writing t|, 1e-3)`` (a mean or a residual sum can cancel,
  and fp32 rounding is proportional to what was summed) and ``spread(t)`` is onnxruntime's own
  optimized-vs-unoptimized difference on t.

`lite check --layers` prints it; tests/test_layer_oracles.py holds the real models to it.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping

import numpy as np
import onnx
from onnx import TensorProto, helper

from lite_converter import reader
from lite_converter.app.onnx_oracle import SPREAD_FACTOR, difference, max_abs_difference, onnxruntime_outputs
from lite_converter.convert import InputShapes, ModelSource, convert, load_model
from runtime_arm import DEFAULT_MAX_MEMORY_BYTES, Interpreter

RELATIVE_BOUND = 1e-4
MAGNITUDE_FLOOR = 1e-3


def float_node_outputs(model: onnx.ModelProto) -> list[str]:
    """Every node output of ``model`` that shape inference types as float32, in node order (graph
    outputs included, Constant nodes left out)."""
    inferred = onnx.shape_inference.infer_shapes(model)
    types = {value.name: value.type.tensor_type.elem_type
             for value in [*inferred.graph.value_info, *inferred.graph.output, *inferred.graph.input]}
    names: list[str] = []
    for node in inferred.graph.node:
        if node.op_type != "Constant":
            names.extend(name for name in node.output if name and types.get(name) == TensorProto.FLOAT)
    return names


def with_outputs(model: onnx.ModelProto, names: list[str]) -> onnx.ModelProto:
    """A copy of ``model`` whose graph outputs also list ``names`` (float32, shape left open)."""
    exposed = onnx.ModelProto()
    exposed.CopyFrom(model)
    present = {output.name for output in exposed.graph.output}
    exposed.graph.output.extend(helper.make_tensor_value_info(name, TensorProto.FLOAT, None)
                                for name in names if name not in present)
    return exposed


def onnxruntime_values(model: onnx.ModelProto, feeds: Mapping[str, np.ndarray], names: list[str],
                       optimized: bool = True) -> dict[str, np.ndarray]:
    """onnxruntime's value of every name in ``names`` (and of the model's outputs)."""
    return onnxruntime_outputs(with_outputs(model, names), dict(feeds), optimized)


def _fused_into_next(interpreter: Interpreter) -> list[int]:
    """Indices of the ops the runtime computes inside the next op (profile's computed_by)."""
    return [row["index"] for row in interpreter.profile() if row["computed_by"] not in (row["index"], -1)]


def dequantize_steps(model: onnx.ModelProto) -> dict[str, float]:
    """The output of each DequantizeLinear with a scalar scale initializer -> that scale: the
    quantization step of the value it gives (only those scales are read, not the weights)."""
    constants = {tensor.name: tensor for tensor in model.graph.initializer}
    steps = {}
    for node in model.graph.node:
        if node.op_type == "DequantizeLinear" and len(node.input) > 1 and node.input[1] in constants:
            scale = onnx.numpy_helper.to_array(constants[node.input[1]])
            if scale.size == 1:
                steps[node.output[0]] = float(scale.reshape(-1)[0])
    return steps


def quantized_views(model: onnx.ModelProto) -> dict[str, tuple[str, float]]:
    """In a QDQ model, each float tensor X that a QuantizeLinear -> DequantizeLinear pair reads (with a
    scalar scale): X -> (the DequantizeLinear's output, the scale). The int8 .lite holds X quantized,
    so what it gives for X is that pair's output, within one quantization step of onnxruntime's
    (a tie may round the other way; a ReLU folded into the quantization range clamps as it does)."""
    steps = dequantize_steps(model)
    dequantized = {node.input[0]: node.output[0]
                   for node in model.graph.node if node.op_type == "DequantizeLinear"}
    views = {}
    for node in model.graph.node:
        view = dequantized.get(node.output[0]) if node.op_type == "QuantizeLinear" else None
        if view in steps:
            views[node.input[0]] = (view, steps[view])
    return views


def _max_abs(array: np.ndarray) -> float:
    return float(np.max(np.abs(array), initial=0.0))


@dataclasses.dataclass
class TensorComparison:
    """One tensor: our error against onnxruntime, and the bound it is held to."""

    name: str
    error: float  # max |ours - onnxruntime|; inf for a shape mismatch or non-finite values of ours
    scale: float  # max(|t|, |inputs of t's node|, MAGNITUDE_FLOOR)
    spread: float  # max |onnxruntime optimized - unoptimized|
    bound: float
    node: str = ""  # the ONNX node writing it
    op_type: str = ""
    problem: str = ""  # what made the error infinite

    @property
    def relative_error(self) -> float:
        return self.error / self.scale

    @property
    def ok(self) -> bool:
        return self.error <= self.bound


@dataclasses.dataclass
class LayerReport:
    """What one model's layer-by-layer comparison covered and found."""

    compared: list[TensorComparison] = dataclasses.field(repr=False)  # in node order
    onnx_values: int  # float node outputs of the ONNX model (named alike in ``source``)
    compute_ops: int  # ops of the plain .lite model writing a float tensor, less layout TRANSPOSEs
    covered_ops: int  # of those, ops whose output is compared, or that the next (compared) op computes
    fused_pairs: int  # ops the runtime computes inside the next one (the same with and without kept tensors)
    model_outputs: dict[str, np.ndarray] = dataclasses.field(repr=False)  # onnxruntime's values
    not_finite: list[str] = dataclasses.field(default_factory=list)  # onnxruntime gave inf / NaN: skipped

    def worst(self) -> TensorComparison:
        return max(self.compared, key=lambda c: c.relative_error)

    def failures(self) -> list[TensorComparison]:
        return [c for c in self.compared if not c.ok]

    def summary(self, what: str) -> str:
        worst = self.worst()
        return (f"{what}: {len(self.compared)} tensors compared ({self.covered_ops} of {self.compute_ops} "
                f"float ops, {self.fused_pairs} fused 1x1+depthwise pairs; "
                f"{self.onnx_values} ONNX float values), "
                f"worst relative error {worst.relative_error:.2g} ({worst.name})")


def compare_layers(model: onnx.ModelProto, feeds: Mapping[str, np.ndarray],
                   source: str | os.PathLike | None = None,
                   input_shapes: InputShapes | None = None,
                   max_memory_bytes: int = DEFAULT_MAX_MEMORY_BYTES,
                   input_values: Mapping[str, np.ndarray] | None = None) -> LayerReport:
    """Converts ``model`` twice (as is, to learn which ops the runtime fuses; then keeping every other
    float node output), runs both engines on ``feeds`` and compares each kept tensor.

    ``source``: convert this file instead, the same network in another format (a Paddle inference
    folder whose ONNX export is ``model``); the tensors both name alike are compared.
    ``input_shapes``: fixed input dims for the conversion, as ``lite convert --input-shape``.
    ``max_memory_bytes``: the runtime's bound for both runs.
    ``input_values``: ONNX inputs pinned at conversion (``lite convert --input-value``), in the
    model's input dtypes: they are fed to onnxruntime only.
    """
    every_value = float_node_outputs(model)
    candidates = every_value
    converted: ModelSource = model if source is None else source
    if source is not None:
        known = load_model(source).graph.tensors
        candidates = [name for name in every_value if name in known]
    pinned = dict(input_values or {})
    plain_data = convert(converted, input_shapes=input_shapes, input_values=pinned or None)
    plain = reader.read_model(plain_data)
    tensor_names = {tensor.index: tensor.name for tensor in plain.tensors}
    with Interpreter(model_content=plain_data, threads=1, max_memory_bytes=max_memory_bytes) as interpreter:
        interpreter.run(dict(feeds))
        fused = _fused_into_next(interpreter)
    inside_pairs = {tensor_names[o] for index in fused for o in plain.operators[index].outputs}
    kept = [name for name in candidates if name not in inside_pairs]
    kept_data = convert(converted, input_shapes=input_shapes, keep_tensors=kept, input_values=pinned or None)
    with Interpreter(model_content=kept_data, threads=1, max_memory_bytes=max_memory_bytes) as interpreter:
        ours = interpreter.run(dict(feeds))
        fused_with_kept = len(_fused_into_next(interpreter))
    if fused_with_kept != len(fused):
        raise RuntimeError("keeping tensors changed which ops the runtime fuses")

    names = [name for name in candidates if name in ours]
    feeds = {**feeds, **pinned}
    reference = onnxruntime_values(model, feeds, every_value)
    views = quantized_views(model)
    literal = onnxruntime_values(model, feeds, names + [view for view, _ in views.values()], optimized=False)
    values = {**feeds, **reference}
    writer = {output: node for node in model.graph.node for output in node.output}
    compared, not_finite = [], []
    for name in names:
        target, step = views.get(name, (name, 0.0))
        actual, expected = np.asarray(ours[name]), reference[target]
        node = writer[name]
        if not np.isfinite(expected).all():
            not_finite.append(name)
            continue
        operands = [_max_abs(values[i]) for i in node.input if i in values]
        scale = max(_max_abs(expected), *operands, MAGNITUDE_FLOOR)
        spread = max_abs_difference(literal[target], expected) if target in literal else 0.0
        bound = max(RELATIVE_BOUND * scale, SPREAD_FACTOR * spread, step)
        error, problem = difference(actual, expected, "onnxruntime")
        compared.append(TensorComparison(name, error, scale, spread, bound, node.name, node.op_type, problem))

    compared_names = {c.name for c in compared}
    float_ops = [index for index, op in enumerate(plain.operators) if op.opcode != "TRANSPOSE" and any(
        plain.tensors[o].dtype == "FLOAT32" for o in op.outputs)]
    covered = sum(
        bool({tensor_names[o] for o in plain.operators[index + (index in fused)].outputs} & compared_names)
        for index in float_ops)
    model_outputs = {output.name: reference[output.name] for output in model.graph.output}
    return LayerReport(compared, len(candidates), len(float_ops), covered, len(fused), model_outputs,
                       not_finite)
