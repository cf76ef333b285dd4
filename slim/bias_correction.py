"""Bias correction (Nagel et al. 2019, "Data-Free Quantization", section 4.2; PaddleSlim's
``bias_correction``): int8 weights shift each output channel's mean by ``E[(W - W_int8) * x]``;
adding that expected error to the bias removes the shift.

Convolution is linear, so the expected error of channel c over the calibration data is
``sum_k dW[c, k] * E[window_k]``, where ``E[window_k]`` is the mean of the (zero-padded) input cells
that kernel tap k sees across all output positions. Those means are collected during calibration
(``WindowMean`` taps, one per CONV_2D / FULLY_CONNECTED input), from the fp32 model's activations,
so no second pass over the data is needed. The correction is then written into the int32 bias of
the quantized graph — the int8 arithmetic is unchanged, and the simulation stays exact.
"""

from __future__ import annotations

import numpy as np

from lite_converter.int8.params import bias_int32
from lite_converter.ir import Graph, Node
from lite_converter.passes.quantize_int8 import WEIGHTED_OPS


class WindowMean:
    """Running mean of the input cells each kernel tap of one CONV_2D / FULLY_CONNECTED sees.

    ``mean`` has shape [KH, KW, Ci] for a convolution (NHWC input) and [K] for a fully connected op.
    """

    def __init__(self, node: Node, weight_shape: tuple[int, ...]) -> None:
        self.node = node
        self.weight_shape = weight_shape
        self.total: np.ndarray | None = None
        self.count = 0

    def update(self, x: np.ndarray) -> None:
        x = np.asarray(x, np.float64)
        if self.node.op_type == "FULLY_CONNECTED":
            rows = x.reshape(-1, self.weight_shape[1])
            total, count = rows.sum(axis=0), rows.shape[0]
        else:
            total, count = self._conv_windows(x)
        self.total = total if self.total is None else self.total + total
        self.count += count

    def _conv_windows(self, x: np.ndarray) -> tuple[np.ndarray, int]:
        attrs = self.node.attrs
        _, kh, kw, _ = self.weight_shape
        sh, sw = int(attrs.get("stride_h", 1)), int(attrs.get("stride_w", 1))
        dh, dw = int(attrs.get("dilation_h", 1)), int(attrs.get("dilation_w", 1))
        pt, pl = int(attrs.get("pad_top", 0)), int(attrs.get("pad_left", 0))
        pb, pr = int(attrs.get("pad_bottom", 0)), int(attrs.get("pad_right", 0))
        n, h, w, ci = x.shape
        oh = (h + pt + pb - (dh * (kh - 1) + 1)) // sh + 1
        ow = (w + pl + pr - (dw * (kw - 1) + 1)) // sw + 1
        padded = np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)))
        total = np.empty((kh, kw, ci))
        for i in range(kh):
            for j in range(kw):
                rows = slice(i * dh, i * dh + sh * (oh - 1) + 1, sh)
                columns = slice(j * dw, j * dw + sw * (ow - 1) + 1, sw)
                total[i, j] = padded[:, rows, columns].sum(axis=(0, 1, 2))
        return total, n * oh * ow

    @property
    def mean(self) -> np.ndarray | None:
        return None if self.total is None or not self.count else self.total / self.count


def window_means(graph: Graph) -> dict[str, WindowMean]:
    """One WindowMean per CONV_2D / FULLY_CONNECTED with a constant weight, by node name."""
    means: dict[str, WindowMean] = {}
    for node in graph.nodes:
        weight = _constant_weight(graph, node)
        if weight is not None and graph.constant(node.inputs[0]) is None:
            means[node.name] = WindowMean(node, tuple(weight.shape))
    return means


def _constant_weight(graph: Graph, node: Node) -> np.ndarray | None:
    if node.op_type not in WEIGHTED_OPS or len(node.inputs) < 2:
        return None
    return graph.constant(node.inputs[1])


def expected_error(node: Node, weight_error: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """Per output channel E[(W - W_int8) * x] from the input window means."""
    if node.op_type == "FULLY_CONNECTED":
        return weight_error.reshape(weight_error.shape[0], -1) @ mean
    co, _, _, cig = weight_error.shape
    groups = mean.shape[-1] // cig
    per_group = mean.reshape(*mean.shape[:2], groups, cig)
    errors = np.einsum("gokwc,kwgc->go", weight_error.reshape(groups, co // groups, *weight_error.shape[1:]),
                       per_group)
    return errors.reshape(co)


FloatParams = tuple[np.ndarray, np.ndarray | None]


def float_params(graph: Graph) -> dict[str, FloatParams]:
    """Node name -> (fp32 weight, fp32 bias or None) of each CONV_2D / FULLY_CONNECTED, taken before
    the int8 pass replaces them."""
    params: dict[str, FloatParams] = {}
    for node in graph.nodes:
        weight = _constant_weight(graph, node)
        if weight is not None:
            bias = graph.constant(node.inputs[2]) if len(node.inputs) > 2 else None
            params[node.name] = (weight, bias)
    return params


def correct_biases(graph: Graph, fp32_params: dict[str, FloatParams], means: dict[str, WindowMean],
                   int8_nodes: list[str]) -> dict[str, np.ndarray]:
    """Adds the expected weight-quantization error to the int32 bias of each int8 CONV_2D /
    FULLY_CONNECTED of the quantized ``graph`` (a bias is created where there was none).

    ``fp32_params``: float_params() of the graph before quantization. Returns node name ->
    the real-valued correction added, per output channel.
    """
    chosen = set(int8_nodes)
    corrections: dict[str, np.ndarray] = {}
    for node in graph.nodes:
        window = means.get(node.name)
        if node.name not in chosen or node.name not in fp32_params or window is None or window.mean is None:
            continue
        q_weight = graph.tensors[node.inputs[1]]
        input_quant = graph.tensors[node.inputs[0]].quant
        if q_weight.data is None or q_weight.quant is None or input_quant is None:
            continue
        weight_scale = q_weight.quant.scale.astype(np.float32)
        per_channel = weight_scale.reshape((-1,) + (1,) * (q_weight.data.ndim - 1))
        dequantized = q_weight.data.astype(np.float64) * per_channel
        weight, bias = fp32_params[node.name]
        error = expected_error(node, weight.astype(np.float64) - dequantized, window.mean)
        corrected = error if bias is None else bias.astype(np.float64).reshape(-1) + error
        _set_bias(graph, node, corrected, np.float32(input_quant.scale.reshape(-1)[0]), weight_scale)
        corrections[node.name] = error
    graph.remove_unused_tensors()
    return corrections


def _set_bias(graph: Graph, node: Node, real: np.ndarray, input_scale: np.float32,
              weight_scale: np.ndarray) -> None:
    """Gives ``node`` a new int32 bias for the real values ``real`` (same scale as the int8 pass's; like
    its biases, stored without scale vectors)."""
    name = graph.add_constant(f"{node.name}_bias_corrected", bias_int32(real, input_scale, weight_scale))
    node.inputs = [*node.inputs[:2], name] + node.inputs[3:]
