"""Writes a .tflite from a converted .lite graph, so that LiteRT can be benchmarked on the same model.

No ONNX -> TFLite converter installs here (onnx2tf and ai-edge-torch need TensorFlow), but our .lite
graph is already what TFLite wants: channels-last activations, conv weights [Co, KH, KW, Ci] (TFLite's
OHWI), BatchNorm folded, activations fused. This module maps that graph onto the TFLite schema (the
object API of ``ai_edge_litert.schema_py_generated``, which the LiteRT wheel ships) for the ops plain
CNNs use; any other op raises :class:`ExportUnsupported` naming it. An int8 .lite is written as a
full-integer .tflite in TFLite's int8 spec (per-channel symmetric weights, depthwise filters
[1, KH, KW, C] quantized on axis 3, int32 bias, QUANTIZE / DEQUANTIZE at the fp32 borders) with our
scales and zero points, so LiteRT's own int8 kernels run the same quantized model.
LiteRT then runs the very graph our runtime runs (the same folding and fusion), which makes the
comparison one of kernels and scheduling, not of graph optimizations. Shapes must be static
(convert with fixed input shapes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import flatbuffers
import numpy as np

from lite_converter.reader import LiteModel, OperatorInfo

# .lite dtype -> (numpy dtype, TFLite TensorType name) of the tensors this exporter writes.
_TYPES = {"FLOAT32": (np.float32, "FLOAT32"), "INT8": (np.int8, "INT8"), "INT32": (np.int32, "INT32")}


class ExportUnsupported(Exception):
    """The graph uses an op or a variant this exporter does not write."""


def _schema() -> Any:  # noqa: ANN401 - generated module
    # LiteRT is optional (the 'tflite' / 'bench' extras): imported only when a .tflite is written.
    from ai_edge_litert import schema_py_generated

    return schema_py_generated


class _TfliteWriter:
    def __init__(self, model: LiteModel) -> None:
        self.s = _schema()
        self.model = model
        self.tensors: list[Any] = []
        self.buffers: list[Any] = [self.s.BufferT()]  # buffer 0: the empty buffer of activations
        self.codes: dict[int, int] = {}
        self.operator_codes: list[Any] = []
        self.operators: list[Any] = []
        self.mapped: dict[int, int] = {}

    # -- tensors ----------------------------------------------------------------------------------
    def _add_tensor(self, shape: Sequence[int], tensor_type: int, name: str, data: np.ndarray | None,
                    quantization: Any = None) -> int:  # noqa: ANN401 - generated option classes
        buffer = 0
        if data is not None:
            entry = self.s.BufferT()
            entry.data = np.frombuffer(np.ascontiguousarray(data).tobytes(), dtype=np.uint8)
            self.buffers.append(entry)
            buffer = len(self.buffers) - 1
        tensor = self.s.TensorT()
        tensor.shape = [int(d) for d in shape]
        tensor.type = tensor_type
        tensor.buffer = buffer
        tensor.name = name
        tensor.quantization = quantization
        self.tensors.append(tensor)
        return len(self.tensors) - 1

    def quantization(self, quant: dict[str, Any] | None, axis: int | None = None) -> Any:  # noqa: ANN401
        """TFLite quantization parameters from a .lite tensor's (``axis`` overrides the channel axis)."""
        if not quant:
            return None
        params = self.s.QuantizationParametersT()
        params.scale = [float(v) for v in quant["scale"]]
        zero_point = quant.get("zero_point") or [0] * len(params.scale)
        params.zeroPoint = [int(v) for v in zero_point]
        stored_axis = quant.get("axis", -1)
        params.quantizedDimension = axis if axis is not None else max(int(stored_axis), 0)
        return params

    def tensor(self, index: int) -> int:
        """The TFLite tensor of .lite tensor ``index`` (float32, or int8 / int32 with quantization)."""
        if index in self.mapped:
            return self.mapped[index]
        info = self.model.tensors[index]
        if info.dtype not in _TYPES:
            raise ExportUnsupported(f"tensor {info.name!r} of dtype {info.dtype}")
        if info.shape is None or any(d < 0 for d in info.shape):
            raise ExportUnsupported(f"tensor {info.name!r} has a dynamic shape: fix the input shapes")
        dtype, type_name = _TYPES[info.dtype]
        data = np.asarray(info.data, dtype=dtype) if info.data is not None else None
        tensor_type = getattr(self.s.TensorType, type_name)
        self.mapped[index] = self._add_tensor(info.shape, tensor_type, info.name, data,
                                              self.quantization(info.quantization))
        return self.mapped[index]

    def is_int8(self, index: int) -> bool:
        return self.model.tensors[index].dtype == "INT8"

    def constant(self, array: np.ndarray, name: str, quantization: Any = None) -> int:  # noqa: ANN401
        types = {np.dtype(np.float32): self.s.TensorType.FLOAT32, np.dtype(np.int32): self.s.TensorType.INT32,
                 np.dtype(np.int8): self.s.TensorType.INT8}
        return self._add_tensor(array.shape, types[array.dtype], name, array, quantization)

    def activation(self, shape: Sequence[int], name: str, like: int | None = None) -> int:
        """A new activation; with ``like`` (a .lite tensor index) of that tensor's type and quantization."""
        if like is None or not self.is_int8(like):
            return self._add_tensor(shape, self.s.TensorType.FLOAT32, name, None)
        quant = self.quantization(self.model.tensors[like].quantization)
        return self._add_tensor(shape, self.s.TensorType.INT8, name, None, quant)

    def shape_of(self, index: int) -> list[int]:
        shape = self.model.tensors[index].shape
        assert shape is not None
        return list(shape)

    # -- operators --------------------------------------------------------------------------------
    def emit(self, builtin: int, inputs: list[int], outputs: list[int], options_type: int = 0,
             options: Any = None) -> None:  # noqa: ANN401 - generated option classes
        if builtin not in self.codes:
            code = self.s.OperatorCodeT()
            code.builtinCode = builtin
            code.deprecatedBuiltinCode = min(builtin, 127)
            code.version = 1
            self.operator_codes.append(code)
            self.codes[builtin] = len(self.operator_codes) - 1
        op = self.s.OperatorT()
        op.opcodeIndex = self.codes[builtin]
        op.inputs = inputs
        op.outputs = outputs
        op.builtinOptionsType = options_type
        op.builtinOptions = options
        self.operators.append(op)

    def finish(self) -> bytes:
        graph = self.s.SubGraphT()
        graph.inputs = [self.tensor(i) for i in self.model.inputs]
        graph.outputs = [self.tensor(i) for i in self.model.outputs]
        graph.tensors = self.tensors
        graph.operators = self.operators
        graph.name = "main"
        model = self.s.ModelT()
        model.version = 3
        model.description = "written by lite_converter.app.peers.tflite_export"
        model.operatorCodes = self.operator_codes
        model.subgraphs = [graph]
        model.buffers = self.buffers
        builder = flatbuffers.Builder(1 << 20)
        builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
        return bytes(builder.Output())


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


