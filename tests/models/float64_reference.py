"""A float64 evaluation of an ONNX model: the yardstick that fp32 engines are both measured against.

``max|ours - ort|`` says how far we are from onnxruntime, not which of the two is right. Evaluated in
float64 the same graph is exact to ~1e-15 relative, so ``max|ours - f64|`` and ``max|ort - f64|`` are
each engine's own fp32 error, and ``ours <= 2 x ort's`` is a bound on accuracy rather than agreement.

How: every float32 tensor of the model (initializers, Constant nodes, Cast targets, graph inputs and
outputs) becomes float64, and the model runs in ``onnx.reference.ReferenceEvaluator`` (numpy, the
ONNX specification's own reference; onnxruntime has no float64 Conv). Its convolutions are Python
loops, hours on a det model, so Conv runs as float64 matrix products per kernel tap (numpy's BLAS)
and ConvTranspose as torch's float64 kernel; its BatchNormalization, which runs in training mode
on exported inference models, is replaced by the inference formula. All three are independent of
our kernels and onnxruntime's and exact to float64 rounding.
"""

from __future__ import annotations

import os

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper
from onnx.reference import ReferenceEvaluator
from onnx.reference.op_run import OpRun

# Inputs that the specification types as float32 whatever the model computes in (Resize's scales):
# left alone, the reference reads them as the numbers they are.
_FLOAT32_ONLY_INPUTS = {("Resize", 2), ("Upsample", 1)}


def _double_tensor(tensor: onnx.TensorProto) -> onnx.TensorProto:
    values = numpy_helper.to_array(tensor).astype(np.float64)
    return numpy_helper.from_array(values, tensor.name)


