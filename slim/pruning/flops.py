"""FLOPs of the graph as a function of how many channels each tracked axis keeps.

Each node contributes ``base x product of kept fractions`` of the tracked axes its cost scales
with: a conv its output channels and (unless depthwise) its input channels, an elementwise op the
channels of its output. The counting convention is lite_converter/flops.py's (2 per multiply-add,
1 per elementwise output, the pooling window), at the probe input's shapes, so the FLOPs a
``prune_0.5`` target keeps are the ones `lite bench` reports.
"""

from __future__ import annotations

import math

from lite_converter.ir import Node
from slim.pruning.channels import Axis
from slim.pruning.graph_view import GraphView
from slim.pruning.rules import _ELEMENTWISE

_NOT_COMPUTE = {"Cast", "Identity", "Dropout"}
_PER_INPUT = {"GlobalAveragePool": 1, "GlobalMaxPool": 1, "ReduceMean": 1, "ReduceSum": 1, "ReduceMax": 1,
              "ReduceMin": 1, "ReduceL2": 2, "ReduceSumSquare": 2, "Softmax": 4, "LogSoftmax": 4,
              "LayerNormalization": 6, "InstanceNormalization": 6}


class FlopsModel:
    """``total(kept)``: FLOPs when tracked axis ``a`` keeps ``kept[a]`` channels (default: all)."""

    def __init__(self, view: GraphView, tracked: set[Axis]) -> None:
        self.view = view
        self.tracked = tracked
        self.terms: list[tuple[float, list[Axis]]] = []
        for node in view.graph.nodes:
            term = self._term(node)
            if term is not None and term[0] > 0:
                self.terms.append(term)
        self.base_total = sum(base for base, _ in self.terms)

    def _axes(self, name: str) -> list[Axis]:
        return [Axis(name, a) for a in range(len(self.view.shape(name))) if Axis(name, a) in self.tracked]

    def _term(self, node: Node) -> tuple[float, list[Axis]] | None:
        shape = self.view.shape
        op = node.op_type
        if not node.outputs or not node.outputs[0]:
            return None
        out = node.outputs[0]
        if op in ("Conv", "ConvTranspose"):
            x, w = node.inputs[0], node.inputs[1]
            groups = int(node.attrs.get("group", 1))
            depthwise = groups > 1 and groups == shape(x)[1]
            kernel = math.prod(shape(w)[2:])
            if op == "Conv":
                base = 2.0 * math.prod(shape(out)) * shape(w)[1] * kernel
            else:
                base = 2.0 * math.prod(shape(x)) * shape(w)[1] * kernel
            axes = [Axis(out, 1)] + ([] if depthwise else [Axis(x, 1)])
            return base, [a for a in axes if a in self.tracked]
        if op == "Gemm":
            a = node.inputs[0]
            k = shape(a)[0 if node.attrs.get("transA", 0) else 1]
            k_axis = Axis(a, 0 if node.attrs.get("transA", 0) else 1)
            axes = [x for x in [*self._axes(out), k_axis] if x in self.tracked]
            return 2.0 * math.prod(shape(out)) * k, axes
        if op == "MatMul":
            a = node.inputs[0]
            k_axis = Axis(a, len(shape(a)) - 1)
            extra = [k_axis] if k_axis in self.tracked else []
            return 2.0 * math.prod(shape(out)) * shape(a)[-1], self._axes(out) + extra
        if op in ("MaxPool", "AveragePool"):
            window = math.prod(node.attrs.get("kernel_shape", [1]))
            return float(math.prod(shape(out)) * window), self._axes(out)
        if op in _PER_INPUT:
            x = node.inputs[0]
            return float(_PER_INPUT[op] * math.prod(shape(x))), self._axes(x)
        if op in _ELEMENTWISE and op not in _NOT_COMPUTE:
            return float(math.prod(shape(out))), self._axes(out)
        return None

    def total(self, kept: dict[Axis, int] | None = None) -> float:
        kept = kept or {}
        total = 0.0
        for base, axes in self.terms:
            factor = 1.0
            for axis in axes:
                if axis in kept:
                    factor *= kept[axis] / self.view.shape(axis.tensor)[axis.axis]
            total += base * factor
        return total