def _scalar(w: _TfliteWriter, value: float, name: str) -> int:
    return w.constant(np.array([value], np.float32), name)


def _activation_tail(w: _TfliteWriter, op: OperatorInfo) -> tuple[int, int, Any]:
    """(fused activation code, tensor the op writes, finish()): activations TFLite cannot fuse
    (sigmoid, hard-swish, hard-sigmoid) become their own ops after it, reading an intermediate."""
    s = w.s
    activation = op.options.get("activation") or {"kind": "NONE"}
    out = w.tensor(op.outputs[0])
    if activation.get("kind") not in ("SIGMOID", "HARD_SWISH", "HARD_SIGMOID"):
        return _fused(op, s), out, lambda: None
    shape = w.shape_of(op.outputs[0])
    raw = w.activation(shape, f"{op.name}_linear")

    def finish() -> None:
        kind = activation["kind"]
        if kind == "SIGMOID":
            w.emit(s.BuiltinOperator.LOGISTIC, [raw], [out])
        elif kind == "HARD_SWISH":
            w.emit(s.BuiltinOperator.HARD_SWISH, [raw], [out])
        else:  # max(0, min(1, a*x + b)) = relu6(6a*x + 6b) / 6
            alpha, beta = float(activation["alpha"]), float(activation["beta"])
            scaled = w.activation(shape, f"{op.name}_hs_scaled")
            shifted = w.activation(shape, f"{op.name}_hs_relu6")
            none, relu6 = s.ActivationFunctionType.NONE, s.ActivationFunctionType.RELU6
            _emit_binary(w, "MUL", [raw, _scalar(w, 6 * alpha, f"{op.name}_6a")], scaled, none)
            _emit_binary(w, "ADD", [scaled, _scalar(w, 6 * beta, f"{op.name}_6b")], shifted, relu6)
            _emit_binary(w, "MUL", [shifted, _scalar(w, 1 / 6, f"{op.name}_sixth")], out, none)

    return s.ActivationFunctionType.NONE, raw, finish


