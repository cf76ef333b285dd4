"""FLOPs of the graph as a function of how many channels each tracked axis keeps.

Each node contributes ``base x product of kept fractions`` of the tracked axes its cost scales
with: a conv its output channels and (unless depthwise) its input channels, an elementwise op the
channels of its output. The counting convention is lite_converter/flops.py's (2 per multiply-add,
1 per elementwise output, the pooling window), at the probe input's shapes, so the FLOPs a
``prune_0.5`` target keeps are the ones `lite bench` reports.

FLOPs are not what the runtime executes: a depthwise or elementwise FLOP costs several times a GEMM
FLOP (one pass over memory per few operations), and a 3x3 stride-1 convolution runs as Winograd at
about half a GEMM FLOP's cost. ``cost`` weighs each term by its kernel class's instructions per
FLOP, measured on PP-OCRv4 det at 320x320 under qemu-aarch64 (per-function counts of
benchmarks/COMPRESSION.md: GEMM panels 71.8 M instructions for ~490 MFLOP, Winograd products and
transforms 38.8 M for 618 MFLOP, depthwise 27.7 M for 43.5 MFLOP, Add/Mul 12.7 M for 17.9 MFLOP).
A FLOPs target that ignored it kept det's depthwise and elementwise channels (0.9% + 3.7% of its
FLOPs, 24% of its instructions) and its pruned instructions stayed at 0.62 for 0.50 of the FLOPs.
"""

from __future__ import annotations

import math

from lite_converter.ir import Node
from slim.pruning.channels import Axis
from slim.pruning.graph_view import GraphView
from slim.pruning.rules import _ELEMENTWISE

_NOT_COMPUTE = {"Cast", "Identity", "Dropout"}
# Instructions per FLOP of each kernel class (aarch64, see above; only their ratios matter).
GEMM_COST, WINOGRAD_COST, DEPTHWISE_COST, MEMORY_BOUND_COST = 0.146, 0.063, 0.64, 0.71
_PER_INPUT = {"GlobalAveragePool": 1, "GlobalMaxPool": 1, "ReduceMean": 1, "ReduceSum": 1, "ReduceMax": 1,
              "ReduceMin": 1, "ReduceL2": 2, "ReduceSumSquare": 2, "Softmax": 4, "LogSoftmax": 4,
              "LayerNormalization": 6, "InstanceNormalization": 6}


class FlopsModel:
    """``total(kept)``: FLOPs when tracked axis ``a`` keeps ``kept[a]`` channels (default: all);
    ``cost(kept)``: the same weighted by kernel class, an estimate of the runtime's work."""

    def __init__(self, view: GraphView, tracked: set[Axis]) -> None:
        self.view = view
        self.tracked = tracked
        self.terms: list[tuple[float, list[Axis]]] = []
        self.weights: list[float] = []
        for node in view.graph.nodes:
            term = self._term(node)
            if term is not None and term[0] > 0:
                self.terms.append(term)
                self.weights.append(self._weight(node))
        self.base_total = sum(base for base, _ in self.terms)
        self.base_cost = sum(base * w for (base, _), w in zip(self.terms, self.weights, strict=True))

    def _weight(self, node: Node) -> float:
        if node.op_type == "Conv":
            w = self.view.shape(node.inputs[1])
            if int(node.attrs.get("group", 1)) > 1:
                return DEPTHWISE_COST
            strides = node.attrs.get("strides", [1, 1])
            dilations = node.attrs.get("dilations", [1, 1])
            if w[2:] == [3, 3] and all(v == 1 for v in [*strides, *dilations]):
                return WINOGRAD_COST
            return GEMM_COST
        return GEMM_COST if node.op_type in ("ConvTranspose", "Gemm", "MatMul") else MEMORY_BOUND_COST

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

    def _factors(self, kept: dict[Axis, int] | None) -> list[float]:
        kept = kept or {}
        factors = []
        for _, axes in self.terms:
            factor = 1.0
            for axis in axes:
                if axis in kept:
                    factor *= kept[axis] / self.view.shape(axis.tensor)[axis.axis]
            factors.append(factor)
        return factors

    def total_and_cost(self, kept: dict[Axis, int] | None = None) -> tuple[float, float]:
        """FLOPs and estimated cost for ``kept`` from one pass over the terms."""
        flops = cost = 0.0
        for (base, _), w, f in zip(self.terms, self.weights, self._factors(kept), strict=True):
            flops += base * f
            cost += base * w * f
        return flops, cost

    def total(self, kept: dict[Axis, int] | None = None) -> float:
        return self.total_and_cost(kept)[0]

    def cost(self, kept: dict[Axis, int] | None = None) -> float:
        return self.total_and_cost(kept)[1]
