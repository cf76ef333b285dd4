"""Our own shape rules for what ONNX shape inference leaves unknown.

ONNX's inference gives up on, e.g., a Reshape whose target is computed from a dynamic Shape (the
PP-OCR rec model's attention blocks), and then every op after it has no rank either. These rules
recover ranks (and dims where easy) for the ops models use, tracking the partial *values* of small
shape tensors (``Shape -> Slice/Gather -> Concat``) so that a Reshape target like
``[N, -1, 120]`` still yields rank 3 with the static dims known.
"""

from __future__ import annotations

from collections.abc import Callable

from lite_converter.ir import Dim, Graph, Node

Shape = list[Dim]

_SAME_AS_FIRST = {
    "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Reciprocal", "Abs", "Neg", "Floor", "Ceil", "Round",
    "Sign", "Erf", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh",
    "Softplus", "Softsign", "Mish", "Not", "IsNaN", "IsInf", "HardSwish", "HardSigmoid", "LeakyRelu", "Elu",
    "Celu", "Selu", "ThresholdedRelu", "Shrink", "Gelu", "Swish", "Clip", "Identity", "Dropout", "Cast",
    "CastLike", "Softmax", "LogSoftmax", "Hardmax", "LayerNormalization", "InstanceNormalization", "LRN",
    "BatchNormalization", "CumSum", "Trilu", "ScatterElements", "ScatterND", "Scatter", "PRelu",
}
_BROADCAST = {"Add", "Sub", "Mul", "Div", "Pow", "Mod", "Max", "Min", "Sum", "Mean", "Equal", "Less",
              "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or", "Xor", "Where", "BitShift"}


def broadcast(shapes: list[Shape | None]) -> Shape | None:
    """Multidirectional (numpy) broadcast of shapes; None when a rank is unknown."""
    if any(s is None for s in shapes):
        return None
    rank = max((len(s) for s in shapes), default=0)  # type: ignore[arg-type]
    out: Shape = []
    for i in range(rank):
        dims = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]  # type: ignore[arg-type]
        non_one = [d for d in dims if d != 1]
        if not non_one:
            out.append(1)
        elif all(d == non_one[0] for d in non_one):
            out.append(non_one[0])
        else:
            ints = [d for d in non_one if isinstance(d, int)]
            out.append(ints[0] if ints else None)
    return out


class _Inference:
    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.values: dict[str, list[Dim]] = {}  # partial values of 1-D int shape tensors

    def shape(self, name: str) -> Shape | None:
        tensor = self.graph.tensors.get(name) if name else None
        return None if tensor is None else tensor.shape

    def value(self, name: str) -> list[Dim] | None:
        if not name:
            return None
        const = self.graph.constant(name)
        if const is not None:
            is_vector = const.ndim <= 1 and const.dtype.kind in "iu"
            return [int(v) for v in const.reshape(-1)] if is_vector else None
        return self.values.get(name)

    def attr_axes(self, node: Node, index: int) -> list[int] | None:
        if "axes" in node.attrs:
            return [int(a) for a in node.attrs["axes"]]
        if len(node.inputs) > index and node.inputs[index]:
            values = self.value(node.inputs[index])
            return None if values is None or None in values else [int(v) for v in values]  # type: ignore[arg-type]
        return []

    # -- partial values ----------------------------------------------------------------------------
    def propagate_value(self, node: Node) -> None:
        op, out = node.op_type, node.outputs[0] if node.outputs else ""
        if op == "Shape":
            shape = self.shape(node.inputs[0])
            if shape is not None:
                rank = len(shape)
                start, end = node.attrs.get("start", 0), node.attrs.get("end", rank)
                start, end = (max(0, min(rank, v + rank if v < 0 else v)) for v in (start, end))
                self.values[out] = [d if isinstance(d, int) else None for d in shape[start:end]]
        elif op in ("Cast", "Identity", "Squeeze", "Unsqueeze") and self.value(node.inputs[0]) is not None:
            self.values[out] = list(self.value(node.inputs[0]))  # type: ignore[arg-type]
        elif op == "Concat":
            parts = [self.value(n) for n in node.inputs if n]
            if all(p is not None for p in parts):
                self.values[out] = [d for p in parts for d in p]  # type: ignore[union-attr]
        elif op == "Gather" and node.attrs.get("axis", 0) == 0:
            data, index = self.value(node.inputs[0]), self.graph.constant(node.inputs[1])
            if data is not None and index is not None and index.ndim <= 1:
                try:
                    self.values[out] = [data[int(i)] for i in index.reshape(-1)]
                except IndexError:
                    pass
        elif op == "Slice" and len(node.inputs) >= 3:
            data = self.value(node.inputs[0])
            starts, ends = self.value(node.inputs[1]), self.value(node.inputs[2])
            steps = self.value(node.inputs[4]) if len(node.inputs) > 4 and node.inputs[4] else [1]
            if data is not None and starts and ends and steps and None not in (*starts, *ends, *steps) \
                    and len(starts) == 1:
                self.values[out] = data[slice(starts[0], ends[0], steps[0])]

    # -- shapes ------------------------------------------------------------------------------------
    def infer(self, node: Node) -> list[Shape | None]:
        rule = _RULES.get(node.op_type)
        if node.op_type in _SAME_AS_FIRST:
            return [self.shape(node.inputs[0])]
        if node.op_type in _BROADCAST:
            return [broadcast([self.shape(n) for n in node.inputs if n])]
        return rule(self, node) if rule else []


