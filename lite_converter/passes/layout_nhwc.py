"""Layout pass: activations inside the model become channels-last; the boundary keeps the user's layout.

Every logical tensor ``t`` (as the source model sees it) is held by some physical tensor whose data
is ``t`` transposed by a permutation ``perm`` (physical dim i = logical dim perm[i]). The pass walks
the lowered graph in order and decides per op (lite_ops.LAYOUT_CLASS):

* channels-last ops get their data input in NHWC, their weights transposed once at conversion
  (OIHW -> OHWI, ConvTranspose [Cin, Cout/g, KH, KW] -> [Cin, KH, KW, Cout/g]), and produce NHWC;
* elementwise ops keep the layout of their operands (constants are broadcast to full rank and
  permuted at conversion time);
* axis ops keep the layout too, with their axes remapped;
* TRANSPOSE is absorbed into the permutation (no op is written for it);
* SHAPE reads the physical shape through a `perm` option;
* everything else gets the logical layout back.

Transposes are materialized lazily, only where an op needs a layout its input does not have, and
at most once per (tensor, layout), always from the tensor that holds the data: transposes are
therefore never chained, and identity transposes are never written. A transpose that only moves
size-1 dims (the [N,1,1,C] after a global pool) is written as a RESHAPE, which the runtime aliases.
Graph inputs keep their names and layout; graph outputs are brought back to their logical layout
under their original names.
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np

from lite_converter.ir import ConversionError, Dim, Graph, Node, QuantParams, Tensor
from lite_converter.lite_ops import LAYOUT_CLASS, OPS, LayoutClass
from lite_converter.passes import layout_reshape
from lite_converter.passes.shape_values import ShapeValues

Perm = tuple[int, ...]
NHWC: Perm = (0, 2, 3, 1)

# Ops that only reinterpret the data's shape: they can often run on permuted data (layout_reshape).
_RESHAPE_LIKE = {"RESHAPE", "FLATTEN", "SQUEEZE", "UNSQUEEZE"}

# Channels-last ops whose input 1 is a weight with a spatial layout to transpose the same way.
_SPATIAL_WEIGHT_OPS = {"CONV_2D", "CONV_TRANSPOSE_2D"}


def to_channels_last(graph: Graph) -> None:
    """Rewrites a lowered graph in place so that channels-last ops run on NHWC data."""
    _LayoutRewriter(graph).run()


def _identity(rank: int) -> Perm:
    return tuple(range(rank))


def _is_identity(perm: Perm | None) -> bool:
    return perm is None or perm == _identity(len(perm))


def _inverse(perm: Perm) -> Perm:
    result = [0] * len(perm)
    for i, p in enumerate(perm):
        result[p] = i
    return tuple(result)


def _permute(values: list[Any], perm: Perm) -> list[Any]:
    return [values[p] for p in perm]


def _normalize_axis(axis: int, rank: int, where: str) -> int:
    if not -rank <= axis < rank:
        raise ConversionError(f"{where}: axis {axis} out of range for rank {rank}")
    return axis % rank


def _remap_quant(quant: QuantParams | None, perm: Perm) -> QuantParams | None:
    """Quantization of the same data stored transposed by ``perm``: the channel axis moves."""
    if quant is None or quant.axis is None:
        return quant
    return QuantParams(quant.scale, quant.zero_point, _inverse(perm)[quant.axis % len(perm)])


def _dropped_dims_perm(perm: Perm, dropped_logical: set[int]) -> Perm:
    """Perm of the result when logical dims ``dropped_logical`` vanish (keepdims=0 reductions)."""
    kept = [p for p in perm if p not in dropped_logical]
    order = sorted(kept)
    return tuple(order.index(p) for p in kept)


class _LayoutRewriter:
    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.logical_shape: dict[str, list[Dim] | None] = {
            name: None if t.shape is None else list(t.shape) for name, t in graph.tensors.items()
        }
        # logical tensor -> (physical tensor holding its data, perm; None = identity)
        self.where: dict[str, tuple[str, Perm | None]] = {}
        self.materialized: dict[tuple[str, Perm], str] = {}
        self.nodes: list[Node] = []
        self.graph_outputs = set(graph.outputs)
        self.node_names = {node.name for node in graph.nodes}
        self.shape_values = ShapeValues(graph, self.logical_shape)

    # -- bookkeeping ------------------------------------------------------------------------------
    def run(self) -> None:
        handlers = {
            LayoutClass.CHANNELS_LAST: self._channels_last,
            LayoutClass.ELEMENTWISE: self._elementwise,
            LayoutClass.AXIS: self._axis_op,
            LayoutClass.LOGICAL: self._logical,
            LayoutClass.TRANSPOSE: self._transpose,
            LayoutClass.SHAPE: self._shape,
            LayoutClass.ANY: self._any_layout,
        }
        for node in self.graph.nodes:
            layout_class = LAYOUT_CLASS.get(node.op_type)
            if layout_class is None:
                raise ConversionError(
                    f"node '{node.name}' ({node.op_type}) is not a lowered .lite op: run lower_to_lite first"
                )
            self._record_shape_value(node)
            if node.op_type in _RESHAPE_LIKE:
                self._reshape_like(node)
            else:
                handlers[layout_class](node)
        self.graph.nodes = self.nodes
        self._restore_graph_outputs()
        self.graph.remove_unused_tensors()

    def _current(self, name: str) -> tuple[str, Perm | None]:
        return self.where.get(name, (name, None))

    def _rank(self, name: str) -> int | None:
        _, perm = self._current(name)
        if perm is not None:
            return len(perm)
        shape = self.logical_shape.get(name)
        if shape is None and name in self.graph.tensors and self.graph.tensors[name].data is not None:
            shape = list(self.graph.tensors[name].data.shape)
        return None if shape is None else len(shape)

    def _perm_of(self, name: str) -> Perm | None:
        """The current perm of a logical tensor, spelled out when its rank is known."""
        perm = self._current(name)[1]
        rank = self._rank(name)
        return perm if perm is not None or rank is None else _identity(rank)

    def _is_constant(self, name: str) -> bool:
        return bool(name) and self.graph.constant(self._current(name)[0]) is not None

    def _set_output(self, name: str, perm: Perm | None) -> str:
        """Records that op output ``name`` is written with ``perm``; returns its physical name."""
        if not name:
            return name
        if _is_identity(perm):
            self.where[name] = (name, None)
            return name
        assert perm is not None
        tensor = self.graph.tensor(name)
        logical = self.logical_shape.get(name)
        physical_shape = None if logical is None else _permute(logical, perm)
        physical = name
        if name in self.graph_outputs:  # the logical name stays for the transposed-back output
            physical = self.graph.unique_name(f"{name}_nhwc")
            self.graph.tensors[physical] = Tensor(physical, tensor.dtype, physical_shape)
        else:
            tensor.shape = physical_shape
        self.graph.tensors[physical].quant = _remap_quant(tensor.quant, perm)
        self.where[name] = (physical, perm)
        return physical

    # -- getting a tensor in a wanted layout -------------------------------------------------------
    def _fetch(self, name: str, want: Perm | None) -> str:
        """The physical tensor holding logical ``name`` transposed by ``want`` (None = logical)."""
        if not name:
            return name
        source, current = self._current(name)
        if current is None and want is None:
            return source
        rank = len(want) if want is not None else len(current)  # type: ignore[arg-type]
        current = current or _identity(rank)
        want = want or _identity(rank)
        if len(current) != len(want):
            raise ConversionError(f"tensor '{name}': rank {len(current)} cannot take layout {want}")
        step = tuple(_inverse(current)[w] for w in want)
        if _is_identity(step):
            return source
        key = (source, step)
        if key not in self.materialized:
            self.materialized[key] = self._transpose_tensor(source, step)
        return self.materialized[key]

    def _transpose_tensor(self, source: str, step: Perm) -> str:
        tensor = self.graph.tensors[source]
        if tensor.data is not None:
            name = self.graph.add_constant(f"{source}_perm", np.transpose(tensor.data, step))
            self.graph.tensors[name].quant = _remap_quant(tensor.quant, step)
            return name
        shape = None if tensor.shape is None else _permute(list(tensor.shape), step)
        name = self.graph.add_tensor(f"{source}_perm", tensor.dtype, shape)
        self.graph.tensors[name].quant = _remap_quant(tensor.quant, step)
        reshape_to = _reshape_equivalent(tensor.shape, step)
        if reshape_to is not None:
            target = self.graph.add_constant(f"{name}_shape", np.array(reshape_to, np.int64))
            self._emit("RESHAPE", f"{source}_to_perm", [source, target], [name], {"allowzero": False})
        else:
            self._emit("TRANSPOSE", f"{source}_transpose", [source], [name], {"perm": list(step)})
        return name

    def _emit(
        self, op_type: str, hint: str, inputs: list[str], outputs: list[str], attrs: dict[str, Any]
    ) -> None:
        name = self.graph.unique_name(hint)
        while name in self.node_names:
            name = self.graph.unique_name(f"{hint}_{len(self.node_names)}")
        self.node_names.add(name)
        self.nodes.append(Node(op_type, name, inputs, outputs, attrs))

    def _broadcast_constant(self, name: str, rank: int, perm: Perm) -> str:
        """A constant operand of an elementwise op, padded to ``rank`` dims and permuted."""
        source = self._current(name)[0]
        data = self.graph.tensors[source].data
        assert data is not None
        if data.size == 1 and data.ndim <= rank:
            return source  # a scalar broadcasts the same in any layout
        if data.ndim == rank:
            return self._fetch(name, perm)
        key = (source, (-rank, *perm))
        if key not in self.materialized:
            padded = data.reshape((1,) * (rank - data.ndim) + data.shape)
            new = self.graph.add_constant(f"{source}_perm", np.transpose(padded, perm))
            quant = self.graph.tensors[source].quant
            if quant is not None and quant.axis is not None:
                quant = QuantParams(quant.scale, quant.zero_point, quant.axis % data.ndim + rank - data.ndim)
            self.graph.tensors[new].quant = _remap_quant(quant, perm)
            self.materialized[key] = new
        return self.materialized[key]

    def _broadcast_activation(self, name: str, rank: int, perm: Perm) -> str:
        """A lower-rank non-constant operand: unsqueezed to ``rank`` dims, then permuted."""
        source = self._fetch(name, None)
        tensor = self.graph.tensors[source]
        if tensor.shape is not None and all(d == 1 for d in tensor.shape):
            return source
        key = (source, (-rank, *perm))
        if key not in self.materialized:
            old_rank = len(tensor.shape) if tensor.shape is not None else self._rank(name)
            assert old_rank is not None
            shape = None if tensor.shape is None else [1] * (rank - old_rank) + list(tensor.shape)
            expanded = self.graph.add_tensor(f"{source}_rank{rank}", tensor.dtype, shape)
            self._emit(
                "UNSQUEEZE",
                f"{source}_unsqueeze",
                [source],
                [expanded],
                {"axes": list(range(rank - old_rank))},
            )
            self.where[expanded] = (expanded, None)
            self.logical_shape[expanded] = shape
            self.materialized[key] = self._fetch(expanded, perm)
        return self.materialized[key]

    # -- op classes -------------------------------------------------------------------------------
    def _logical(self, node: Node) -> None:
        node.inputs = [self._fetch(name, None) for name in node.inputs]
        node.outputs = [self._set_output(name, None) for name in node.outputs]
        self.nodes.append(node)

    def _any_layout(self, node: Node) -> None:
        node.inputs = [self._current(name)[0] if name else name for name in node.inputs]
        node.outputs = [self._set_output(name, None) for name in node.outputs]
        self.nodes.append(node)

    def _channels_last(self, node: Node) -> None:
        if node.attrs.get("layout") == "NHWC":
            return self._logical(node)  # already channels-last in the source (or a second run)
        rank = self._rank(node.inputs[0])
        if rank is not None and rank != 4:
            raise ConversionError(
                f"node '{node.name}' ({node.op_type}) needs a rank-4 input, got rank {rank}"
            )
        inputs = list(node.inputs)
        inputs[0] = self._fetch(inputs[0], NHWC)
        for i in range(1, len(inputs)):
            weight = i == 1 and node.op_type in _SPATIAL_WEIGHT_OPS
            inputs[i] = self._fetch(inputs[i], NHWC if weight else None)
        node.inputs = inputs
        node.outputs = [self._set_output(name, NHWC) for name in node.outputs]
        node.attrs["layout"] = "NHWC"
        self.nodes.append(node)

    def _common_perm(self, names: list[str], rank: int) -> Perm:
        """The layout for an op whose operands must share one: the one needing the fewest new
        transposes (a transpose already materialized for another consumer is free), then the one
        most operands have, then a non-logical one (channels-last nets stay channels-last)."""
        operands = [n for n in names if n and not self._is_constant(n)]
        full_rank = [n for n in operands if self._rank(n) == rank]
        votes = collections.Counter(self._perm_of(n) for n in full_rank)
        if not votes:
            return _identity(rank)

        def new_transposes(perm: Perm) -> int:
            cost = sum(self._needs_transpose(n, perm) for n in full_rank)
            return cost + (0 if _is_identity(perm) else len(operands) - len(full_rank))

        candidates = set(votes) | {_identity(rank)}
        return min(candidates, key=lambda p: (new_transposes(p), -votes[p], _is_identity(p)))

    def _needs_transpose(self, name: str, want: Perm) -> bool:
        source, current = self._current(name)
        current = current or _identity(len(want))
        step = tuple(_inverse(current)[w] for w in want)
        return not _is_identity(step) and (source, step) not in self.materialized

    def _elementwise(self, node: Node) -> None:
        ranks = [self._rank(name) for name in node.inputs if name]
        out_rank = self._rank(node.outputs[0])
        if out_rank is None and ranks and all(r is not None for r in ranks):
            out_rank = max(r for r in ranks if r is not None)
        if out_rank is None or any(r is None for r in ranks):
            return self._logical(node)
        perm = self._common_perm(node.inputs, out_rank)
        if _is_identity(perm):
            return self._logical(node)
        inputs = []
        for name in node.inputs:
            rank = self._rank(name) if name else None
            if not name:
                inputs.append(name)
            elif self._is_constant(name):
                inputs.append(self._broadcast_constant(name, out_rank, perm))
            elif rank == out_rank:
                inputs.append(self._fetch(name, perm))
            else:
                assert rank is not None
                inputs.append(self._broadcast_activation(name, out_rank, perm))
        node.inputs = inputs
        node.outputs = [self._set_output(name, perm) for name in node.outputs]
        self.nodes.append(node)

    def _transpose(self, node: Node) -> None:
        source, current = self._current(node.inputs[0])
        rank = self._rank(node.inputs[0])
        if rank is None:
            return self._logical(node)
        order = tuple(node.attrs.get("perm") or reversed(range(rank)))
        current = current or _identity(rank)
        inverse_order = _inverse(order)
        # No op: the output is the same data, read through a different permutation.
        self.where[node.outputs[0]] = (source, tuple(inverse_order[c] for c in current))

    def _shape(self, node: Node) -> None:
        source, current = self._current(node.inputs[0])
        if _is_identity(current) or node.attrs.get("perm"):
            return self._logical(node)
        assert current is not None
        node.inputs = [source]
        node.attrs["perm"] = list(_inverse(current))
        node.outputs = [self._set_output(name, None) for name in node.outputs]
        self.nodes.append(node)

    # -- axis ops ---------------------------------------------------------------------------------
    def _axis_op(self, node: Node) -> None:
        if node.op_type == "CONCAT":
            return self._concat(node)
        perm = self._perm_of(node.inputs[0])
        if _is_identity(perm):
            return self._logical(node)
        assert perm is not None
        handler = {
            "SPLIT": self._single_axis,
            "SOFTMAX": self._single_axis,
            "LOG_SOFTMAX": self._single_axis,
            "HARDMAX": self._single_axis,
            "ARG_MAX": self._arg,
            "ARG_MIN": self._arg,
            "SLICE": self._slice,
            "PAD": self._pad,
            "GATHER": self._gather,
            "CUMSUM": self._cumsum,
            "LAYER_NORM": self._layer_norm,
            **{op: self._reduce for op, info in OPS.items() if info.options == "ReduceOptions"},
        }.get(node.op_type)
        if handler is None or not handler(node, perm):  # an AXIS op without a handler here runs logical
            return self._logical(node)

    def _finish_axis_op(self, node: Node, perm: Perm, out_perm: Perm | None = None) -> bool:
        node.inputs = [self._current(node.inputs[0])[0], *(self._fetch(n, None) for n in node.inputs[1:])]
        node.outputs = [
            self._set_output(name, perm if out_perm is None else out_perm) for name in node.outputs
        ]
        self.nodes.append(node)
        return True

    def _physical_axis(self, node: Node, axis: int, perm: Perm) -> int:
        return _inverse(perm)[_normalize_axis(int(axis), len(perm), f"node '{node.name}'")]

    def _concat(self, node: Node) -> None:
        rank = self._rank(node.outputs[0]) or self._rank(node.inputs[0])
        if rank is None:
            return self._logical(node)
        perm = self._common_perm(node.inputs, rank)
        if _is_identity(perm):
            return self._logical(node)
        node.attrs["axis"] = self._physical_axis(node, node.attrs.get("axis", 0), perm)
        node.inputs = [self._fetch(name, perm) for name in node.inputs]
        node.outputs = [self._set_output(name, perm) for name in node.outputs]
        self.nodes.append(node)

    def _single_axis(self, node: Node, perm: Perm) -> bool:
        default = -1 if "SOFTMAX" in node.op_type or node.op_type == "HARDMAX" else 0
        node.attrs["axis"] = self._physical_axis(node, node.attrs.get("axis", default), perm)
        return self._finish_axis_op(node, perm)

    def _reduce(self, node: Node, perm: Perm) -> bool:
        if len([n for n in node.inputs[1:] if n]) > 0:
            return False  # axes as a tensor: not remapped here
        axes = [
            _normalize_axis(int(a), len(perm), f"node '{node.name}'") for a in node.attrs.get("axes") or []
        ]
        keepdims = bool(node.attrs.get("keepdims", True))
        if not axes:
            if node.attrs.get("noop_with_empty_axes", False) or keepdims:
                return self._finish_axis_op(node, perm)
            return self._finish_axis_op(node, perm, ())
        node.attrs["axes"] = sorted(_inverse(perm)[a] for a in axes)
        return self._finish_axis_op(node, perm, perm if keepdims else _dropped_dims_perm(perm, set(axes)))

    def _arg(self, node: Node, perm: Perm) -> bool:
        axis = _normalize_axis(int(node.attrs.get("axis", 0)), len(perm), f"node '{node.name}'")
        node.attrs["axis"] = _inverse(perm)[axis]
        keepdims = bool(node.attrs.get("keepdims", True))
        return self._finish_axis_op(node, perm, perm if keepdims else _dropped_dims_perm(perm, {axis}))

    def _constant_input(self, node: Node, index: int) -> np.ndarray | None:
        if index >= len(node.inputs) or not node.inputs[index]:
            return None
        return self.graph.constant(self._current(node.inputs[index])[0])

    def _slice(self, node: Node, perm: Perm) -> bool:
        inputs = list(node.inputs) + [""] * (5 - len(node.inputs))
        axes = self._constant_input(node, 3)
        if inputs[3] and axes is None:
            return False
        if axes is None:
            starts = self._constant_input(node, 1)
            count = starts.size if starts is not None else self._static_length(inputs[1])
            if count is None:
                return False
            axes = np.arange(count, dtype=np.int64)
        where = f"node '{node.name}'"
        remapped = np.array(
            [_inverse(perm)[_normalize_axis(int(a), len(perm), where)] for a in axes.reshape(-1)]
        )
        inputs[3] = self.graph.add_constant(
            f"{node.name}_axes", remapped.astype(axes.dtype).reshape(axes.shape)
        )
        node.inputs = inputs[:4] if not inputs[4] else inputs
        return self._finish_axis_op(node, perm)

    def _static_length(self, name: str) -> int | None:
        shape = self.logical_shape.get(name)
        return shape[0] if shape is not None and len(shape) == 1 and isinstance(shape[0], int) else None

    def _pad(self, node: Node, perm: Perm) -> bool:
        where = f"node '{node.name}'"
        if len(node.inputs) > 3 and node.inputs[3]:
            axes = self._constant_input(node, 3)
            if axes is None:
                return False
            remapped = np.array(
                [_inverse(perm)[_normalize_axis(int(a), len(perm), where)] for a in axes.reshape(-1)]
            )
            node.inputs[3] = self.graph.add_constant(f"{node.name}_axes", remapped.astype(axes.dtype))
            return self._finish_axis_op(node, perm)
        pads = self._constant_input(node, 1)
        if pads is None or pads.size != 2 * len(perm):
            return False
        begins, ends = list(pads.reshape(-1)[: len(perm)]), list(pads.reshape(-1)[len(perm) :])
        permuted = np.array(_permute(begins, perm) + _permute(ends, perm), dtype=pads.dtype)
        node.inputs[1] = self.graph.add_constant(f"{node.name}_pads", permuted)
        return self._finish_axis_op(node, perm)

    def _gather(self, node: Node, perm: Perm) -> bool:
        index_rank = self._rank(node.inputs[1])
        if index_rank not in (0, 1):
            return False
        axis = _normalize_axis(int(node.attrs.get("axis", 0)), len(perm), f"node '{node.name}'")
        node.attrs["axis"] = _inverse(perm)[axis]
        return self._finish_axis_op(node, perm, perm if index_rank == 1 else _dropped_dims_perm(perm, {axis}))

    def _cumsum(self, node: Node, perm: Perm) -> bool:
        axis = self._constant_input(node, 1)
        if axis is None or axis.size != 1:
            return False
        physical = self._physical_axis(node, int(axis.reshape(-1)[0]), perm)
        node.inputs[1] = self.graph.add_constant(
            f"{node.name}_axis", np.array(physical, axis.dtype).reshape(axis.shape)
        )
        return self._finish_axis_op(node, perm)

    def _layer_norm(self, node: Node, perm: Perm) -> bool:
        axis = _normalize_axis(int(node.attrs.get("axis", -1)), len(perm), f"node '{node.name}'")
        if any(perm[i] != i for i in range(axis, len(perm))):
            return False  # the normalized dims would move: scale/bias no longer line up
        return self._finish_axis_op(node, perm)

    # -- reshape-like ops -------------------------------------------------------------------------
    def _record_shape_value(self, node: Node) -> None:
        """Follows small shape computations (SHAPE -> SLICE -> CONCAT ...) while the node still
        reads logical names, so that RESHAPE targets are known symbolically."""
        self.shape_values.record(node)

    def _reshape_like(self, node: Node) -> None:
        """RESHAPE/FLATTEN/SQUEEZE/UNSQUEEZE on permuted data, without a transpose when the
        permutation keeps the reshaped dim groups together; otherwise, for a rank-4 result, one
        transpose to the layout that makes the result NHWC (ShuffleNet's channel shuffle)."""
        perm = self._perm_of(node.inputs[0])
        in_shape = self.logical_shape.get(node.inputs[0])
        if _is_identity(perm) or in_shape is None or len(in_shape) != len(perm or ()):
            return self._logical(node)
        assert perm is not None
        groups = self._reshape_groups(node, in_shape)
        if groups is None:
            return self._logical(node)
        in_groups, out_groups, free = groups
        order = layout_reshape.group_order(in_groups, perm, free)
        if order is None:
            out_rank = sum(len(g) for g in out_groups)
            order = layout_reshape.group_order(out_groups, NHWC, set()) if out_rank == 4 else None
            if order is None:
                return self._logical(node)
            perm = tuple(d for g in order for d in in_groups[g])
        out_perm = layout_reshape.output_perm(order, out_groups)
        if not self._rewrite_reshape_like(node, perm, out_perm, in_shape):
            return self._logical(node)
        node.inputs[0] = self._fetch(node.inputs[0], perm)
        node.outputs = [self._set_output(node.outputs[0], out_perm)]
        self.nodes.append(node)

    def _reshape_groups(
        self, node: Node, in_shape: list[Dim]
    ) -> tuple[list[list[int]], list[list[int]], set[int]] | None:
        """Input dim groups, output dim groups and the input dims free to sit anywhere."""
        rank = len(in_shape)
        if node.op_type == "RESHAPE":
            target = self._reshape_target(node, in_shape)
            groups = None if target is None else layout_reshape.reshape_groups(in_shape, target)
            return None if groups is None else (*groups, layout_reshape.unit_dims(in_shape))
        if node.op_type == "FLATTEN":
            axis = int(node.attrs.get("axis", 1))
            return (
                *layout_reshape.flatten_groups(rank, axis + rank if axis < 0 else axis),
                layout_reshape.unit_dims(in_shape),
            )
        if node.op_type == "SQUEEZE":
            axes = self._squeeze_axes(node, in_shape)
            groups = None if axes is None else layout_reshape.squeeze_groups(rank, axes)
            return None if groups is None or axes is None else (*groups, set(axes))
        axes = sorted(a % (rank + len(node.attrs.get("axes") or [])) for a in node.attrs.get("axes") or [])
        groups = layout_reshape.squeeze_groups(rank + len(axes), axes)
        return None if groups is None else (groups[1], groups[0], set())

    def _reshape_target(self, node: Node, in_shape: list[Dim]) -> list[Dim] | None:
        target = self.shape_values.get(node.inputs[1]) if len(node.inputs) > 1 else None
        if target is None or target[0] != 1:
            return None
        allowzero = bool(node.attrs.get("allowzero", False))
        return [
            in_shape[j] if d == 0 and not allowzero and j < len(in_shape) else d
            for j, d in enumerate(target[1])
        ]

    def _squeeze_axes(self, node: Node, in_shape: list[Dim]) -> list[int] | None:
        axes = sorted(a % len(in_shape) for a in node.attrs.get("axes") or [])
        if axes:
            return axes
        if any(not isinstance(d, int) for d in in_shape):
            return None  # which dims are 1 is only known at run time
        return sorted(layout_reshape.unit_dims(in_shape))

    def _rewrite_reshape_like(self, node: Node, perm: Perm, out_perm: Perm, in_shape: list[Dim]) -> bool:
        """Rewrites the op's axes/target for input layout ``perm`` and output layout ``out_perm``."""
        if node.op_type == "RESHAPE":
            return self._rewrite_reshape_target(node, perm, out_perm, in_shape)
        if node.op_type == "FLATTEN":
            axis = int(node.attrs.get("axis", 1))
            axis = axis + len(perm) if axis < 0 else axis
            free = layout_reshape.unit_dims(in_shape)
            first = set(range(axis)) if out_perm[0] == 0 else set(range(axis, len(perm)))
            positions = [k for k, d in enumerate(perm) if d in first and d not in free]
            node.attrs["axis"] = positions[-1] + 1 if positions else 0
        elif node.op_type == "SQUEEZE":
            axes = self._squeeze_axes(node, in_shape) or []
            node.attrs["axes"] = sorted(_inverse(perm)[a] for a in axes)
        else:
            rank = len(out_perm)
            axes = {a % rank for a in node.attrs.get("axes") or []}
            node.attrs["axes"] = [k for k, j in enumerate(out_perm) if j in axes]
        return True

    def _rewrite_reshape_target(self, node: Node, perm: Perm, out_perm: Perm, in_shape: list[Dim]) -> bool:
        target = self.shape_values.get(node.inputs[1])
        assert target is not None
        allowzero = bool(node.attrs.get("allowzero", False))
        # ONNX's 0 copies the input dim of the same index: in the permuted target it must still
        # copy the right dim, or be replaced by the dim's value when that is known
        shape = self._constant_input(node, 1)
        values = list(target[1])
        for k, j in enumerate(out_perm):
            if values[j] != 0 or allowzero or (k < len(perm) and perm[k] == j):
                continue
            if shape is None or not isinstance(in_shape[j], int):
                return False
            values[j] = in_shape[j]
        if shape is not None:
            permuted = np.array([values[j] for j in out_perm], dtype=shape.dtype)
            node.inputs[1] = self.graph.add_constant(f"{node.inputs[1]}_perm", permuted)
        else:
            indices = self.graph.add_constant(f"{node.name}_shape_perm", np.array(out_perm, np.int64))
            source = self._fetch(node.inputs[1], None)
            gathered = self.graph.add_tensor(f"{source}_perm", np.int64, [len(out_perm)])
            self._emit("GATHER", f"{node.name}_shape_perm", [source, indices], [gathered], {"axis": 0})
            node.inputs[1] = gathered
        return True

    # -- graph outputs ----------------------------------------------------------------------------
    def _restore_graph_outputs(self) -> None:
        """Each graph output ends up logical and under its original name."""
        protected = set(self.graph.inputs) | set(self.graph.outputs)
        for name in self.graph.outputs:
            physical = self._fetch(name, None)
            if physical == name:
                continue
            producer = next((n for n in self.nodes if physical in n.outputs), None)
            if producer is None or physical in protected:
                self._emit("IDENTITY", f"{name}_identity", [physical], [name], {})
                self.graph.tensors[name] = Tensor(
                    name, self.graph.tensors[physical].dtype, self.graph.tensors[physical].shape
                )
                continue
            for node in self.nodes:
                node.inputs = [name if n == physical else n for n in node.inputs]
                node.outputs = [name if n == physical else n for n in node.outputs]
            old = self.graph.tensors.pop(physical)
            self.graph.tensors[name] = Tensor(name, old.dtype, old.shape, old.data, old.quant)
            protected.add(name)
            self._source_renamed(physical, name)

    def _source_renamed(self, old: str, new: str) -> None:
        """Points every later fetch of tensor ``old`` at ``new``: another graph output may be held by
        the same physical tensor (outputs [Transpose(a), a]: both are a's NHWC tensor), or by a
        transpose of it already made. (A map of renames consulted after each fetch, as before, went
        wrong once the freed name was given to a new tensor: outputs r = Reshape(x) and t =
        Transpose(r) got t = r in YOLOv8's DFL head.)"""
        self.where = {key: (new if source == old else source, perm)
                      for key, (source, perm) in self.where.items()}
        self.materialized = {(new if source == old else source, step): new if made == old else made
                             for (source, step), made in self.materialized.items()}


def _reshape_equivalent(shape: list[Dim] | None, step: Perm) -> list[int] | None:
    """The RESHAPE target equivalent to transposing ``shape`` by ``step``, when only size-1 dims
    move; None when a real transpose is needed. Unknown dims that stay in place become 0 (copy),
    a single unknown dim that moves becomes -1 (infer)."""
    if shape is None:
        return None
    moving = [src for src in step if shape[src] != 1]
    if moving != sorted(moving) or any(d == 0 for d in shape):
        return None
    target: list[int] = []
    inferred = 0
    for dst, src in enumerate(step):
        dim = shape[src]
        if isinstance(dim, int) and dim >= 0:
            target.append(dim)
        elif src == dst:
            target.append(0)
        else:
            target.append(-1)
            inferred += 1
    return target if inferred <= 1 else None
