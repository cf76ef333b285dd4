"""onnxruntime's dynamic quantization: DynamicQuantizeLinear, MatMulInteger, ConvInteger (and
QLinearMatMul, the same integer product requantized to 8 bits).

``onnxruntime.quantization.quantize_dynamic`` writes ``x -> DynamicQuantizeLinear -> (x_q, s, zp)``,
``MatMulInteger(x_q, W_q, zp, w_zp)`` / ``ConvInteger(...)`` (int32), ``Cast`` to float and a ``Mul``
by ``s * w_scale``. These lowerings compute the same values in float32 (docs/IMPORT_INT8.md,
"Dynamic quantization"):

* DynamicQuantizeLinear is composed of REDUCE_MIN / REDUCE_MAX, arithmetic, ROUND (half to even) and
  CLIP exactly as onnxruntime computes it: range widened to include 0, ``scale = range / 255`` (1
  when the range is 0, as onnxruntime does; the ONNX reference would divide by 0), ``zp =
  round(clip(-min / scale, 0, 255))``, ``y = clip(round(x / scale) + zp, 0, 255)``: every step is
  one IEEE float32 operation, so uint8 output, scale and zero point are bit-exact.
* MatMulInteger / ConvInteger subtract the zero points (exact small integers) and run the float32
  MatMul / Conv, then CAST to int32. A constant weight minus its zero point is computed here, so it
  packs like any fp32 weight; keep_weights_narrow.py stores it back as int8 in the file. Products of
  int8/uint8 values are exact in float32 and so is every partial sum below 2^24 (always when
  K * max|a - a_zp| * max|b - b_zp| < 2^24, e.g. K <= 258 for full-range operands); larger sums are
  rounded to float32, which the Cast to float that follows them in these models does anyway.
"""

from __future__ import annotations

import numpy as np

from lite_converter.ir import Graph, Node
from lite_converter.passes.lowering.convolution import lower_conv
from lite_converter.passes.lowering.dense import lower_matmul
from lite_converter.passes.lowering.emitter import NO_ACTIVATION, Emitter
from lite_converter.passes.lowering.registry import lowers
from lite_converter.passes.lowering.spatial import check_2d

_INTEGER_INPUTS = (np.dtype(np.uint8), np.dtype(np.int8))


def _check_integer_inputs(graph: Graph, node: Node) -> list[str]:
    problems = []
    for name in node.inputs:
        tensor = graph.tensors.get(name) if name else None
        if tensor is not None and tensor.dtype is not None \
                and np.dtype(tensor.dtype) not in _INTEGER_INPUTS:
            problems.append(f"input '{name}' is {np.dtype(tensor.dtype)} (uint8 / int8 only)")
    if node.op_type == "ConvInteger":
        problems += check_2d(graph, node)
    return problems


def _check_dynamic_quantize(graph: Graph, node: Node) -> list[str]:
    tensor = graph.tensors.get(node.inputs[0])
    if tensor is not None and tensor.dtype is not None and np.dtype(tensor.dtype) != np.float32:
        return [f"input '{node.inputs[0]}' is {np.dtype(tensor.dtype)} (float32 only)"]
    return []


def _binary(e: Emitter, op: str, a: str, b: str, shape: list | None = None) -> str:
    return e.op(op, [a, b], np.float32, shape, activation=dict(NO_ACTIVATION))


