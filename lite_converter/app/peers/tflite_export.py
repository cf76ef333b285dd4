"""Writes a .tflite from a converted .lite graph, so that LiteRT can be benchmarked on the same model.

No ONNX -> TFLite converter installs here (onnx2tf and ai-edge-torch need TensorFlow), but our .lite
graph is already what TFLite wants: channels-last activations, conv weights [Co, KH, KW, Ci] (TFLite's
OHWI), BatchNorm folded, activations fused. This module maps that graph onto the TFLite schema (the
object API of ``ai_edge_litert.schema_py_generated``, which the LiteRT wheel ships) for the ops plain
CNNs use; any other op raises :class:`ExportUnsupported` naming it. An int8 .lite is written as a
full-integer .tflite in TFLite's int8 spec (per-channel symmetric weights, depthwise filters
[1, KH, KW, C] quantized on axis 3, int32 bias, QUANTIZE / DEQUANTIZE at the fp32 borders) with our
scales and zero points, so LiteRT's own int8 kernels run the same quantized model. Our int8 tables
(REQUANTIZE, HARD_SIGMOID, SIGMOID...) have no TFLite op: :mod:`.tflite_int8_maps` writes the int8
builtins that compute the same maps; the float32 ops of a transformer block (LAYER_NORM, MATMUL,
SOFTMAX, SLICE) are in :mod:`.tflite_attention_ops`; the tensor bookkeeping in :mod:`.tflite_writer`.
LiteRT then runs the very graph our runtime runs (the same folding and fusion; where one table of
ours stands for several ops, the ops TFLite's converter would write), which makes the comparison one
of kernels and scheduling, not of graph optimizations. Shapes must be static
(convert with fixed input shapes).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lite_converter.app.peers import tflite_attention_ops, tflite_int8_maps
from lite_converter.app.peers.tflite_writer import TYPES, ExportUnsupported, TfliteWriter, emit_binary, scalar
from lite_converter.reader import LiteModel, OperatorInfo

__all__ = ["ExportUnsupported", "export_tflite"]


def _fused(op: OperatorInfo, s: Any) -> int:  # noqa: ANN401
    activation = op.options.get("activation") or {"kind": "NONE"}
    kind = activation.get("kind", "NONE")
    if kind == "NONE":
        return s.ActivationFunctionType.NONE
    if kind == "RELU":
        return s.ActivationFunctionType.RELU
    is_relu6_clip = kind == "CLIP" and (activation.get("alpha"), activation.get("beta")) == (0.0, 6.0)
    if kind == "RELU6" or is_relu6_clip:
        return s.ActivationFunctionType.RELU6
    raise ExportUnsupported(f"{op.opcode} {op.name!r} with fused activation {kind}")


def _activation_tail(w: TfliteWriter, op: OperatorInfo) -> tuple[int, int, Any]:
    """(fused activation code, tensor the op writes, finish()): activations TFLite cannot fuse
    (sigmoid, hard-swish, hard-sigmoid) become their own ops after it, reading an intermediate."""
    s = w.s
    activation = op.options.get("activation") or {"kind": "NONE"}
    out = w.tensor(op.outputs[0])
    if activation.get("kind") not in ("SIGMOID", "HARD_SWISH", "HARD_SIGMOID"):
        return _fused(op, s), out, lambda: None
    if w.is_int8(op.outputs[0]):  # our int8 pass splits these off (the pre-activation needs a range)
        raise ExportUnsupported(f"int8 {op.opcode} {op.name!r} with fused {activation['kind']}")
    shape = w.shape_of(op.outputs[0])
    raw = w.activation(shape, f"{op.name}_linear")

    def finish() -> None:
        kind = activation["kind"]
        if kind == "SIGMOID":
            w.emit(s.BuiltinOperator.LOGISTIC, [raw], [out])
        elif kind == "HARD_SWISH":
            w.emit(s.BuiltinOperator.HARD_SWISH, [raw], [out])
        else:
            alpha, beta = float(activation["alpha"]), float(activation["beta"])
            _float_hard_sigmoid(w, op.name, raw, out, shape, alpha, beta)

    return s.ActivationFunctionType.NONE, raw, finish


def _float_hard_sigmoid(w: TfliteWriter, name: str, x: int, out: int, shape: list[int], alpha: float,
                        beta: float) -> None:
    """max(0, min(1, a*x + b)) = relu6(6a*x + 6b) / 6 in float32."""
    s = w.s
    scaled = w.activation(shape, f"{name}_hs_scaled")
    shifted = w.activation(shape, f"{name}_hs_relu6")
    none, relu6 = s.ActivationFunctionType.NONE, s.ActivationFunctionType.RELU6
    emit_binary(w, "MUL", [x, scalar(w, 6 * alpha, f"{name}_6a")], scaled, none)
    emit_binary(w, "ADD", [scaled, scalar(w, 6 * beta, f"{name}_6b")], shifted, relu6)
    emit_binary(w, "MUL", [shifted, scalar(w, 1 / 6, f"{name}_sixth")], out, none)


def _same_pads(size: int, out: int, kernel: int, stride: int, dilation: int) -> tuple[int, int]:
    total = max((out - 1) * stride + (kernel - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2


def _padding(w: TfliteWriter, op: OperatorInfo, x: int, kernel: tuple[int, int],
             pad_value: float) -> tuple[int, int]:
    """(TFLite padding, input tensor): SAME or VALID when they match the op's explicit pads, else an
    explicit PAD (PADV2 with ``pad_value``) in front and VALID."""
    o = op.options
    shape, out = w.shape_of(op.inputs[0]), w.shape_of(op.outputs[0])
    pads = (o.get("pad_top", 0), o.get("pad_bottom", 0), o.get("pad_left", 0), o.get("pad_right", 0))
    strides = (o.get("stride_h", 1), o.get("stride_w", 1))
    dilations = (o.get("dilation_h", 1), o.get("dilation_w", 1))
    if o.get("padding", "EXPLICIT") not in ("EXPLICIT", "VALID", "SAME"):
        raise ExportUnsupported(f"{op.opcode} {op.name!r} padding {o.get('padding')}")
    if o.get("padding") == "VALID" or not any(pads):
        return w.s.Padding.VALID, x
    same = _same_pads(shape[1], out[1], kernel[0], strides[0], dilations[0]) + \
        _same_pads(shape[2], out[2], kernel[1], strides[1], dilations[1])
    if o.get("padding") == "SAME" or (pads == same and all(-(-shape[i + 1] // strides[i]) == out[i + 1]
                                                            for i in range(2))):
        return w.s.Padding.SAME, x
    padded_shape = [shape[0], shape[1] + pads[0] + pads[1], shape[2] + pads[2] + pads[3], shape[3]]
    padded = w.activation(padded_shape, f"{op.name}_padded", like=op.inputs[0])
    amounts = w.constant(np.array([[0, 0], [pads[0], pads[1]], [pads[2], pads[3]], [0, 0]], np.int32),
                         f"{op.name}_pads")
    int8 = w.is_int8(op.inputs[0])
    if pad_value == 0.0:  # int8 PAD pads with the zero point, the real 0
        w.emit(w.s.BuiltinOperator.PAD, [x, amounts], [padded], w.s.BuiltinOptions.PadOptions,
               w.s.PadOptionsT())
    else:
        value = w.constant(np.array(-128, np.int8), f"{op.name}_pad_value",
                           w.quantization(w.model.tensors[op.inputs[0]].quantization)) if int8 \
            else w.constant(np.array(pad_value, np.float32), f"{op.name}_pad_value")
        w.emit(w.s.BuiltinOperator.PADV2, [x, amounts, value], [padded], w.s.BuiltinOptions.PadV2Options,
               w.s.PadV2OptionsT())
    return w.s.Padding.VALID, padded


def _conv(w: TfliteWriter, op: OperatorInfo) -> None:
    s, o = w.s, op.options
    if len(op.inputs) > 3 and op.inputs[3] >= 0:
        raise ExportUnsupported(f"CONV_2D {op.name!r} with a fused PReLU")
    weight_info = w.model.tensors[op.inputs[1]]
    weights = np.asarray(weight_info.data, TYPES.get(weight_info.dtype, (np.float32, ""))[0])
    if weights is None or weights.ndim != 4:
        raise ExportUnsupported(f"CONV_2D {op.name!r} with non-constant weights")
    co, kh, kw, ci_per_group = weights.shape
    ci = w.shape_of(op.inputs[0])[3]
    group = int(o.get("group", 1))
    has_bias = len(op.inputs) > 2 and op.inputs[2] >= 0
    bias = _bias(w, op) if has_bias else _zero_bias(w, op, co)
    padding, x = _padding(w, op, w.tensor(op.inputs[0]), (kh, kw), 0.0)
    if group == 1:
        options = s.Conv2DOptionsT()
        builtin, options_type = s.BuiltinOperator.CONV_2D, s.BuiltinOptions.Conv2DOptions
        filters = w.tensor(op.inputs[1])
    elif group == ci and ci_per_group == 1:
        options = s.DepthwiseConv2DOptionsT()
        options.depthMultiplier = co // ci
        builtin, options_type = s.BuiltinOperator.DEPTHWISE_CONV_2D, s.BuiltinOptions.DepthwiseConv2DOptions
        # TFLite depthwise filters are [1, KH, KW, C]: the per-channel axis is 3 (int8 spec)
        filters = w.constant(np.ascontiguousarray(weights.transpose(3, 1, 2, 0)), f"{op.name}_depthwise",
                             w.quantization(weight_info.quantization, axis=3))
    else:
        raise ExportUnsupported(f"CONV_2D {op.name!r} with {group} groups (neither plain nor depthwise)")
    options.padding = padding
    options.strideH, options.strideW = o.get("stride_h", 1), o.get("stride_w", 1)
    options.dilationHFactor, options.dilationWFactor = o.get("dilation_h", 1), o.get("dilation_w", 1)
    options.fusedActivationFunction, target, finish = _activation_tail(w, op)
    w.emit(builtin, [x, filters, bias], [target], options_type, options)
    finish()


def _bias_quantization(w: TfliteWriter, op: OperatorInfo, channels: int) -> Any:  # noqa: ANN401
    """An int8 op's int32 bias scales, s_in * s_w[c] (our int8 pass stores none: no kernel reads them)."""
    s_in = float(w.model.tensors[op.inputs[0]].quantization["scale"][0])
    s_w = np.asarray(w.model.tensors[op.inputs[1]].quantization["scale"], np.float64)
    scales = np.broadcast_to(np.float32(s_in * s_w), (channels,))
    return w.quantization({"scale": list(scales), "zero_point": [0] * channels, "axis": 0})


