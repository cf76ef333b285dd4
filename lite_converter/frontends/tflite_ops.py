"""TFLite builtin ops -> .lite ops, one converter per op (see tflite_frontend.py for the contract).

An op whose tensors are int8 becomes our int8 op when the runtime has that int8 kernel with those
operands (CONV_2D incl. depthwise, FULLY_CONNECTED, same-shape ADD, MAX_POOL_2D / global mean with
one scale, byte-moving RESHAPE / TRANSPOSE / CONCAT with one scale); otherwise it runs in fp32
between DEQUANTIZE and QUANTIZE (``fp32_op``), with the model's own output scale and zero point.
A PAD read only by convolutions is folded into their explicit pads: int8 PAD pads with the zero
point and our int8 convolution treats padded cells as the zero point, the same real 0.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from lite_converter.frontends.tflite_activation_fusion import fuse_into_binary
from lite_converter.ir import QuantParams

if TYPE_CHECKING:  # the builder calls these converters: it imports this module
    from lite_converter.frontends.tflite_frontend import TfliteGraphBuilder

NO_ACTIVATION = {"kind": "NONE", "alpha": 0.0, "beta": 0.0}
CONV_OPS = ("CONV_2D", "DEPTHWISE_CONV_2D")

Converter = Callable[["TfliteGraphBuilder", Any, list[str], list[str]], None]


def enum_names(enum_class: Any) -> dict[int, str]:  # noqa: ANN401 - generated enum class
    """{value: name} of a generated flatbuffer enum class."""
    return {v: k for k, v in vars(enum_class).items() if not k.startswith("_") and isinstance(v, int)}


def activation(b: TfliteGraphBuilder, options: Any, where: str) -> dict[str, Any]:  # noqa: ANN401
    code = getattr(options, "fusedActivationFunction", 0) if options is not None else 0
    kind = enum_names(b.s.ActivationFunctionType).get(code, str(code))
    table = {"NONE": NO_ACTIVATION, "RELU": {"kind": "RELU", "alpha": 0.0, "beta": 0.0},
             "RELU6": {"kind": "CLIP", "alpha": 0.0, "beta": 6.0},
             "RELU_N1_TO_1": {"kind": "CLIP", "alpha": -1.0, "beta": 1.0}}
    if kind not in table:
        b.problems.append(f"{where}: fused activation {kind} is not imported")
        return dict(NO_ACTIVATION)
    return dict(table[kind])


def same_params(b: TfliteGraphBuilder, names: list[str]) -> bool:
    quants = [b.graph.tensors[n].quant for n in names]
    first = quants[0]
    return all(q is not None and first is not None and q.axis is None and np.array_equal(q.scale, first.scale)
               and np.array_equal(q.zero_point, first.zero_point) for q in quants)


def _all_int8(b: TfliteGraphBuilder, names: list[str]) -> bool:
    return all(b.is_int8(n) for n in names)


def _all_float(b: TfliteGraphBuilder, names: list[str]) -> bool:
    return all(b.graph.tensors[n].dtype == np.float32 for n in names if n)


def fp32_op(b: TfliteGraphBuilder, op_type: str, name: str, inputs: list[str], output: str,
            **attrs: Any) -> None:  # noqa: ANN401
    """``op_type`` in fp32: int8 inputs dequantized, an int8 output quantized with its own params
    (other dtypes pass through as they are)."""
    fp32_inputs = [b.dequantized(n) if n else n for n in inputs]
    target, finish = b.fp32_output(output)
    b.add_node(op_type, name, fp32_inputs, [target], **attrs)
    finish()


def move_op(b: TfliteGraphBuilder, op_type: str, name: str, inputs: list[str], outputs: list[str],
            **attrs: Any) -> None:  # noqa: ANN401
    """An op that only moves bytes of input 0 (any dtype): int8 as it is when input and outputs share
    one scale and zero point, else through fp32 (one output then)."""
    data = [inputs[0], *outputs]
    if _all_int8(b, data) and same_params(b, data) or not any(b.is_int8(n) for n in data):
        b.add_node(op_type, name, inputs, outputs, **attrs)
    elif len(outputs) == 1:
        fp32_op(b, op_type, name, inputs, outputs[0], **attrs)
    else:
        b.problems.append(f"op writing '{outputs[0]}': {op_type} of int8 tensors with different scales")




def static_shape(b: TfliteGraphBuilder, name: str) -> list[int]:
    """The file's (fixed) shape of a tensor."""
    return [int(d) for d in b.graph.tensors[name].shape or []]


