"""TFLite image and matrix builtins -> .lite RESIZE, CONV_TRANSPOSE_2D, DEPTH_TO_SPACE, MATMUL, ...

Resize coordinates, as TFLite's reference kernels compute them (out -> in):

* RESIZE_BILINEAR: align_corners: x·(in-1)/(out-1) (ALIGN_CORNERS); half_pixel_centers:
  (x+0.5)·in/out - 0.5, clamped to the image (HALF_PIXEL); neither: x·in/out (ASYMMETRIC).
* RESIZE_NEAREST_NEIGHBOR: align_corners: round-half-up(x·(in-1)/(out-1)) (ALIGN_CORNERS,
  ROUND_PREFER_CEIL); half_pixel_centers: floor((x+0.5)·in/out) (TF_HALF_PIXEL_FOR_NN, FLOOR);
  neither: floor(x·in/out) (ASYMMETRIC, FLOOR).

TRANSPOSE_CONV takes the output shape the file asks for: its SAME / VALID padding becomes explicit
pads (and output padding when the asked size is larger than the pads allow), its [O, KH, KW, I]
weights our [I, KH, KW, O].
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from lite_converter.frontends.tflite_ops import NO_ACTIVATION, activation, fp32_op, move_op, static_shape

if TYPE_CHECKING:
    from lite_converter.frontends.tflite_frontend import TfliteGraphBuilder


def _resize(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    x, out = inputs[0], outputs[0]
    o = op.builtinOptions
    align = bool(getattr(o, "alignCorners", False)) if o is not None else False
    half_pixel = bool(getattr(o, "halfPixelCenters", False)) if o is not None else False
    if len(static_shape(b, x)) != 4:
        b.problems.append(
            f"op writing '{out}': {b.opcode_name(op)} of a rank-{len(static_shape(b, x))} input"
        )
        return
    if b.opcode_name(op) == "RESIZE_BILINEAR":
        mode, nearest = "LINEAR", "ROUND_PREFER_FLOOR"
        coordinates = "ALIGN_CORNERS" if align else "HALF_PIXEL" if half_pixel else "ASYMMETRIC"
    else:
        mode = "NEAREST"
        if align and half_pixel:
            b.problems.append(
                f"op writing '{out}': RESIZE_NEAREST_NEIGHBOR with both align_corners and half_pixel_centers"
            )
            return
        coordinates = "ALIGN_CORNERS" if align else "TF_HALF_PIXEL_FOR_NN" if half_pixel else "ASYMMETRIC"
        nearest = "ROUND_PREFER_CEIL" if align else "FLOOR"
    sizes = b.graph.add_constant(f"{out}_sizes", np.array(static_shape(b, out)[1:3], np.int64))
    attrs = {
        "mode": mode,
        "coordinate_mode": coordinates,
        "nearest_mode": nearest,
        "cubic_coeff_a": -0.75,
        "exclude_outside": False,
        "extrapolation_value": 0.0,
        "layout": "NHWC",
    }
    fp32_op(b, "RESIZE", out, [x, "", sizes], out, **attrs)


def _depth_space(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    move_op(
        b,
        b.opcode_name(op),
        outputs[0],
        inputs[:1],
        outputs,
        block_size=int(op.builtinOptions.blockSize),
        crd_mode=False,
        layout="NHWC",
    )


def _transpose_conv(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    o = op.builtinOptions
    same = o.padding == b.s.Padding.SAME
    act = activation(b, o, f"op writing '{outputs[0]}'")
    bias = inputs[3] if len(inputs) > 3 else ""
    _emit_transpose_conv(
        b, inputs[2], inputs[1], bias, outputs[0], same, (int(o.strideH), int(o.strideW)), act
    )


def _transpose_conv_bias(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    """MediaPipe's custom Convolution2DTransposeBias: inputs x, weights [O, KH, KW, I], bias; its custom
    options are TFLite's TfLiteTransposeConvParams struct as raw bytes (int32 padding: 1 SAME, 2 VALID;
    int32 stride_width; int32 stride_height), the output shape that of its output tensor."""
    raw = bytes(np.asarray(op.customOptions if op.customOptions is not None else [], np.uint8))
    if len(raw) < 12:
        b.problems.append(
            f"op writing '{outputs[0]}': Convolution2DTransposeBias options are {len(raw)} bytes, "
            "not TfLiteTransposeConvParams (12)"
        )
        return
    padding, stride_w, stride_h = (int(v) for v in np.frombuffer(raw[:12], "<i4"))
    if padding not in (1, 2) or stride_w < 1 or stride_h < 1:
        b.problems.append(
            f"op writing '{outputs[0]}': Convolution2DTransposeBias padding {padding}, strides "
            f"{stride_h}x{stride_w}"
        )
        return
    _emit_transpose_conv(
        b,
        inputs[0],
        inputs[1],
        inputs[2] if len(inputs) > 2 else "",
        outputs[0],
        padding == 1,
        (stride_h, stride_w),
        dict(NO_ACTIVATION),
    )


def _emit_transpose_conv(
    b: TfliteGraphBuilder,
    x: str,
    w: str,
    bias: str,
    out: str,
    same: bool,
    strides: tuple[int, int],
    act: dict[str, Any],
) -> None:
    weight = b.graph.tensors[w]
    if weight.data is None or weight.data.ndim != 4:
        b.problems.append(
            f"op writing '{out}': transposed-convolution weights are not a constant [O, KH, KW, I] tensor"
        )
        return
    kernel = weight.data.shape[1:3]
    in_size, out_size = static_shape(b, x)[1:3], static_shape(b, out)[1:3]
    pads, extra = [0, 0, 0, 0], [0, 0]
    for i in range(2):
        if same:
            total = max((-(-out_size[i] // strides[i]) - 1) * strides[i] + kernel[i] - out_size[i], 0)
            pads[2 * i] = total // 2
        end = (in_size[i] - 1) * strides[i] + kernel[i] - pads[2 * i] - out_size[i]
        pads[2 * i + 1], extra[i] = max(end, 0), max(-end, 0)
    weights = b.dequantized(w)
    value = np.ascontiguousarray(np.asarray(b.graph.constant(weights), np.float32).transpose(3, 1, 2, 0))
    attrs = {
        "stride_h": strides[0],
        "stride_w": strides[1],
        "dilation_h": 1,
        "dilation_w": 1,
        "pad_top": pads[0],
        "pad_bottom": pads[1],
        "pad_left": pads[2],
        "pad_right": pads[3],
        "output_padding_h": extra[0],
        "output_padding_w": extra[1],
        "padding": "EXPLICIT",
        "group": 1,
        "activation": act,
        "layout": "NHWC",
    }
    operands = [x, b.graph.add_constant(f"{w}_ihwo", value), b.dequantized(bias) if bias else ""]
    fp32_op(b, "CONV_TRANSPOSE_2D", out, operands, out, **attrs)


def _batch_matmul(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    out = outputs[0]
    o = op.builtinOptions
    operands = []
    for name, adjoint in zip(inputs[:2], (getattr(o, "adjX", False), getattr(o, "adjY", False)), strict=True):
        name = b.dequantized(name)
        if adjoint:
            shape = static_shape(b, name)
            perm = [*range(len(shape) - 2), len(shape) - 1, len(shape) - 2]
            swapped = b.graph.add_tensor(f"{name}_adjoint", np.float32, [shape[p] for p in perm])
            b.add_node("TRANSPOSE", f"{name}_adjoint", [name], [swapped], perm=perm)
            name = swapped
        operands.append(name)
    fp32_op(b, "MATMUL", out, operands, out, activation=dict(NO_ACTIVATION))


def _log_softmax(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    fp32_op(b, "LOG_SOFTMAX", outputs[0], inputs[:1], outputs[0], axis=-1)


def _lrn(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    """TF sums squares over depth ±radius, alpha as is; ONNX (our kernel) divides alpha by the size."""
    o = op.builtinOptions
    size = 2 * int(o.radius) + 1
    fp32_op(
        b,
        "LRN_NHWC",
        outputs[0],
        inputs[:1],
        outputs[0],
        size=size,
        alpha=float(o.alpha) * size,
        beta=float(o.beta),
        bias=float(o.bias),
    )


def _l2_normalization(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    """x / sqrt(max(sum(x², last axis), 1e-6)), as TFLite's kernel (epsilon 1e-6)."""
    out = outputs[0]
    target, finish = b.fp32_output(out)
    x = b.dequantized(inputs[0])
    shape = static_shape(b, x)
    reduced = shape[:-1] + [1]
    squares = b.graph.add_tensor(f"{out}_sum_squares", np.float32, reduced)
    b.add_node(
        "REDUCE_SUM_SQUARE",
        f"{out}_sum_squares",
        [x],
        [squares],
        axes=[len(shape) - 1],
        keepdims=True,
        noop_with_empty_axes=False,
    )
    floor = b.graph.add_tensor(f"{out}_floored", np.float32, reduced)
    act = dict(NO_ACTIVATION)
    b.add_node(
        "MAXIMUM",
        f"{out}_floor",
        [squares, b.graph.add_constant(f"{out}_epsilon", np.array(1e-6, np.float32))],
        [floor],
        activation=act,
    )
    inverse = b.graph.add_tensor(f"{out}_rsqrt", np.float32, reduced)
    b.add_node("RSQRT", f"{out}_rsqrt", [floor], [inverse])
    b.add_node("MUL", out, [x, inverse], [target], activation=act)
    finish()


CONVERTERS = {
    "RESIZE_BILINEAR": _resize,
    "RESIZE_NEAREST_NEIGHBOR": _resize,
    "DEPTH_TO_SPACE": _depth_space,
    "SPACE_TO_DEPTH": _depth_space,
    "CUSTOM:Convolution2DTransposeBias": _transpose_conv_bias,
    "TRANSPOSE_CONV": _transpose_conv,
    "BATCH_MATMUL": _batch_matmul,
    "LOG_SOFTMAX": _log_softmax,
    "LOCAL_RESPONSE_NORMALIZATION": _lrn,
    "L2_NORMALIZATION": _l2_normalization,
}