def _bias(w: TfliteWriter, op: OperatorInfo) -> int:
    """The op's bias tensor; an int8 op's bias gets the scales TFLite requires when the file has none."""
    info = w.model.tensors[op.inputs[2]]
    if not w.is_int8(op.inputs[0]) or info.quantization or info.data is None:
        return w.tensor(op.inputs[2])
    data = np.asarray(info.data, np.int32).reshape(-1)
    return w.constant(data, info.name, _bias_quantization(w, op, data.size))


def _zero_bias(w: TfliteWriter, op: OperatorInfo, channels: int) -> int:
    """TFLite wants a bias: float zeros, or for int8 int32 zeros with scale s_in * s_w[c]."""
    if not w.is_int8(op.inputs[0]):
        return w.constant(np.zeros(channels, np.float32), f"{op.name}_bias")
    return w.constant(np.zeros(channels, np.int32), f"{op.name}_bias", _bias_quantization(w, op, channels))


def _quantize(w: TfliteWriter, op: OperatorInfo) -> None:
    builtin = w.s.BuiltinOperator.QUANTIZE if op.opcode == "QUANTIZE" else w.s.BuiltinOperator.DEQUANTIZE
    w.emit(builtin, [w.tensor(op.inputs[0])], [w.tensor(op.outputs[0])])