def _reshape(inf: _Inference, node: Node) -> list[Shape | None]:
    target = inf.value(node.inputs[1])
    if target is None:
        shape = inf.shape(node.inputs[1])
        return [[None] * shape[0]] if shape and isinstance(shape[0], int) else [None]
    source = inf.shape(node.inputs[0])
    out: Shape = []
    for i, d in enumerate(target):
        if d == 0 and not node.attrs.get("allowzero", 0):
            out.append(source[i] if source is not None and i < len(source) else None)
        elif d is None or d == -1:
            out.append(None)
        else:
            out.append(d)
    if -1 in target and source is not None and all(isinstance(d, int) for d in source) and \
            all(isinstance(d, int) for d in out if d is not None) and out.count(None) == 1:
        known = 1
        for d in out:
            known *= d if d is not None else 1
        total = 1
        for d in source:
            total *= d  # type: ignore[operator]
        out[out.index(None)] = total // known if known else None
    return [out]


def _transpose(inf: _Inference, node: Node) -> list[Shape | None]:
    shape = inf.shape(node.inputs[0])
    if shape is None:
        return [None]
    perm = node.attrs.get("perm", list(range(len(shape)))[::-1])
    return [[shape[p] for p in perm]]


def _reduce(inf: _Inference, node: Node) -> list[Shape | None]:
    shape = inf.shape(node.inputs[0])
    axes = inf.attr_axes(node, 1)
    if shape is None or axes is None:
        return [None]
    rank = len(shape)
    axes = [a % rank for a in axes] if axes else ([] if node.attrs.get("noop_with_empty_axes", 0) else
                                                  list(range(rank)))
    keep = node.attrs.get("keepdims", 1)
    return [[1 if i in axes else d for i, d in enumerate(shape) if keep or i not in axes]]


def _arg(inf: _Inference, node: Node) -> list[Shape | None]:
    shape = inf.shape(node.inputs[0])
    if shape is None:
        return [None]
    axis = node.attrs.get("axis", 0) % len(shape)
    keep = node.attrs.get("keepdims", 1)
    return [[1 if i == axis else d for i, d in enumerate(shape) if keep or i != axis]]


def _matmul(inf: _Inference, node: Node) -> list[Shape | None]:
    a, b = inf.shape(node.inputs[0]), inf.shape(node.inputs[1])
    if a is None or b is None or not a or not b:
        return [None]
    a2 = [1, *a] if len(a) == 1 else a
    b2 = [*b, 1] if len(b) == 1 else b
    batch = broadcast([a2[:-2], b2[:-2]]) or []
    out = [*batch, a2[-2], b2[-1]]
    if len(a) == 1:
        out.pop(-2)
    if len(b) == 1:
        out.pop(-1)
    return [out]


def _concat(inf: _Inference, node: Node) -> list[Shape | None]:
    shapes = [inf.shape(n) for n in node.inputs if n]
    if any(s is None for s in shapes) or not shapes:
        return [None]
    rank = len(shapes[0])  # type: ignore[arg-type]
    axis = node.attrs.get("axis", 0) % rank
    out = list(shapes[0])  # type: ignore[arg-type]
    parts = [s[axis] for s in shapes]  # type: ignore[index]
    out[axis] = sum(parts) if all(isinstance(p, int) for p in parts) else None  # type: ignore[arg-type]
    return [out]