def constant_operand(b: TfliteGraphBuilder, name: str, what: str, out: str,
                     flat: bool = True) -> np.ndarray | None:
    """An operand that says where to cut or how to index, as int64 (flattened unless ``flat`` is False);
    None after noting the problem when it is computed at run time."""
    value = b.graph.constant(name) if name else None
    if value is None:
        b.problems.append(f"op writing '{out}': {what} is not a constant")
        return None
    value = np.asarray(value).astype(np.int64)
    return value.reshape(-1) if flat else value


def _pads(padding: int, b: TfliteGraphBuilder, size: tuple[int, int], kernel: tuple[int, int],
          strides: tuple[int, int], dilations: tuple[int, int]) -> list[int]:
    """[top, bottom, left, right] of TFLite SAME (extra pad at the end) or VALID."""
    if padding != b.s.Padding.SAME:
        return [0, 0, 0, 0]
    result = []
    for i in range(2):
        out = -(-size[i] // strides[i])
        total = max((out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - size[i], 0)
        result += [total // 2, total - total // 2]
    return result


def _pad_attrs(pads: list[int]) -> dict[str, int]:
    return {"pad_top": pads[0], "pad_bottom": pads[1], "pad_left": pads[2], "pad_right": pads[3]}


def _per_channel(quant: QuantParams, channels: int, axis: int) -> QuantParams:
    """Weight parameters as one scale per output channel on ``axis`` (per-tensor ones repeated)."""
    if quant.scale.size == 1:
        return QuantParams(np.full(channels, quant.scale[0], np.float32), np.zeros(channels, np.int64), axis)
    return QuantParams(quant.scale, quant.zero_point, axis)


def _conv(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    options = op.builtinOptions
    x, w, bias = inputs[0], inputs[1], inputs[2] if len(inputs) > 2 else ""
    out, where = outputs[0], f"op writing '{outputs[0]}'"
    weight = b.graph.tensors[w]
    w_shape = list(weight.data.shape) if weight.data is not None else weight.shape
    if w_shape is None or len(w_shape) != 4 or not all(isinstance(d, int) and d > 0 for d in w_shape):
        b.problems.append(f"{where}: convolution weights are not an [O, KH, KW, I] tensor of known shape")
        return
    x, extra = b.folded_pads.get(x, (x, [0, 0, 0, 0]))
    in_shape = b.graph.tensors[x].shape
    data, quant, group = weight.data, weight.quant, 1
    depthwise = b.opcode_name(op) == "DEPTHWISE_CONV_2D"
    if depthwise:  # [1, KH, KW, C*m] -> [C*m, KH, KW, 1]
        group = int(in_shape[3])
        if data is not None:
            data = np.ascontiguousarray(data.transpose(3, 1, 2, 0))
        if quant is not None:
            quant = QuantParams(quant.scale, quant.zero_point, 0 if quant.axis is not None else None)
    kernel, strides = w_shape[1:3], (options.strideH, options.strideW)
    dilations = (options.dilationHFactor, options.dilationWFactor)
    pads = _pads(options.padding, b, (in_shape[1] + extra[0] + extra[1], in_shape[2] + extra[2] + extra[3]),
                 kernel, strides, dilations)
    pads = [p + e for p, e in zip(pads, extra, strict=True)]
    attrs = {"stride_h": strides[0], "stride_w": strides[1], "dilation_h": dilations[0],
             "dilation_w": dilations[1], **_pad_attrs(pads), "padding": "EXPLICIT", "group": group,
             "activation": activation(b, options, where), "layout": "NHWC"}
    if data is None:  # computed weights: fp32, packed by the runtime at every eval
        w_name = b.dequantized(w)
        if depthwise:
            ohwi = b.graph.add_tensor(f"{w}_ohwi", np.float32, [w_shape[3], w_shape[1], w_shape[2], 1])
            b.add_node("TRANSPOSE", f"{w}_ohwi", [w_name], [ohwi], perm=[3, 1, 2, 0])
            w_name = ohwi
        fp32_op(b, "CONV_2D", out, [x, w_name, *([bias] if bias else [])], out, **attrs)
        return
    int8 = _all_int8(b, [x, out]) and data.dtype == np.int8 and quant is not None \
        and not quant.zero_point.any() and (not bias or b.graph.tensors[bias].dtype == np.int32)
    if int8:
        w_name = b.graph.add_constant(f"{w}_ohwi", data)
        b.graph.tensors[w_name].quant = _per_channel(quant, data.shape[0], 0)
        b.add_node("CONV_2D", out, [x, w_name, *([bias] if bias else [])], [out], **attrs)
        return
    w_name = b.graph.add_constant(f"{w}_ohwi", data)
    b.graph.tensors[w_name].quant = None if quant is None else _per_channel(quant, data.shape[0], 0)
    if w in b.weight_tags:
        b.weight_tags.add(w_name)
    fp32_op(b, "CONV_2D", out, [x, w_name, *([bias] if bias else [])], out, **attrs)


def _fully_connected(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    x, w, bias = inputs[0], inputs[1], inputs[2] if len(inputs) > 2 else ""
    out, where = outputs[0], f"op writing '{outputs[0]}'"
    weight = b.graph.tensors[w]
    w_shape = list(weight.data.shape) if weight.data is not None else weight.shape
    if w_shape is None or len(w_shape) != 2 or not isinstance(w_shape[1], int) or w_shape[1] <= 0:
        b.problems.append(f"{where}: FULLY_CONNECTED weights are not an [N, K] tensor with a known K")
        return
    shape = b.graph.tensors[x].shape or []
    depth = int(w_shape[1])
    if len(shape) != 2:  # TFLite flattens the input to [-1, K]
        rows = int(np.prod(shape)) // depth
        flat = b.graph.add_tensor(f"{x}_flat", b.graph.tensors[x].dtype, [rows, depth])
        b.graph.tensors[flat].quant = b.graph.tensors[x].quant
        target = b.graph.add_constant(f"{x}_flat_shape", np.array([-1, depth], np.int64))
        b.add_node("RESHAPE", f"{x}_flatten", [x, target], [flat], allowzero=False)
        x = flat
    act = activation(b, op.builtinOptions, where)
    quant = weight.quant
    # Computed weights (onnx-tf passes them into IF branches as arguments) run in fp32: the runtime
    # transposes them at every eval instead of packing them once.
    int8_weight = weight.data is not None and weight.data.dtype == np.int8 and quant is not None \
        and not quant.zero_point.any()
    if int8_weight and _all_int8(b, [x, out]) and (not bias or b.graph.tensors[bias].dtype == np.int32):
        weight.quant = _per_channel(quant, weight.data.shape[0], 0)
        b.add_node("FULLY_CONNECTED", out, [x, w, *([bias] if bias else [])], [out], activation=act)
        return
    fp32_op(b, "FULLY_CONNECTED", out, [x, w, *([bias] if bias else [])], out, activation=act)


def _binary(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    opcode, out = b.opcode_name(op), outputs[0]
    act = activation(b, op.builtinOptions, f"op writing '{out}'")
    shapes = [b.graph.tensors[n].shape for n in inputs]
    constants = [b.graph.tensors[n].data is not None for n in inputs]
    if opcode == "ADD" and _all_int8(b, [*inputs, out]) and shapes[0] == shapes[1] and not any(constants):
        b.add_node("ADD", out, inputs, [out], activation=act)
    else:
        fp32_op(b, opcode, out, inputs, out, activation=act)


def _pool(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    options, x, out = op.builtinOptions, inputs[0], outputs[0]
    is_max = b.opcode_name(op) == "MAX_POOL_2D"
    shape = b.graph.tensors[x].shape
    kernel, strides = (options.filterHeight, options.filterWidth), (options.strideH, options.strideW)
    act = activation(b, options, f"op writing '{out}'")
    pads = _pads(options.padding, b, (shape[1], shape[2]), kernel, strides, (1, 1))
    one_scale = _all_int8(b, [x, out]) and same_params(b, [x, out]) and act["kind"] == "NONE"
    if not is_max and tuple(kernel) == (shape[1], shape[2]) and not any(pads):
        (b.add_node if one_scale else _fp32_node(b))("GLOBAL_AVERAGE_POOL", out, [x], [out], layout="NHWC")
        return
    attrs = {"kernel_h": kernel[0], "kernel_w": kernel[1], "stride_h": strides[0], "stride_w": strides[1],
             **_pad_attrs(pads), "padding": "EXPLICIT", "count_include_pad": False, "activation": act,
             "layout": "NHWC"}
    if is_max and one_scale:
        b.add_node("MAX_POOL_2D", out, [x], [out], **attrs)
    else:
        fp32_op(b, "MAX_POOL_2D" if is_max else "AVERAGE_POOL_2D", out, [x], out, **attrs)


def _fp32_node(b: TfliteGraphBuilder) -> Callable[..., None]:
    """``add_node``'s signature, running the op in fp32 (see ``_fp32``)."""
    def add(op_type: str, name: str, inputs: list[str], outputs: list[str], **attrs: Any) -> None:  # noqa: ANN401
        fp32_op(b, op_type, name, inputs, outputs[0], **attrs)
    return add


def _mean(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    x, out = inputs[0], outputs[0]
    axes = b.graph.constant(inputs[1])
    shape = b.graph.tensors[x].shape or []
    keep = bool(op.builtinOptions.keepDims) if op.builtinOptions is not None else False
    spatial = axes is not None and len(shape) == 4 and sorted(int(a) % 4 for a in axes.reshape(-1)) == [1, 2]
    if not spatial:
        axes_list = [] if axes is None else [int(a) % max(len(shape), 1) for a in axes.reshape(-1)]
        fp32_op(b, "REDUCE_MEAN", out, [x], out, axes=axes_list, keepdims=keep)
        return
    add = b.add_node if _all_int8(b, [x, out]) and same_params(b, [x, out]) else _fp32_node(b)
    if keep:
        add("GLOBAL_AVERAGE_POOL", out, [x], [out], layout="NHWC")
        return
    pooled = b.graph.add_tensor(f"{out}_keepdims", b.graph.tensors[out].dtype, [shape[0], 1, 1, shape[3]])
    b.graph.tensors[pooled].quant = b.graph.tensors[out].quant
    add("GLOBAL_AVERAGE_POOL", out, [x], [pooled], layout="NHWC")
    _reshape_to(b, pooled, out)


def _reshape_to(b: TfliteGraphBuilder, x: str, out: str) -> None:
    target = b.graph.add_constant(f"{out}_shape", np.array(b.graph.tensors[out].shape, np.int64))
    if _all_float(b, [x, out]) or (_all_int8(b, [x, out]) and same_params(b, [x, out])):
        b.add_node("RESHAPE", out, [x, target], [out], allowzero=False)
    else:
        fp32_op(b, "RESHAPE", out, [x, target], out, allowzero=False)


def _reshape(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    _reshape_to(b, inputs[0], outputs[0])


def _softmax(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    beta = float(op.builtinOptions.beta) if op.builtinOptions is not None else 1.0
    if beta != 1.0:
        b.problems.append(f"op writing '{outputs[0]}': SOFTMAX with beta {beta} is not imported")
        return
    fp32_op(b, "SOFTMAX", outputs[0], inputs[:1], outputs[0], axis=-1)


def _quantize(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    x, out = inputs[0], outputs[0]
    source, target = b.graph.tensors[x], b.graph.tensors[out]
    if b.opcode_name(op) == "DEQUANTIZE" and source.data is not None:  # fp16 / int8 weights
        value = np.asarray(b.graph.constant(b.dequantized(x)), np.float32)
        target.data, target.dtype, target.shape = value, np.dtype(np.float32), list(value.shape)
        # int8 weights keep their tag: keep_weights_narrow stores them back as int8 (fp16 ones as fp16)
        target.quant = source.quant if source.dtype == np.int8 else None
        if target.quant is not None:
            b.weight_tags.add(out)
        return
    if target.dtype == np.int8 and source.dtype == np.float32:
        b.add_node("QUANTIZE", out, [x], [out])
    elif target.dtype == np.float32 and b.is_int8(x):
        b.add_node("DEQUANTIZE", out, [x], [out])
    elif _all_int8(b, [x, out]):  # requantization
        b.add_node("QUANTIZE", out, [b.dequantized(x)], [out])
    elif target.dtype == np.uint8 and _is_int8_to_uint8_shift(b, x, out):
        # TFLite's uint8 output of an int8 model: same scale, zero point + 128, i.e. q + 128 exactly
        wide = b.graph.add_tensor(f"{out}_int32", np.int32, target.shape)
        b.add_node("CAST", f"{out}_widen", [x], [wide], to="INT32")
        shifted = b.graph.add_tensor(f"{out}_shifted", np.int32, target.shape)
        b.add_node("ADD", f"{out}_shift", [wide, b.graph.add_constant(f"{out}_128", np.array(128, np.int32))],
                   [shifted])
        b.add_node("CAST", out, [shifted], [out], to="UINT8")
        target.quant = None
    else:
        b.problems.append(f"op writing '{out}': {b.opcode_name(op)} from {source.dtype} to {target.dtype}")


def _is_int8_to_uint8_shift(b: TfliteGraphBuilder, x: str, out: str) -> bool:
    source, target = b.graph.tensors[x].quant, b.graph.tensors[out].quant
    return (b.is_int8(x) and source is not None and target is not None and source.scale.size == 1
            and target.scale.size == 1 and float(source.scale[0]) == float(target.scale[0])
            and int(target.zero_point[0]) == int(source.zero_point[0]) + 128)


def _pad(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    x, out = inputs[0], outputs[0]
    amounts = b.graph.constant(inputs[1])
    if amounts is None:
        b.problems.append(f"op writing '{out}': PAD amounts are not constant")
        return
    amounts = amounts.reshape(-1, 2).astype(np.int64)
    value = b.graph.constant(inputs[2]) if len(inputs) > 2 and inputs[2] else None
    zero = b.graph.tensors[x].quant.zero_point[0] if b.is_int8(x) else 0  # type: ignore[union-attr]
    readers = b.readers.get(out, [])
    spatial_only = amounts.shape[0] == 4 and not amounts[0].any() and not amounts[3].any()
    if (spatial_only and (value is None or int(np.asarray(value).reshape(-1)[0]) == zero)
            and readers and all(b.opcode_name(r) in CONV_OPS and r.inputs[0] == op.outputs[0]
                                for r in readers)
            and out not in {b.name(i) for i in b.subgraph.outputs}):
        spatial = (amounts[1, 0], amounts[1, 1], amounts[2, 0], amounts[2, 1])
        b.folded_pads[out] = (x, [int(v) for v in spatial])
        return
    pads = b.graph.add_constant(f"{out}_pads", np.concatenate([amounts[:, 0], amounts[:, 1]]))
    pad_inputs = [x, pads] if value is None else [x, pads, b.dequantized(inputs[2])]
    if _all_float(b, [x, out]):
        b.add_node("PAD", out, pad_inputs, [out], mode="CONSTANT")
    else:
        fp32_op(b, "PAD", out, pad_inputs, out, mode="CONSTANT")


def _concat(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    out = outputs[0]
    rank = len(b.graph.tensors[out].shape or [0])
    axis = int(op.builtinOptions.axis) % max(rank, 1)
    if activation(b, op.builtinOptions, f"op writing '{out}'")["kind"] != "NONE":
        b.problems.append(f"op writing '{out}': CONCATENATION with a fused activation")
    if _all_float(b, [*inputs, out]) or (_all_int8(b, [*inputs, out]) and same_params(b, [*inputs, out])):
        b.add_node("CONCAT", out, inputs, [out], axis=axis)
    else:
        fp32_op(b, "CONCAT", out, inputs, out, axis=axis)


def _transpose(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    perm = b.graph.constant(inputs[1])
    if perm is None:
        b.problems.append(f"op writing '{outputs[0]}': TRANSPOSE perm is not constant")
        return
    x, out = inputs[0], outputs[0]
    attrs = {"perm": [int(p) for p in perm.reshape(-1)]}
    if _all_float(b, [x, out]) or (_all_int8(b, [x, out]) and same_params(b, [x, out])):
        b.add_node("TRANSPOSE", out, [x], [out], **attrs)
    else:
        fp32_op(b, "TRANSPOSE", out, [x], out, **attrs)


def _unary(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    opcode = b.opcode_name(op)
    names = {"LOGISTIC": ("SIGMOID", {}), "RELU6": ("CLIP", {"alpha": 0.0, "beta": 6.0})}
    op_type, attrs = names.get(opcode, (opcode, {}))
    fused = {"RELU": {"kind": "RELU", "alpha": 0.0, "beta": 0.0},
             "RELU6": {"kind": "CLIP", "alpha": 0.0, "beta": 6.0}}
    if opcode in fused and fuse_into_binary(b, inputs[0], outputs[0], fused[opcode]):
        return
    fp32_op(b, op_type, outputs[0], inputs[:1], outputs[0], **attrs)


CONVERTERS: dict[str, Converter] = {
    "CONV_2D": _conv, "DEPTHWISE_CONV_2D": _conv, "FULLY_CONNECTED": _fully_connected,
    "ADD": _binary, "SUB": _binary, "MUL": _binary, "DIV": _binary,
    "MAX_POOL_2D": _pool, "AVERAGE_POOL_2D": _pool, "MEAN": _mean,
    "RESHAPE": _reshape, "SQUEEZE": _reshape, "SOFTMAX": _softmax,
    "QUANTIZE": _quantize, "DEQUANTIZE": _quantize, "PAD": _pad, "PADV2": _pad,
    "CONCATENATION": _concat, "TRANSPOSE": _transpose,
    "LOGISTIC": _unary, "TANH": _unary, "RELU": _unary, "RELU6": _unary, "HARD_SWISH": _unary,
}