def _pool(w: TfliteWriter, op: OperatorInfo) -> None:
    s, o = w.s, op.options
    is_max = op.opcode == "MAX_POOL_2D"
    if o.get("ceil_mode") or o.get("dilation_h", 1) != 1 or o.get("dilation_w", 1) != 1:
        raise ExportUnsupported(f"{op.opcode} {op.name!r} with ceil_mode or dilation")
    kernel = (o["kernel_h"], o["kernel_w"])
    padding, x = _padding(w, op, w.tensor(op.inputs[0]), kernel, -3.4e38 if is_max else 0.0)
    if not is_max and x != w.tensor(op.inputs[0]) and not o.get("count_include_pad"):
        raise ExportUnsupported(f"AVERAGE_POOL_2D {op.name!r} excluding asymmetric explicit pads")
    options = s.Pool2DOptionsT()
    options.padding = padding
    options.strideH, options.strideW = o.get("stride_h", 1), o.get("stride_w", 1)
    options.filterHeight, options.filterWidth = kernel
    options.fusedActivationFunction = _fused(op, s)
    builtin = s.BuiltinOperator.MAX_POOL_2D if is_max else s.BuiltinOperator.AVERAGE_POOL_2D
    w.emit(builtin, [x], [w.tensor(op.outputs[0])], s.BuiltinOptions.Pool2DOptions, options)




