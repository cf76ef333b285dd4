"""Bias compensation: what a removed input channel contributed on average goes into the consumer's bias.

A channel removed from a layer's input was rarely zero: after BatchNorm and a shifted activation
(hardswish, PP-LCNet's learnable affine blocks) it carries a large mean, and cutting it shifts every
output of the consumer by ``W[:, c] . mean(x_c)``. On compact models (PP-OCRv4 rec) that shift,
not the lost variation, is what destroys the pruned model before fine-tuning. Adding it back to
the consumer's bias is the least-squares best bias-only correction (the mean minimizes
``E|W_c x_c - b|^2`` over b), needs only a forward pass over a few batches, and is exact for
channels that are constant. The idea is old (e.g. "bias compensation" in channel-pruning papers
such as ThiNet's reconstruction and NVIDIA's mean-replacement); this is our own writing of it.

Handled consumers: Conv with ``group == 1`` (sum of the kernel over its window; borders with
padding see less, an approximation), Gemm (``transA = 0``; a bias is added when there is none),
and MatMul with a constant right-hand side followed by an Add of a constant bias. Others (grouped
convolutions lose the channel's output too; elementwise consumers) are left as they are.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping

import numpy as np
import torch

from lite_converter.ir import Graph, Node
from slim.pruning.apply import Plan
from slim.pruning.channels import Axis
from slim.pruning.graph_view import GraphView
from slim.pruning.weights import IN, weight_axes
from slim.torch_ir.module import GraphModule


def _consumers(view: GraphView, plan: Plan) -> list[tuple[Node, Axis, np.ndarray]]:
    """(node, pruned input axis, removed indices) of every consumer whose input slice a plan cuts."""
    result = []
    for node in view.graph.nodes:
        if node.op_type not in ("Conv", "Gemm", "MatMul"):
            continue
        for wa in weight_axes(view, node):
            removed = plan.get(wa.axis)
            if wa.role == IN and not wa.per_group and removed is not None and len(removed):
                result.append((node, wa.axis, np.asarray(removed)))
    return result


def channel_means(graph: Graph, axes: Iterable[Axis],
                  batches: Iterable[Mapping[str, np.ndarray]]) -> dict[Axis, np.ndarray]:
    """The mean of every channel of each axis over ``batches`` (float64), by one forward each."""
    wanted = sorted(set(axes), key=lambda a: (a.tensor, a.axis))
    sums: dict[Axis, np.ndarray] = {}
    counts = 0
    module = GraphModule(graph).eval()
    with torch.no_grad():
        for feeds in batches:
            values = module.run(feeds, keep=[a.tensor for a in wanted])
            counts += 1
            for axis in wanted:
                value = values[axis.tensor].double()
                other = [d for d in range(value.dim()) if d != axis.axis]
                mean = value.mean(dim=other).numpy() if other else value.numpy()
                sums[axis] = sums.get(axis, 0.0) + mean
    return {axis: total / counts for axis, total in sums.items()} if counts else {}


def _shift(node: Node, graph: Graph, removed: np.ndarray, mean: np.ndarray) -> np.ndarray | None:
    """The per-output-channel shift that removing ``removed`` input channels (at ``mean``) causes."""
    weight = np.asarray(graph.constant(node.inputs[1]), dtype=np.float64)
    if node.op_type == "Conv":
        window = weight[:, removed].reshape(weight.shape[0], len(removed), -1).sum(axis=2)
        return window @ mean[removed]
    if node.op_type == "Gemm":
        if int(node.attrs.get("transA", 0)):
            return None
        rows = weight[removed] if not int(node.attrs.get("transB", 0)) else weight[:, removed].T
        return float(node.attrs.get("alpha", 1.0)) * (mean[removed] @ rows)
    if weight.ndim != 2:  # MatMul with a batched weight
        return None
    return mean[removed] @ weight[removed]


def _bias_slot(node: Node, graph: Graph, view: GraphView, size: int) -> tuple[Node, int] | None:
    """Where the shift is added: the node's own bias input, or the constant of a following Add."""
    if node.op_type in ("Conv", "Gemm"):
        return node, 2
    users = view.consumers.get(node.outputs[0], [])
    if len(users) != 1 or users[0].op_type != "Add":
        return None
    add = users[0]
    for index, name in enumerate(add.inputs):
        value = graph.constant(name)
        if value is not None and value.shape[-1:] == (size,) and value.size == size:
            return add, index
    return None


def compensate(view: GraphView, plan: Plan, batches: Iterable[Mapping[str, np.ndarray]]) -> GraphView:
    """A copy of ``view`` whose consumers of pruned channels carry the removed channels' mean
    contribution in their bias; ``apply_plan`` on it cuts the same channels as on ``view``."""
    targets = _consumers(view, plan)
    if not targets:
        return view
    means = channel_means(view.graph, [axis for _, axis, _ in targets], batches)
    graph = copy.deepcopy(view.graph)
    result = GraphView(graph, view.shapes)
    by_name = {node.name: node for node in graph.nodes}
    for original, axis, removed in targets:
        node = by_name[original.name]
        shift = _shift(node, graph, removed, means[axis])
        if shift is None:
            continue
        slot = _bias_slot(node, graph, result, shift.shape[0])
        if slot is None:
            continue
        owner, index = slot
        name = owner.inputs[index] if index < len(owner.inputs) else ""
        bias = graph.constant(name)
        if bias is None:
            bias = np.zeros(shift.shape[0], np.float32)
            owner.inputs.extend([""] * (index + 1 - len(owner.inputs)))
        updated = (np.asarray(bias, np.float64) + shift.reshape(bias.shape[-1:])).astype(bias.dtype)
        owner.inputs[index] = graph.add_constant(f"{name or owner.name}_compensated", updated)
    return GraphView(graph, view.shapes)