def _same_pads(size: int, out: int, kernel: int, stride: int, dilation: int) -> tuple[int, int]:
    total = max((out - 1) * stride + (kernel - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2


def _padding(w: _TfliteWriter, op: OperatorInfo, x: int, kernel: tuple[int, int],
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


def _conv(w: _TfliteWriter, op: OperatorInfo) -> None:
    s, o = w.s, op.options
    if len(op.inputs) > 3 and op.inputs[3] >= 0:
        raise ExportUnsupported(f"CONV_2D {op.name!r} with a fused PReLU")
    weight_info = w.model.tensors[op.inputs[1]]
    weights = np.asarray(weight_info.data, _TYPES.get(weight_info.dtype, (np.float32, ""))[0])
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


def _bias_quantization(w: _TfliteWriter, op: OperatorInfo, channels: int) -> Any:  # noqa: ANN401
    """An int8 op's int32 bias scales, s_in * s_w[c] (our int8 pass stores none: no kernel reads them)."""
    s_in = float(w.model.tensors[op.inputs[0]].quantization["scale"][0])
    s_w = np.asarray(w.model.tensors[op.inputs[1]].quantization["scale"], np.float64)
    scales = np.broadcast_to(np.float32(s_in * s_w), (channels,))
    return w.quantization({"scale": list(scales), "zero_point": [0] * channels, "axis": 0})


def _bias(w: _TfliteWriter, op: OperatorInfo) -> int:
    """The op's bias tensor; an int8 op's bias gets the scales TFLite requires when the file has none."""
    info = w.model.tensors[op.inputs[2]]
    if not w.is_int8(op.inputs[0]) or info.quantization or info.data is None:
        return w.tensor(op.inputs[2])
    data = np.asarray(info.data, np.int32).reshape(-1)
    return w.constant(data, info.name, _bias_quantization(w, op, data.size))


def _zero_bias(w: _TfliteWriter, op: OperatorInfo, channels: int) -> int:
    """TFLite wants a bias: float zeros, or for int8 int32 zeros with scale s_in * s_w[c]."""
    if not w.is_int8(op.inputs[0]):
        return w.constant(np.zeros(channels, np.float32), f"{op.name}_bias")
    return w.constant(np.zeros(channels, np.int32), f"{op.name}_bias", _bias_quantization(w, op, channels))


def _quantize(w: _TfliteWriter, op: OperatorInfo) -> None:
    builtin = w.s.BuiltinOperator.QUANTIZE if op.opcode == "QUANTIZE" else w.s.BuiltinOperator.DEQUANTIZE
    w.emit(builtin, [w.tensor(op.inputs[0])], [w.tensor(op.outputs[0])])


def _pool(w: _TfliteWriter, op: OperatorInfo) -> None:
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


def _emit_binary(w: _TfliteWriter, opcode: str, inputs: list[int], output: int, fused: int) -> None:
    s = w.s
    builtin, options_type, options = {
        "ADD": (s.BuiltinOperator.ADD, s.BuiltinOptions.AddOptions, s.AddOptionsT()),
        "SUB": (s.BuiltinOperator.SUB, s.BuiltinOptions.SubOptions, s.SubOptionsT()),
        "MUL": (s.BuiltinOperator.MUL, s.BuiltinOptions.MulOptions, s.MulOptionsT()),
        "DIV": (s.BuiltinOperator.DIV, s.BuiltinOptions.DivOptions, s.DivOptionsT()),
    }[opcode]
    options.fusedActivationFunction = fused
    w.emit(builtin, inputs, [output], options_type, options)


def _binary(w: _TfliteWriter, op: OperatorInfo) -> None:
    fused, target, finish = _activation_tail(w, op)
    _emit_binary(w, op.opcode, [w.tensor(i) for i in op.inputs], target, fused)
    finish()


def _concat(w: _TfliteWriter, op: OperatorInfo) -> None:
    s = w.s
    options = s.ConcatenationOptionsT()
    options.axis = int(op.options.get("axis", 0))
    options.fusedActivationFunction = s.ActivationFunctionType.NONE
    w.emit(s.BuiltinOperator.CONCATENATION, [w.tensor(i) for i in op.inputs], [w.tensor(op.outputs[0])],
           s.BuiltinOptions.ConcatenationOptions, options)


def _resize(w: _TfliteWriter, op: OperatorInfo) -> None:
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
    w.emit(builtin, [w.tensor(op.inputs[0]), size], [w.tensor(op.outputs[0])], options_type, options)


def _conv_transpose(w: _TfliteWriter, op: OperatorInfo) -> None:
    s, o = w.s, op.options
    pads = [o.get(k, 0) for k in ("pad_top", "pad_left", "pad_bottom", "pad_right", "output_padding_h",
                                  "output_padding_w")]
    if any(pads) or o.get("group", 1) != 1 or o.get("dilation_h", 1) != 1 or o.get("dilation_w", 1) != 1:
        raise ExportUnsupported(f"CONV_TRANSPOSE_2D {op.name!r} with pads, groups or dilation")
    weights = np.asarray(w.model.tensors[op.inputs[1]].data, np.float32)  # [Ci, KH, KW, Co]
    filters = w.constant(np.ascontiguousarray(weights.transpose(3, 1, 2, 0)), f"{op.name}_ohwi")
    output_shape = w.constant(np.array(w.shape_of(op.outputs[0]), np.int32), f"{op.name}_output_shape")
    inputs = [output_shape, filters, w.tensor(op.inputs[0])]
    if len(op.inputs) > 2 and op.inputs[2] >= 0:
        inputs.append(w.tensor(op.inputs[2]))
    options = s.TransposeConvOptionsT()
    options.padding = s.Padding.VALID
    options.strideH, options.strideW = o.get("stride_h", 1), o.get("stride_w", 1)
    fused, target, finish = _activation_tail(w, op)
    if fused != s.ActivationFunctionType.NONE:  # TRANSPOSE_CONV fuses activations only in newer versions
        raw = w.activation(w.shape_of(op.outputs[0]), f"{op.name}_linear")
        w.emit(s.BuiltinOperator.TRANSPOSE_CONV, inputs, [raw], s.BuiltinOptions.TransposeConvOptions,
               options)
        relu = fused == s.ActivationFunctionType.RELU
        w.emit(s.BuiltinOperator.RELU if relu else s.BuiltinOperator.RELU6, [raw], [target])
    else:
        w.emit(s.BuiltinOperator.TRANSPOSE_CONV, inputs, [target], s.BuiltinOptions.TransposeConvOptions,
               options)
    finish()


def _reshape(w: _TfliteWriter, op: OperatorInfo) -> None:
    s = w.s
    target = w.shape_of(op.outputs[0])
    options = s.ReshapeOptionsT()
    options.newShape = target
    shape = w.constant(np.array(target, np.int32), f"{op.name}_shape")
    w.emit(s.BuiltinOperator.RESHAPE, [w.tensor(op.inputs[0]), shape], [w.tensor(op.outputs[0])],
           s.BuiltinOptions.ReshapeOptions, options)


def _transpose(w: _TfliteWriter, op: OperatorInfo) -> None:
    s = w.s
    perm = op.options.get("perm") or list(range(len(w.shape_of(op.inputs[0])) - 1, -1, -1))
    w.emit(s.BuiltinOperator.TRANSPOSE, [w.tensor(op.inputs[0]), w.constant(np.array(perm, np.int32),
           f"{op.name}_perm")], [w.tensor(op.outputs[0])], s.BuiltinOptions.TransposeOptions,
           s.TransposeOptionsT())


def _global_average(w: _TfliteWriter, op: OperatorInfo) -> None:
    s = w.s
    options = s.ReducerOptionsT()
    options.keepDims = True
    axes = w.constant(np.array([1, 2], np.int32), f"{op.name}_axes")
    w.emit(s.BuiltinOperator.MEAN, [w.tensor(op.inputs[0]), axes], [w.tensor(op.outputs[0])],
           s.BuiltinOptions.ReducerOptions, options)


def _fully_connected(w: _TfliteWriter, op: OperatorInfo) -> None:
    s = w.s
    options = s.FullyConnectedOptionsT()
    options.fusedActivationFunction = _fused(op, s)
    options.keepNumDims = len(w.shape_of(op.inputs[0])) > 2
    inputs = [w.tensor(op.inputs[0]), w.tensor(op.inputs[1])]
    if len(op.inputs) > 2 and op.inputs[2] >= 0:
        inputs.append(_bias(w, op))
    w.emit(s.BuiltinOperator.FULLY_CONNECTED, inputs, [w.tensor(op.outputs[0])],
           s.BuiltinOptions.FullyConnectedOptions, options)


def _unary(w: _TfliteWriter, op: OperatorInfo) -> None:
    s = w.s
    code = op.opcode
    if code == "CLIP":
        o = op.options
        if (o.get("alpha"), o.get("beta")) != (0.0, 6.0):
            raise ExportUnsupported(f"CLIP {op.name!r} other than [0, 6]")
        code = "RELU6"
    builtin = getattr(s.BuiltinOperator, {"SIGMOID": "LOGISTIC"}.get(code, code))
    w.emit(builtin, [w.tensor(op.inputs[0])], [w.tensor(op.outputs[0])])


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
}


def export_tflite(model: LiteModel) -> bytes:
    """The .tflite bytes of ``model``; ExportUnsupported names the first op it cannot write."""
    unsupported = sorted({op.opcode for op in model.operators if op.opcode not in _WRITERS})
    if unsupported:
        raise ExportUnsupported(f"op(s) {', '.join(unsupported)}")
    writer = _TfliteWriter(model)
    for op in model.operators:
        _WRITERS[op.opcode](writer, op)
    return writer.finish()