def _binary(w: TfliteWriter, op: OperatorInfo) -> None:
    fused, target, finish = _activation_tail(w, op)
    emit_binary(w, op.opcode, [w.tensor(i) for i in op.inputs], target, fused)
    finish()


def _concat(w: TfliteWriter, op: OperatorInfo) -> None:
    s = w.s
    options = s.ConcatenationOptionsT()
    options.axis = int(op.options.get("axis", 0))
    options.fusedActivationFunction = s.ActivationFunctionType.NONE
    w.emit(s.BuiltinOperator.CONCATENATION, [w.tensor(i) for i in op.inputs], [w.tensor(op.outputs[0])],
           s.BuiltinOptions.ConcatenationOptions, options)


def _resize(w: TfliteWriter, op: OperatorInfo) -> None:
    """ONNX Resize on H, W: nearest (asymmetric, floor) and linear (half-pixel, asymmetric, align-corners)
    are TFLite's RESIZE_NEAREST_NEIGHBOR / RESIZE_BILINEAR with the matching flags."""
    s, o = w.s, op.options
    mode, coordinates = o.get("mode"), o.get("coordinate_mode")
    size = w.constant(np.array(w.shape_of(op.outputs[0])[1:3], np.int32), f"{op.name}_size")
    if mode == "NEAREST" and coordinates == "ASYMMETRIC" and o.get("nearest_mode") == "FLOOR":
        options = s.ResizeNearestNeighborOptionsT()
        options.alignCorners, options.halfPixelCenters = False, False
        builtin = s.BuiltinOperator.RESIZE_NEAREST_NEIGHBOR
        options_type = s.BuiltinOptions.ResizeNearestNeighborOptions
    elif mode == "LINEAR" and coordinates in ("HALF_PIXEL", "ASYMMETRIC", "ALIGN_CORNERS"):
        options = s.ResizeBilinearOptionsT()
        options.alignCorners = coordinates == "ALIGN_CORNERS"
        options.halfPixelCenters = coordinates == "HALF_PIXEL"
        builtin, options_type = s.BuiltinOperator.RESIZE_BILINEAR, s.BuiltinOptions.ResizeBilinearOptions
    else:
        raise ExportUnsupported(f"RESIZE {op.name!r} mode {mode} / {coordinates}")
    out = w.tensor(op.outputs[0])
    requantized = w.is_int8(op.inputs[0]) and \
        w.model.tensors[op.inputs[0]].quantization != w.model.tensors[op.outputs[0]].quantization
    target = w.activation(w.shape_of(op.outputs[0]), f"{op.name}_resized", like=op.inputs[0]) \
        if requantized else out
    w.emit(builtin, [w.tensor(op.inputs[0]), size], [target], options_type, options)
    if requantized:  # TFLite's int8 resize keeps the input's quantization
        w.emit(s.BuiltinOperator.QUANTIZE, [target], [out])


