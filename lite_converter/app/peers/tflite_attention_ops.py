"""The float32 ops of a transformer block (PP-OCRv4 rec's SVTR neck) written as TFLite builtins.

Our int8 rec keeps these in float32 between DEQUANTIZE and QUANTIZE, and so does the .tflite:

* LAYER_NORM over dims [axis, rank) has no TFLite builtin; it is written as TFLite's converter
  writes a Keras LayerNormalization: MEAN, SQUARED_DIFFERENCE, MEAN, ADD epsilon, RSQRT, SUB, MUL,
  then MUL scale and ADD bias (runtime_arm/src/ops/layer_norm.cc: the biased variance, epsilon
  inside the root);
* MATMUL (numpy matmul of two operands of rank >= 2, batch dims equal) is BATCH_MATMUL;
* SOFTMAX along the last axis is SOFTMAX (beta 1); another axis is refused;
* SLICE (ONNX Slice: constant starts / ends / axes, steps 1; negative values count from the end,
  out-of-range values clamp) is SLICE with the resolved int32 begin and size.
"""

from __future__ import annotations

import numpy as np

from lite_converter.app.peers.tflite_writer import ExportUnsupported, TfliteWriter, emit_binary
from lite_converter.reader import OperatorInfo


def _constant_ints(w: TfliteWriter, index: int, what: str) -> list[int]:
    data = w.model.tensors[index].data
    if data is None:
        raise ExportUnsupported(f"{what} is not a constant")
    return [int(v) for v in np.asarray(data).reshape(-1)]


def _optional(op: OperatorInfo, position: int) -> int | None:
    return op.inputs[position] if len(op.inputs) > position and op.inputs[position] >= 0 else None


def layer_norm(w: TfliteWriter, op: OperatorInfo) -> None:
    s = w.s
    shape = w.shape_of(op.inputs[0])
    rank = len(shape)
    axis = int(op.options.get("axis", -1))
    axis = axis + rank if axis < 0 else axis
    if w.is_int8(op.inputs[0]) or not 0 <= axis < rank:
        raise ExportUnsupported(f"LAYER_NORM {op.name!r} (int8 or axis {axis} of rank {rank})")
    epsilon = float(op.options.get("epsilon", 1e-5))
    x = w.tensor(op.inputs[0])
    stat_shape = shape[:axis] + [1] * (rank - axis)
    axes = w.constant(np.arange(axis, rank, dtype=np.int32), f"{op.name}_axes")
    reducer = s.ReducerOptionsT()
    reducer.keepDims = True
    none = s.ActivationFunctionType.NONE

    def tensor(suffix: str, tensor_shape: list[int]) -> int:
        return w.activation(tensor_shape, f"{op.name}_{suffix}")

    mean, variance = tensor("mean", stat_shape), tensor("variance", stat_shape)
    squared = tensor("squared", shape)
    w.emit(s.BuiltinOperator.MEAN, [x, axes], [mean], s.BuiltinOptions.ReducerOptions, reducer)
    w.emit(s.BuiltinOperator.SQUARED_DIFFERENCE, [x, mean], [squared])
    w.emit(s.BuiltinOperator.MEAN, [squared, axes], [variance], s.BuiltinOptions.ReducerOptions, reducer)
    shifted, inverse = tensor("variance_eps", stat_shape), tensor("inv_std", stat_shape)
    eps = w.constant(np.array([epsilon], np.float32), f"{op.name}_epsilon")
    emit_binary(w, "ADD", [variance, eps], shifted, none)
    w.emit(s.BuiltinOperator.RSQRT, [shifted], [inverse])
    centered, normalized = tensor("centered", shape), tensor("normalized", shape)
    emit_binary(w, "SUB", [x, mean], centered, none)
    scale, bias = _optional(op, 1), _optional(op, 2)
    out = w.tensor(op.outputs[0])
    last = scale is None and bias is None
    emit_binary(w, "MUL", [centered, inverse], out if last else normalized, none)
    if scale is not None:
        scaled = tensor("scaled", shape) if bias is not None else out
        emit_binary(w, "MUL", [normalized, w.tensor(scale)], scaled, none)
        normalized = scaled
    if bias is not None:
        emit_binary(w, "ADD", [normalized, w.tensor(bias)], out, none)


def matmul(w: TfliteWriter, op: OperatorInfo) -> None:
    s = w.s
    a, b = w.shape_of(op.inputs[0]), w.shape_of(op.inputs[1])
    activation = (op.options.get("activation") or {}).get("kind", "NONE")
    if w.is_int8(op.inputs[0]) or len(a) < 2 or len(b) < 2 or a[:-2] != b[:-2] or activation != "NONE":
        raise ExportUnsupported(f"MATMUL {op.name!r} of shapes {a} x {b} (int8, 1-D, broadcast batch or "
                                f"fused {activation})")
    options = s.BatchMatMulOptionsT()
    options.adjX, options.adjY = False, False
    w.emit(s.BuiltinOperator.BATCH_MATMUL, [w.tensor(op.inputs[0]), w.tensor(op.inputs[1])],
           [w.tensor(op.outputs[0])], s.BuiltinOptions.BatchMatMulOptions, options)


def softmax(w: TfliteWriter, op: OperatorInfo) -> None:
    s = w.s
    rank = len(w.shape_of(op.inputs[0]))
    axis = int(op.options.get("axis", -1))
    if w.is_int8(op.inputs[0]) or axis not in (-1, rank - 1):
        raise ExportUnsupported(f"SOFTMAX {op.name!r} (int8, or axis {axis} not the last of rank {rank})")
    options = s.SoftmaxOptionsT()
    options.beta = 1.0
    w.emit(s.BuiltinOperator.SOFTMAX, [w.tensor(op.inputs[0])], [w.tensor(op.outputs[0])],
           s.BuiltinOptions.SoftmaxOptions, options)


def slice_(w: TfliteWriter, op: OperatorInfo) -> None:
    s = w.s
    shape = w.shape_of(op.inputs[0])
    starts = _constant_ints(w, op.inputs[1], f"SLICE {op.name!r} starts")
    ends = _constant_ints(w, op.inputs[2], f"SLICE {op.name!r} ends")
    axes_index, steps_index = _optional(op, 3), _optional(op, 4)
    axes = _constant_ints(w, axes_index, "axes") if axes_index is not None else list(range(len(starts)))
    steps = _constant_ints(w, steps_index, "steps") if steps_index is not None else [1] * len(starts)
    if any(step != 1 for step in steps):
        raise ExportUnsupported(f"SLICE {op.name!r} with steps {steps}")
    begin, size = [0] * len(shape), list(shape)
    for start, end, raw_axis in zip(starts, ends, axes, strict=True):
        axis = raw_axis + len(shape) if raw_axis < 0 else raw_axis
        dim = shape[axis]
        first = min(max(start + dim if start < 0 else start, 0), dim)
        last = min(max(end + dim if end < 0 else end, 0), dim)
        begin[axis], size[axis] = first, max(last - first, 0)
    begin_tensor = w.constant(np.array(begin, np.int32), f"{op.name}_begin")
    size_tensor = w.constant(np.array(size, np.int32), f"{op.name}_size")
    w.emit(s.BuiltinOperator.SLICE, [w.tensor(op.inputs[0]), begin_tensor, size_tensor],
           [w.tensor(op.outputs[0])], s.BuiltinOptions.SliceOptions, s.SliceOptionsT())
