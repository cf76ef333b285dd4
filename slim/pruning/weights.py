"""Per-layer pruning functions, declared as data: which axis of which constant input follows which
tracked tensor axis.

A conv's weight axis 0 follows its output channels and axis 1 its input channels (in-group
indices for grouped convolutions); a BatchNorm's four vectors follow its channels; a per-channel
constant of an Add or Mul follows the output axis it broadcasts along. The same table serves
removal (np.delete), the zeroed reference model the exactness tests compare with, and the
importance criteria, which read the slices a unit would remove.
"""

from __future__ import annotations

import dataclasses

from lite_converter.ir import Node
from slim.pruning.channels import Axis
from slim.pruning.graph_view import GraphView

OUT, IN, PARAM = "out", "in", "param"


@dataclasses.dataclass(frozen=True)
class WeightAxis:
    """Axis ``const_axis`` of the constant at ``input_index`` follows the tracked ``axis``.

    per_group > 0: the constant axis holds in-group indices (grouped convolutions), so channel c
    is index c % per_group there. zero: whether the zeroed reference zeroes it (not a divisor).
    role: OUT (a weighted layer's output slice), IN (its input slice) or PARAM (per-channel
    normalization / affine values).
    """

    input_index: int
    const_axis: int
    axis: Axis
    role: str
    per_group: int = 0
    zero: bool = True


def _const(view: GraphView, node: Node, index: int) -> bool:
    return len(node.inputs) > index and view.is_constant(node.inputs[index])


def _conv(view: GraphView, node: Node) -> list[WeightAxis]:
    x, out = node.inputs[0], node.outputs[0]
    if not _const(view, node, 1):
        return []
    groups = int(node.attrs.get("group", 1))
    c_in, c_out = view.shape(x)[1], view.shape(out)[1]
    result: list[WeightAxis] = []
    if _const(view, node, 2):
        result.append(WeightAxis(2, 0, Axis(out, 1), OUT))
    if node.op_type == "Conv":  # W [c_out, c_in / groups, k...]
        result.append(WeightAxis(1, 0, Axis(out, 1), OUT))
        if groups == 1:
            result.append(WeightAxis(1, 1, Axis(x, 1), IN))
        elif groups != c_in:
            result.append(WeightAxis(1, 1, Axis(x, 1), IN, per_group=c_in // groups))
        return result
    # ConvTranspose: W [c_in, c_out / groups, k...]
    if groups == 1:
        result += [WeightAxis(1, 1, Axis(out, 1), OUT), WeightAxis(1, 0, Axis(x, 1), IN)]
    elif groups == c_in:
        result.append(WeightAxis(1, 0, Axis(x, 1), OUT))
    else:
        result += [WeightAxis(1, 1, Axis(out, 1), OUT, per_group=c_out // groups),
                   WeightAxis(1, 0, Axis(x, 1), IN)]
    return result


def _gemm(view: GraphView, node: Node) -> list[WeightAxis]:
    a, out = node.inputs[0], node.outputs[0]
    result: list[WeightAxis] = []
    if _const(view, node, 1):
        trans_a, trans_b = int(node.attrs.get("transA", 0)), int(node.attrs.get("transB", 0))
        k_b, n_b = (1, 0) if trans_b else (0, 1)
        result += [WeightAxis(1, n_b, Axis(out, 1), OUT),
                   WeightAxis(1, k_b, Axis(a, 0 if trans_a else 1), IN)]
    if _const(view, node, 2):
        bias = view.constant(node.inputs[2])
        n = view.shape(out)[1]
        if bias.ndim >= 1 and bias.shape[-1] == n and n > 1:
            result.append(WeightAxis(2, bias.ndim - 1, Axis(out, 1), OUT))
    return result


def _matmul(view: GraphView, node: Node) -> list[WeightAxis]:
    a, b, out = node.inputs[0], node.inputs[1], node.outputs[0]
    ra, rb, ro = len(view.shape(a)), len(view.shape(b)), len(view.shape(out))
    if ra < 2 or rb < 2:
        return []
    if view.is_constant(b) and not view.is_constant(a):
        return [WeightAxis(1, rb - 1, Axis(out, ro - 1), OUT), WeightAxis(1, rb - 2, Axis(a, ra - 1), IN)]
    if view.is_constant(a) and not view.is_constant(b):
        return [WeightAxis(0, ra - 2, Axis(out, ro - 2), OUT), WeightAxis(0, ra - 1, Axis(b, rb - 2), IN)]
    return []


def _normalization(view: GraphView, node: Node) -> list[WeightAxis]:
    x = node.inputs[0]
    if node.op_type == "LayerNormalization":
        rank = len(view.shape(x))
        result = []
        for index in (1, 2):
            if _const(view, node, index):
                value = view.constant(node.inputs[index])
                for j in range(value.ndim):
                    result.append(WeightAxis(index, j, Axis(x, rank - value.ndim + j), PARAM))
        return result
    last = 5 if node.op_type == "BatchNormalization" else 3
    return [WeightAxis(i, 0, Axis(x, 1), PARAM, zero=i <= 2)
            for i in range(1, last) if _const(view, node, i) and view.constant(node.inputs[i]).ndim == 1]


_NOT_ZEROED = {("Div", 1), ("Pow", 1), ("PRelu", 1), ("Where", 0)}


def _broadcast_constants(view: GraphView, node: Node) -> list[WeightAxis]:
    out = node.outputs[0]
    so = view.shape(out)
    result = []
    for index, name in enumerate(node.inputs):
        if not name or not view.is_constant(name):
            continue
        value = view.constant(name)
        for j in range(value.ndim):
            out_axis = j + len(so) - value.ndim
            if out_axis >= 0 and value.shape[j] > 1 and value.shape[j] == so[out_axis]:
                result.append(WeightAxis(index, j, Axis(out, out_axis), PARAM,
                                         zero=(node.op_type, index) not in _NOT_ZEROED))
    return result


_ELEMENTWISE_WITH_CONSTANTS = {"Add", "Sub", "Mul", "Div", "Pow", "PRelu", "Where", "Max", "Min", "Sum",
                               "Mean"}


def weight_axes(view: GraphView, node: Node) -> list[WeightAxis]:
    """The constant axes of ``node`` that follow tracked axes (see WeightAxis)."""
    if node.domain:
        return []
    if node.op_type in ("Conv", "ConvTranspose"):
        return _conv(view, node)
    if node.op_type == "Gemm":
        return _gemm(view, node)
    if node.op_type == "MatMul":
        return _matmul(view, node)
    if node.op_type in ("BatchNormalization", "InstanceNormalization", "LayerNormalization"):
        return _normalization(view, node)
    if node.op_type in _ELEMENTWISE_WITH_CONSTANTS:
        return _broadcast_constants(view, node)
    return []