@lowers("DynamicQuantizeLinear", check=_check_dynamic_quantize)
def lower_dynamic_quantize_linear(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    x = node.inputs[0]
    y, y_scale, y_zero_point = (list(node.outputs) + ["", "", ""])[:3]
    all_axes = list(range(e.require_rank(x)))
    reduce = {"axes": all_axes, "keepdims": False, "noop_with_empty_axes": False}
    zero, qmax = e.const("zero", np.float32(0.0)), e.const("qmax", np.float32(255.0))
    low = _binary(e, "MINIMUM", e.op("REDUCE_MIN", [x], np.float32, [], **reduce), zero, [])
    high = _binary(e, "MAXIMUM", e.op("REDUCE_MAX", [x], np.float32, [], **reduce), zero, [])
    span = _binary(e, "SUB", high, low, [])
    empty = e.op("EQUAL", [span, zero], np.bool_, [], activation=dict(NO_ACTIVATION))
    scale_name = y_scale or e.tensor("scale", np.float32, [])
    e.emit("WHERE", [empty, e.const("one", np.float32(1.0)), _binary(e, "DIV", span, qmax, [])], [scale_name])
    shifted = e.op("NEG", [_binary(e, "DIV", low, scale_name, [])], np.float32, [])
    clipped = e.op("CLIP", [shifted], np.float32, [], alpha=0.0, beta=255.0)
    zero_point = e.op("ROUND", [clipped], np.float32, [])
    if y_zero_point:
        e.emit("CAST", [zero_point], [y_zero_point], to="UINT8")
    if y:
        steps = e.op("ROUND", [_binary(e, "DIV", x, scale_name, e.shape(x))], np.float32, e.shape(x))
        levels = _binary(e, "ADD", steps, zero_point, e.shape(x))
        clipped_levels = e.op("CLIP", [levels], np.float32, e.shape(x), alpha=0.0, beta=255.0)
        e.emit("CAST", [clipped_levels], [y], to="UINT8")
    return e.nodes


def _centered(e: Emitter, x: str, zero_point: str, zero_point_shape: list[int] | None) -> str:
    """``float32(x) - float32(zero_point)``, computed at conversion time when both are constant;
    ``zero_point_shape`` reshapes a constant per-row / per-channel zero point to broadcast."""
    value, zp = e.graph.constant(x), e.graph.constant(zero_point) if zero_point else None
    if value is not None and (not zero_point or zp is not None):
        centered = value.astype(np.float32)
        if zp is not None:
            centered = centered - (zp.astype(np.float32).reshape(zero_point_shape) if zero_point_shape else
                                   zp.astype(np.float32))
        return e.const("centered", centered)
    as_float = e.op("CAST", [x], np.float32, e.shape(x), to="FLOAT32")
    if not zero_point:
        return as_float
    zp_float = e.op("CAST", [zero_point], np.float32, e.shape(zero_point), to="FLOAT32")
    if zero_point_shape:
        zp_float = e.op("RESHAPE", [zp_float, e.const("zp_shape", np.array(zero_point_shape, np.int64))],
                        np.float32, list(zero_point_shape))
    return _binary(e, "SUB", as_float, zp_float, e.shape(x))


def _per_row_shape(e: Emitter, zero_point: str, rank: int | None) -> list[int] | None:
    """[M, 1] for MatMulInteger's per-row ``a_zero_point`` (a 1-D vector of more than one value)."""
    shape = e.shape(zero_point) if zero_point else None
    if shape is None or len(shape) != 1 or shape[0] == 1 or rank is None:
        return None
    return [int(shape[0]), 1] if isinstance(shape[0], int) else None


def _as_int32(e: Emitter, product_node: list[Node], product: str, out: str) -> list[Node]:
    e.nodes.extend(product_node)
    e.emit("CAST", [product], [out], to="INT32")
    return e.nodes


@lowers("MatMulInteger", check=_check_integer_inputs)
def lower_matmul_integer(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    a, b, a_zp, b_zp = (list(node.inputs) + ["", ""])[:4]
    out = node.outputs[0]
    a_float = _centered(e, a, a_zp, _per_row_shape(e, a_zp, e.rank(a)))
    b_float = _centered(e, b, b_zp, None)  # b_zero_point: scalar or [N], broadcasting over the last axis
    product = e.tensor("product", np.float32, e.shape(out))
    matmul = Node("MatMul", f"{node.name}/matmul", [a_float, b_float], [product])
    return _as_int32(e, lower_matmul(graph, matmul), product, out)


@lowers("ConvInteger", check=_check_integer_inputs)
def lower_conv_integer(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    x, w, x_zp, w_zp = (list(node.inputs) + ["", ""])[:4]
    out = node.outputs[0]
    w_rank = e.rank(w)
    w_zp_shape = e.shape(w_zp) if w_zp else None
    per_channel = w_zp_shape is not None and len(w_zp_shape) == 1 and w_zp_shape[0] != 1 \
        and w_rank is not None
    x_float = _centered(e, x, x_zp, None)
    w_float = _centered(e, w, w_zp, [int(w_zp_shape[0])] + [1] * (w_rank - 1)
                        if per_channel and w_zp_shape and w_rank else None)
    product = e.tensor("product", np.float32, e.shape(out))
    conv = Node("Conv", f"{node.name}/conv", [x_float, w_float], [product], dict(node.attrs))
    return _as_int32(e, lower_conv(graph, conv), product, out)


def _scale_f32(e: Emitter, name: str, shape: list[int] | None) -> str:
    """A scale input as float32 (float16 scales widened), reshaped to broadcast when ``shape``."""
    scale = name if e.dtype(name) == np.float32 else \
        e.op("CAST", [name], np.float32, e.shape(name), to="FLOAT32")
    if shape:
        scale = e.op("RESHAPE", [scale, e.const("scale_shape", np.array(shape, np.int64))], np.float32, shape)
    return scale


def _check_qlinear_matmul(graph: Graph, node: Node) -> list[str]:
    problems = []
    for index in (0, 3, 7):
        name = node.inputs[index] if index < len(node.inputs) else ""
        tensor = graph.tensors.get(name) if name else None
        if tensor is not None and tensor.dtype is not None and np.dtype(tensor.dtype) not in _INTEGER_INPUTS:
            problems.append(f"input '{name}' is {np.dtype(tensor.dtype)} (uint8 / int8 only)")
    return problems


@lowers("QLinearMatMul", check=_check_qlinear_matmul)
def lower_qlinear_matmul(graph: Graph, node: Node) -> list[Node]:
    """The integer product of MatMulInteger, scaled by ``a_scale * b_scale / y_scale`` in float32 (as
    onnxruntime's requantization), rounded half to even, plus ``y_zero_point``, saturated."""
    e = Emitter(graph, node)
    a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp = (list(node.inputs) + [""] * 8)[:8]
    out = node.outputs[0]
    a_float = _centered(e, a, a_zp, _per_row_shape(e, a_zp, e.rank(a)))
    b_float = _centered(e, b, b_zp, None)
    product = e.tensor("product", np.float32, e.shape(out))
    e.nodes.extend(lower_matmul(graph, Node("MatMul", f"{node.name}/matmul", [a_float, b_float], [product])))
    row_scales = _scale_f32(e, a_scale, _per_row_shape(e, a_scale, e.rank(a)))
    scales = _binary(e, "MUL", row_scales, _scale_f32(e, b_scale, None))
    multiplier = _binary(e, "DIV", scales, _scale_f32(e, y_scale, None))
    steps = e.op("ROUND", [_binary(e, "MUL", product, multiplier, e.shape(out))], np.float32, e.shape(out))
    out_dtype = e.dtype(out)
    if y_zp:
        steps = _binary(e, "ADD", steps, e.op("CAST", [y_zp], np.float32, e.shape(y_zp), to="FLOAT32"),
                        e.shape(out))
    info = np.iinfo(out_dtype)
    saturated = e.op("CLIP", [steps], np.float32, e.shape(out), alpha=float(info.min), beta=float(info.max))
    e.emit("CAST", [saturated], [out], to="UINT8" if out_dtype == np.uint8 else "INT8")
    return e.nodes