def as_float64(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy of ``model`` computing in float64 (external data must already be loaded)."""
    double = onnx.ModelProto()
    double.CopyFrom(model)
    graph = double.graph
    keep_float32 = {node.input[index] for node in graph.node for op, index in _FLOAT32_ONLY_INPUTS
                    if node.op_type == op and len(node.input) > index}
    for index, tensor in enumerate(graph.initializer):
        if tensor.data_type == TensorProto.FLOAT and tensor.name not in keep_float32:
            graph.initializer[index].CopyFrom(_double_tensor(tensor))
    for node in graph.node:
        if node.op_type == "Constant" and node.output[0] not in keep_float32:
            for attribute in node.attribute:
                if attribute.name == "value" and attribute.t.data_type == TensorProto.FLOAT:
                    attribute.t.CopyFrom(_double_tensor(attribute.t))
        if node.op_type in ("Cast", "ConstantOfShape"):
            for attribute in node.attribute:
                if attribute.name == "to" and attribute.i == TensorProto.FLOAT:
                    attribute.i = TensorProto.DOUBLE
                if attribute.name == "value" and attribute.t.data_type == TensorProto.FLOAT:
                    attribute.t.CopyFrom(_double_tensor(attribute.t))
    for value in [*graph.input, *graph.output]:
        if value.type.tensor_type.elem_type == TensorProto.FLOAT:
            value.type.tensor_type.elem_type = TensorProto.DOUBLE
    del graph.value_info[:]
    return double


def _pads_2d(pads: list[int] | None, auto_pad: str, x_shape: tuple[int, ...], kernel: tuple[int, ...],
             strides: list[int], dilations: list[int]) -> list[int]:
    """[top, left, bottom, right] for a 2-D convolution, auto_pad resolved as the spec says."""
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        result = [0, 0, 0, 0]
        for axis in range(2):
            size = x_shape[2 + axis]
            out = -(-size // strides[axis])
            total = max(0, (out - 1) * strides[axis] + (kernel[axis] - 1) * dilations[axis] + 1 - size)
            small, large = total // 2, total - total // 2
            result[axis], result[axis + 2] = (small, large) if auto_pad == "SAME_UPPER" else (large, small)
        return result
    return list(pads) if pads else [0, 0, 0, 0]


class Conv64(OpRun):
    """2-D Conv in float64 as one product per kernel tap: a float64 matrix product (numpy's BLAS)
    over the channels of each group, or for a depthwise convolution an elementwise product."""

    op_domain = ""

    def _run(self, x, w, b=None, auto_pad=None, dilations=None, group=None, kernel_shape=None,
             pads=None, strides=None):
        assert x.ndim == 4, "Conv64 handles 2-D convolutions only"
        x, w = np.asarray(x, np.float64), np.asarray(w, np.float64)
        stride_h, stride_w = list(strides or [1, 1])
        dilation_h, dilation_w = list(dilations or [1, 1])
        groups = group or 1
        top, left, bottom, right = _pads_2d(pads, auto_pad or "NOTSET", x.shape, w.shape[2:],
                                            [stride_h, stride_w], [dilation_h, dilation_w])
        x = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
        batch, channels, height, width = x.shape
        out_c, group_c, kernel_h, kernel_w = w.shape
        out_h = (height - dilation_h * (kernel_h - 1) - 1) // stride_h + 1
        out_w = (width - dilation_w * (kernel_w - 1) - 1) // stride_w + 1
        y = np.zeros((batch, out_c, out_h, out_w))
        per_group = out_c // groups
        depthwise = group_c == 1 and per_group == 1
        for i in range(kernel_h):
            for j in range(kernel_w):
                rows = slice(i * dilation_h, i * dilation_h + stride_h * (out_h - 1) + 1, stride_h)
                cols = slice(j * dilation_w, j * dilation_w + stride_w * (out_w - 1) + 1, stride_w)
                patch = x[:, :, rows, cols]
                if depthwise:
                    y += patch * w[:, 0, i, j][None, :, None, None]
                    continue
                for g in range(groups):
                    inputs = patch[:, g * group_c:(g + 1) * group_c].reshape(batch, group_c, -1)
                    taps = w[g * per_group:(g + 1) * per_group, :, i, j]
                    y[:, g * per_group:(g + 1) * per_group] += (taps @ inputs).reshape(batch, per_group,
                                                                                        out_h, out_w)
        if b is not None:
            y += np.asarray(b, np.float64)[None, :, None, None]
        return (y,)


class ConvTranspose64(OpRun):
    """2-D ConvTranspose in float64 through torch (explicit pads, no output_shape)."""

    op_domain = ""

    def _run(self, x, w, b=None, auto_pad=None, dilations=None, group=None, kernel_shape=None,
             output_padding=None, output_shape=None, pads=None, strides=None):
        import torch

        assert x.ndim == 4 and not output_shape and (auto_pad or "NOTSET") == "NOTSET", \
            "ConvTranspose64 handles 2-D, explicit pads only"
        top, left, bottom, right = list(pads) if pads else [0, 0, 0, 0]
        assert top == bottom and left == right, "ConvTranspose64: asymmetric pads"
        bias = None if b is None else torch.from_numpy(np.array(b, np.float64))
        y = torch.nn.functional.conv_transpose2d(
            torch.from_numpy(np.ascontiguousarray(x, np.float64)),
            torch.from_numpy(np.array(w, np.float64)),
            bias, stride=list(strides or [1, 1]), padding=[top, left],
            output_padding=list(output_padding or [0, 0]), groups=group or 1,
            dilation=list(dilations or [1, 1]))
        return (y.numpy(),)


class BatchNormalization64(OpRun):
    """Inference-mode BatchNormalization (the reference runs training mode whenever ``momentum`` is
    set, which exporters write on inference models; opsets < 14 have no training mode)."""

    op_domain = ""

    def _run(self, x, scale, bias, mean, var, epsilon=None, momentum=None, training_mode=None,
             is_test=None, spatial=None):
        assert not training_mode, "BatchNormalization64: training mode"
        shape = (-1,) + (1,) * (x.ndim - 2)
        variance = np.asarray(var).reshape(shape) + (epsilon or 1e-5)
        inverse = np.asarray(scale).reshape(shape) / np.sqrt(variance)
        return ((x - np.asarray(mean).reshape(shape)) * inverse + np.asarray(bias).reshape(shape),)


# The reference picks an override by its class name: the op type.
FLOAT64_KERNELS = [type(op_type, (kernel,), {}) for op_type, kernel in
                   [("Conv", Conv64), ("ConvTranspose", ConvTranspose64),
                    ("BatchNormalization", BatchNormalization64)]]


def float64_outputs(model: str | os.PathLike | onnx.ModelProto,
                    feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every output of the ONNX model evaluated in float64, by name."""
    proto = model if isinstance(model, onnx.ModelProto) else onnx.load(os.fspath(model))
    evaluator = ReferenceEvaluator(as_float64(proto), new_ops=FLOAT64_KERNELS)
    double_feeds = {name: value.astype(np.float64) if value.dtype == np.float32 else value
                    for name, value in feeds.items()}
    names = [output.name for output in proto.graph.output]
    return dict(zip(names, evaluator.run(names, double_feeds), strict=True))


def error_statistics(errors: np.ndarray) -> tuple[float, float, float]:
    """(rms, 99.9% quantile, max) of the |error| values ``errors`` (any shape)."""
    flat = np.asarray(errors, np.float64).ravel()
    return (float(np.sqrt(np.mean(flat * flat))), float(np.quantile(flat, 0.999)), float(flat.max()))


# The bound, on the errors of every output element pooled over several inputs:
#   rms and the 99.9% quantile of |ours - f64| <= FLOAT64_FACTOR x onnxruntime's,
#   max |ours - f64| <= MAX_FACTOR x onnxruntime's.
# Why not the maximum alone: on a det probability map the maximum sits on one steep-sigmoid pixel,
# and which pixel draws the unlucky rounding changes with any change of summation order (over 20
# clean pages one page's maximum is 1.8x onnxruntime's on the median page, 4.3x on the worst:
# docs/ACCURACY.md). The rms and the 99.9%
# quantile over several inputs are decided by many pixels; the maximum still has a loose bound, so
# one wild value fails too. The floor: a few fp32 roundings of the output's own size, where
# onnxruntime happens to be exact to the last bit or two (softmax probabilities near 0) and twice
# its error would be below what any fp32 evaluation order can promise.
FLOAT64_FACTOR = 2.0
MAX_FACTOR = 4.0
ULP_FLOOR = 4.0 * float(np.finfo(np.float32).eps)


Feeds = dict[str, np.ndarray]


def assert_float64_bound(runs: list[tuple[Feeds, Feeds]], model: str | os.PathLike | onnx.ModelProto,
                         what: str) -> dict[str, dict[str, tuple[float, float]]]:
    """Checks the bound above for every output over ``runs`` = [(feeds, our outputs), ...] (onnxruntime
    fully optimized, one thread); returns {output: {statistic: (ours, onnxruntime's)}} for a report."""
    from tests.models.oracle import onnxruntime_outputs

    source = model if isinstance(model, onnx.ModelProto) else os.fspath(model)
    ours_errors: dict[str, list[np.ndarray]] = {}
    ort_errors: dict[str, list[np.ndarray]] = {}
    scale: dict[str, float] = {}
    for feeds, ours in runs:
        exact = float64_outputs(model, feeds)
        reference = onnxruntime_outputs(source, feeds)
        for name, value in exact.items():
            assert np.isfinite(ours[name]).all(), f"{what} {name}: non-finite values"
            ours_value = np.asarray(ours[name], np.float64)
            ours_errors.setdefault(name, []).append(np.abs(ours_value - value).ravel())
            ort_errors.setdefault(name, []).append(np.abs(reference[name].astype(np.float64) - value).ravel())
            scale[name] = max(scale.get(name, 0.0), float(np.abs(value).max()))
    report: dict[str, dict[str, tuple[float, float]]] = {}
    for name in ours_errors:
        ours_stats = error_statistics(np.concatenate(ours_errors[name]))
        ort_stats = error_statistics(np.concatenate(ort_errors[name]))
        floor = ULP_FLOOR * scale[name]
        report[name] = {}
        for label, factor, ours_value, ort_value in zip(
                ("rms", "99.9% quantile", "max"), (FLOAT64_FACTOR, FLOAT64_FACTOR, MAX_FACTOR),
                ours_stats, ort_stats, strict=True):
            bound = max(factor * ort_value, floor)
            report[name][label] = (ours_value, ort_value)
            assert ours_value <= bound, (
                f"{what} {name} over {len(runs)} inputs: {label} of |ours - float64| = {ours_value:.3g} > "
                f"{bound:.3g} (onnxruntime's: {ort_value:.3g}, x{ours_value / max(ort_value, 1e-30):.2f})")
    return report
