"""Narrow source weights stay narrow in the .lite file (docs/IMPORT_INT8.md, "Weights kept small").

The frontends widen every fp16 / int8 / uint8 weight to float32 so that the passes (folding,
lowering, the layout transposes) see ordinary constants. Left so, a float16 .tflite doubles and an
int8 weight-only or dynamic-quantized model quadruples in size. This last pass, run just before
serialization, stores a float32 constant of at least ``MIN_ELEMENTS`` values in the narrowest form
that gives **exactly** its values back, followed by a DEQUANTIZE that keeps its name:

1. int8 with the tensor's own quantization tag (the source's scales and zero points), when
   ``scale * (q - zero_point)`` rebuilds every value bit for bit;
2. int8 with scale 1 when every value is an integer and the tensor (else each output channel, axis
   0) spans at most 255 (MatMulInteger / ConvInteger weights minus their zero point);
3. FLOAT16 when every value is a finite half-precision number (fp16 weights, transposed or not).

Nothing else is touched: a weight that a fusion changed (a folded BatchNorm) is no longer exact in
any narrow form and stays float32. The runtime evaluates a DEQUANTIZE of a constant once at prepare,
whatever its size, so the reading op still sees a constant fp32 weight and packs it as before.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from lite_converter.ir import Graph, Node, QuantParams

MIN_ELEMENTS = 256  # below this the extra node and parameters cost about what they save
MIN_CHANNEL_ELEMENTS = 16  # per-channel int8 only for channels at least this long
INT8_MIN, INT8_MAX = -128, 127


def _rebuilt(q: np.ndarray, params: QuantParams) -> np.ndarray:
    """DEQUANTIZE's values, ``float32(scale) * float32(q - zero_point)`` (runtime ops/quantize.cc)."""
    scale = np.asarray(params.scale, np.float32)
    zero_point = np.asarray(params.zero_point, np.int64)
    if params.axis is not None:
        shape = [1] * q.ndim
        shape[params.axis] = -1
        scale, zero_point = scale.reshape(shape), zero_point.reshape(shape)
    return scale * (q.astype(np.int64) - zero_point).astype(np.float32)


def _from_tag(value: np.ndarray, params: QuantParams | None) -> tuple[np.ndarray, QuantParams] | None:
    """int8 values rebuilding ``value`` exactly with the source's own parameters, or None."""
    if params is None or params.scale.size == 0 or not np.all(np.isfinite(params.scale)) \
            or not np.all(params.scale > 0):
        return None
    axis = params.axis if params.scale.size > 1 else None
    if axis is not None and not (0 <= axis < value.ndim and value.shape[axis] == params.scale.size):
        return None
    scale = np.asarray(params.scale, np.float32).reshape(-1)
    zero_point = np.asarray(params.zero_point, np.int64).reshape(-1)
    if zero_point.size not in (1, scale.size):
        return None
    params = QuantParams(scale, np.broadcast_to(zero_point, scale.shape).copy(), axis)
    if np.any(params.zero_point < INT8_MIN) or np.any(params.zero_point > INT8_MAX):
        return None
    shape = [1] * value.ndim
    if axis is not None:
        shape[axis] = -1
    steps = np.rint(value / params.scale.reshape(shape)) + params.zero_point.reshape(shape)
    if not np.all(np.isfinite(steps)) or steps.min() < INT8_MIN or steps.max() > INT8_MAX:
        return None
    q = steps.astype(np.int8)
    return (q, params) if np.array_equal(_rebuilt(q, params), value) else None


def _integers(value: np.ndarray) -> tuple[np.ndarray, QuantParams] | None:
    """int8 with scale 1 and one zero point (else one per output channel, axis 0) for integer values,
    or None."""
    if value.ndim == 0 or not np.array_equal(np.rint(value), value):
        return None
    per_tensor = value.max() - value.min() <= INT8_MAX - INT8_MIN
    if not per_tensor and (value.ndim < 2 or value.size // value.shape[0] < MIN_CHANNEL_ELEMENTS):
        return None  # the per-channel parameters (12 bytes) would cost more than they save
    rows = value.reshape(1 if per_tensor else value.shape[0], -1).astype(np.int64)
    low, high = rows.min(axis=1), rows.max(axis=1)
    if np.any(high - low > INT8_MAX - INT8_MIN):
        return None
    # q = v + z with z = INT8_MIN - low puts each row in [-128, 127]; DEQUANTIZE gives q - zp, zp = z
    zero_point = INT8_MIN - low
    if np.any(zero_point < INT8_MIN) or np.any(zero_point > INT8_MAX):
        zero_point = np.clip(zero_point, INT8_MIN, INT8_MAX)
        if np.any(low + zero_point < INT8_MIN) or np.any(high + zero_point > INT8_MAX):
            return None
    per_channel = rows.shape[0] > 1
    shape = [-1] + [1] * (value.ndim - 1) if per_channel else [1] * value.ndim
    q = (value.astype(np.int64) + zero_point.reshape(shape)).astype(np.int8)
    params = QuantParams(np.ones(rows.shape[0], np.float32), zero_point, 0 if per_channel else None)
    return (q, params) if np.array_equal(_rebuilt(q, params), value) else None


def _half(value: np.ndarray) -> np.ndarray | None:
    """``value`` as float16 when that is exact (every value a finite half), else None."""
    if not np.all(np.isfinite(value)) or np.abs(value).max(initial=0.0) > np.finfo(np.float16).max:
        return None
    half = value.astype(np.float16)
    return half if np.array_equal(half.astype(np.float32), value) else None


def keep_weights_narrow(source: Graph) -> Graph:
    """A copy of ``source`` with every eligible float32 constant rewritten as int8 / FLOAT16 +
    DEQUANTIZE (see the module docstring); the DEQUANTIZE output keeps the constant's name.
    ``source`` itself is left as it was (callers keep evaluating it)."""
    graph = dataclasses.replace(source, tensors=dict(source.tensors), nodes=list(source.nodes))
    read = {name for node in graph.nodes for name in node.inputs if name}
    dequantize_nodes: list[Node] = []
    for name, tensor in list(graph.tensors.items()):
        value = tensor.data
        if value is None or value.dtype != np.float32 or value.size < MIN_ELEMENTS \
                or name not in read or name in graph.outputs:
            continue
        as_int8 = _from_tag(value, tensor.quant) or _integers(value)
        if as_int8 is not None:
            narrow, params = as_int8
            narrow_name = graph.add_constant(name + "_q", narrow)
            graph.tensors[narrow_name].quant = params
        else:
            half = _half(value)
            if half is None:
                continue
            narrow_name = graph.add_constant(name + "_f16", half)
        graph.tensors[name] = dataclasses.replace(tensor, data=None, dtype=np.dtype(np.float32),
                                                  shape=list(value.shape), quant=None)
        dequantize_nodes.append(Node("DEQUANTIZE", graph.unique_name(name + "_dq"), [narrow_name], [name]))
    graph.nodes = dequantize_nodes + graph.nodes
    return graph