def _conv_transpose(w: TfliteWriter, op: OperatorInfo) -> None:
    s, o = w.s, op.options
    pads = [o.get(k, 0) for k in ("pad_top", "pad_left", "pad_bottom", "pad_right", "output_padding_h",
                                  "output_padding_w")]
    if any(pads) or o.get("group", 1) != 1 or o.get("dilation_h", 1) != 1 or o.get("dilation_w", 1) != 1:
        raise ExportUnsupported(f"CONV_TRANSPOSE_2D {op.name!r} with pads, groups or dilation")
    weight_info = w.model.tensors[op.inputs[1]]
    int8 = w.is_int8(op.inputs[0])
    weights = np.asarray(weight_info.data, np.int8 if int8 else np.float32)  # [Ci, KH, KW, Co]
    # TFLite's filter is OHWI; int8: per output channel, i.e. on axis 0 (ours: axis 3)
    filters = w.constant(np.ascontiguousarray(weights.transpose(3, 1, 2, 0)), f"{op.name}_ohwi",
                         w.quantization(weight_info.quantization, axis=0) if int8 else None)
    output_shape = w.constant(np.array(w.shape_of(op.outputs[0]), np.int32), f"{op.name}_output_shape")
    inputs = [output_shape, filters, w.tensor(op.inputs[0])]
    if len(op.inputs) > 2 and op.inputs[2] >= 0:
        inputs.append(_bias(w, op))
    options = s.TransposeConvOptionsT()
    options.padding = s.Padding.VALID
    options.strideH, options.strideW = o.get("stride_h", 1), o.get("stride_w", 1)
    fused, target, finish = _activation_tail(w, op)
    if fused != s.ActivationFunctionType.NONE:  # TRANSPOSE_CONV fuses activations only in newer versions
        raw = w.activation(w.shape_of(op.outputs[0]), f"{op.name}_linear", like=op.outputs[0])
        w.emit(s.BuiltinOperator.TRANSPOSE_CONV, inputs, [raw], s.BuiltinOptions.TransposeConvOptions,
               options)
        relu = fused == s.ActivationFunctionType.RELU
        w.emit(s.BuiltinOperator.RELU if relu else s.BuiltinOperator.RELU6, [raw], [target])
    else:
        w.emit(s.BuiltinOperator.TRANSPOSE_CONV, inputs, [target], s.BuiltinOptions.TransposeConvOptions,
               options)
    finish()


def _reshape(w: TfliteWriter, op: OperatorInfo) -> None:
    s = w.s
    target = w.shape_of(op.outputs[0])
    options = s.ReshapeOptionsT()
    options.newShape = target
    shape = w.constant(np.array(target, np.int32), f"{op.name}_shape")
    w.emit(s.BuiltinOperator.RESHAPE, [w.tensor(op.inputs[0]), shape], [w.tensor(op.outputs[0])],
           s.BuiltinOptions.ReshapeOptions, options)


def _transpose(w: TfliteWriter, op: OperatorInfo) -> None:
    s = w.s
    perm = op.options.get("perm") or list(range(len(w.shape_of(op.inputs[0])) - 1, -1, -1))
    w.emit(s.BuiltinOperator.TRANSPOSE, [w.tensor(op.inputs[0]), w.constant(np.array(perm, np.int32),
           f"{op.name}_perm")], [w.tensor(op.outputs[0])], s.BuiltinOptions.TransposeOptions,
           s.TransposeOptionsT())


def _global_average(w: TfliteWriter, op: OperatorInfo) -> None:
    s = w.s
    options = s.ReducerOptionsT()
    options.keepDims = True
    axes = w.constant(np.array([1, 2], np.int32), f"{op.name}_axes")
    w.emit(s.BuiltinOperator.MEAN, [w.tensor(op.inputs[0]), axes], [w.tensor(op.outputs[0])],
           s.BuiltinOptions.ReducerOptions, options)