def _squeeze(inf: _Inference, node: Node) -> list[Shape | None]:
    shape = inf.shape(node.inputs[0])
    axes = inf.attr_axes(node, 1)
    if shape is None or axes is None or (not axes and not all(isinstance(d, int) for d in shape)):
        return [None]
    rank = len(shape)
    drop = {a % rank for a in axes} if axes else {i for i, d in enumerate(shape) if d == 1}
    return [[d for i, d in enumerate(shape) if i not in drop]]


def _unsqueeze(inf: _Inference, node: Node) -> list[Shape | None]:
    shape = inf.shape(node.inputs[0])
    axes = inf.attr_axes(node, 1)
    if shape is None or not axes:
        return [None]
    rank = len(shape) + len(axes)
    axes_set = {a % rank for a in axes}
    rest = iter(shape)
    return [[1 if i in axes_set else next(rest) for i in range(rank)]]


def _flatten(inf: _Inference, node: Node) -> list[Shape | None]:
    shape = inf.shape(node.inputs[0])
    if shape is None:
        return [None]
    axis = node.attrs.get("axis", 1)
    axis = axis + len(shape) if axis < 0 else axis

    def prod(dims: Shape) -> Dim:
        total = 1
        for d in dims:
            if not isinstance(d, int):
                return None
            total *= d
        return total

    return [[prod(shape[:axis]), prod(shape[axis:])]]


def _same_rank(inf: _Inference, node: Node) -> list[Shape | None]:
    """Ops that keep the rank but may change any dim (Slice, Pad, Resize, Conv, pools, Tile...)."""
    shape = inf.shape(node.inputs[0])
    return [None if shape is None else [None] * len(shape)]


def _shape(inf: _Inference, node: Node) -> list[Shape | None]:
    shape = inf.shape(node.inputs[0])
    if shape is None:
        return [None]
    rank = len(shape)
    start, end = node.attrs.get("start", 0), node.attrs.get("end", rank)
    start, end = (max(0, min(rank, v + rank if v < 0 else v)) for v in (start, end))
    return [[max(0, end - start)]]


def _split(inf: _Inference, node: Node) -> list[Shape | None]:
    shape = inf.shape(node.inputs[0])
    return [None if shape is None else [None] * len(shape) for _ in node.outputs]


def _gemm(inf: _Inference, node: Node) -> list[Shape | None]:
    a, b = inf.shape(node.inputs[0]), inf.shape(node.inputs[1])
    if a is None or b is None:
        return [[None, None]]
    m = a[1] if node.attrs.get("transA", 0) else a[0]
    n = b[0] if node.attrs.get("transB", 0) else b[1]
    return [[m, n]]


_RULES: dict[str, Callable[[_Inference, Node], list[Shape | None]]] = {
    "Reshape": _reshape, "Transpose": _transpose, "MatMul": _matmul, "Gemm": _gemm, "Concat": _concat,
    "Squeeze": _squeeze, "Unsqueeze": _unsqueeze, "Flatten": _flatten, "Split": _split,
    "ArgMax": _arg, "ArgMin": _arg, "Shape": _shape, "Size": lambda inf, node: [[]],
    **{op: _reduce for op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
                              "ReduceL2", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp")},
    **{op: _same_rank for op in ("Slice", "Pad", "Resize", "Upsample", "Conv", "ConvTranspose", "MaxPool",
                                 "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "Tile",
                                 "DepthToSpace", "SpaceToDepth")},
}


def _static_dims(shape: Shape) -> int:
    return sum(isinstance(d, int) for d in shape)


def infer_missing_shapes(graph: Graph) -> None:
    """Fills shapes ONNX inference left unknown, in one topological sweep."""
    inference = _Inference(graph)
    for node in graph.nodes:
        for index, shape in enumerate(inference.infer(node)):
            if index >= len(node.outputs) or not node.outputs[index] or shape is None:
                continue
            tensor = graph.tensor(node.outputs[index])
            if tensor.shape is None or _static_dims(shape) > _static_dims(tensor.shape) \
                    and len(shape) == len(tensor.shape):
                tensor.shape = list(shape)
        inference.propagate_value(node)