def _fully_connected(w: TfliteWriter, op: OperatorInfo) -> None:
    s = w.s
    options = s.FullyConnectedOptionsT()
    options.fusedActivationFunction = _fused(op, s)
    options.keepNumDims = len(w.shape_of(op.inputs[0])) > 2
    inputs = [w.tensor(op.inputs[0]), w.tensor(op.inputs[1])]
    if len(op.inputs) > 2 and op.inputs[2] >= 0:
        inputs.append(_bias(w, op))
    w.emit(s.BuiltinOperator.FULLY_CONNECTED, inputs, [w.tensor(op.outputs[0])],
           s.BuiltinOptions.FullyConnectedOptions, options)


def _unary(w: TfliteWriter, op: OperatorInfo) -> None:
    s = w.s
    code = op.opcode
    if w.is_int8(op.inputs[0]) and code in ("SIGMOID", "TANH", "HARD_SWISH"):
        tflite_int8_maps.activation(w, op)  # tables in ours; TFLite fixes some output scales
        return
    if code == "CLIP":
        o = op.options
        if (o.get("alpha"), o.get("beta")) != (0.0, 6.0):
            raise ExportUnsupported(f"CLIP {op.name!r} other than [0, 6]")
        code = "RELU6"
    builtin = getattr(s.BuiltinOperator, {"SIGMOID": "LOGISTIC"}.get(code, code))
    w.emit(builtin, [w.tensor(op.inputs[0])], [w.tensor(op.outputs[0])])


def _hard_sigmoid(w: TfliteWriter, op: OperatorInfo) -> None:
    if w.is_int8(op.inputs[0]):
        tflite_int8_maps.hard_sigmoid(w, op)
        return
    o = op.options
    x, out = w.tensor(op.inputs[0]), w.tensor(op.outputs[0])
    _float_hard_sigmoid(w, op.name, x, out, w.shape_of(op.outputs[0]), float(o.get("alpha", 0.2)),
                        float(o.get("beta", 0.5)))


_WRITERS = {
    "CONV_2D": _conv,
    "MAX_POOL_2D": _pool,
    "AVERAGE_POOL_2D": _pool,
    "CONCAT": _concat,
    "RESIZE": _resize,
    "CONV_TRANSPOSE_2D": _conv_transpose,
    "ADD": _binary,
    "SUB": _binary,
    "MUL": _binary,
    "DIV": _binary,
    "RESHAPE": _reshape,
    "FLATTEN": _reshape,
    "SQUEEZE": _reshape,
    "UNSQUEEZE": _reshape,
    "TRANSPOSE": _transpose,
    "QUANTIZE": _quantize,
    "DEQUANTIZE": _quantize,
    "GLOBAL_AVERAGE_POOL": _global_average,
    "FULLY_CONNECTED": _fully_connected,
    "RELU": _unary,
    "RELU6": _unary,
    "CLIP": _unary,
    "SIGMOID": _unary,
    "TANH": _unary,
    "HARD_SWISH": _unary,
    "HARD_SIGMOID": _hard_sigmoid,
    "REQUANTIZE": tflite_int8_maps.requantize,
    "LAYER_NORM": tflite_attention_ops.layer_norm,
    "MATMUL": tflite_attention_ops.matmul,
    "SOFTMAX": tflite_attention_ops.softmax,
    "SLICE": tflite_attention_ops.slice_,
}


def export_tflite(model: LiteModel) -> bytes:
    """The .tflite bytes of ``model``; ExportUnsupported names the first op it cannot write."""
    unsupported = sorted({op.opcode for op in model.operators if op.opcode not in _WRITERS})
    if unsupported:
        raise ExportUnsupported(f"op(s) {', '.join(unsupported)}")
    writer = TfliteWriter(model)
    for op in model.operators:
        _WRITERS[op.opcode](writer, op)
    return writer.finish()
