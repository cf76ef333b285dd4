"""QDQ-ONNX import, second half: int8 ops from the quantization tags of :mod:`onnx_qdq`.

Runs on the lowered, channels-last graph. Where :mod:`lite_converter.passes.quantize_int8` derives
scales from calibrated ranges, this pass takes them as the QDQ model states them, so that our int8
graph computes what the model's own runtime computes (docs/IMPORT_INT8.md):

* CONV_2D (incl. depthwise) / FULLY_CONNECTED whose input, output and weight are tagged, weights
  exactly ``scale * q`` with |q| <= 127 and zero point 0, fused activation NONE / RELU / CLIP:
  int8 weights and the int32 bias (``rint(b / bias_scale)``: the model's own integers);
* ADD of two tagged activations of one static shape;
* MAX_POOL_2D, GLOBAL_AVERAGE_POOL, RESHAPE / FLATTEN / SQUEEZE / UNSQUEEZE / TRANSPOSE and CONCAT
  when input(s) and output carry the same scale and zero point (our int8 kernels of these ops do
  not requantize); a byte-moving op whose output has no tag inherits its input's.

Every other op stays fp32: a DEQUANTIZE feeds it and a QUANTIZE with the tag of its output feeds an
int8 reader, which is exactly the QDQ model's own meaning of "an op between DQ and Q".
The tags of fp32 tensors are removed at the end (the .lite file quantizes int8 tensors only).
"""

from __future__ import annotations

import numpy as np

from lite_converter.int8 import INT8_MAX, INT8_MIN, fake_quantize, quantize_steps
from lite_converter.int8.params import WEIGHT_MAX, quantize_bias
from lite_converter.ir import Graph, Node, QuantParams
from lite_converter.lite_ops import Int8Role, int8_ops
from lite_converter.passes.eliminate_dead_code import eliminate_dead_code

FUSABLE_ACTIVATIONS = ("NONE", "RELU", "CLIP")
# QDQ import reads weights per output channel along axis 0 (not CONV_TRANSPOSE_2D's axis 3).
WEIGHTED_OPS = int8_ops(Int8Role.WEIGHTED, weight_axis=0)
SAME_PARAMS_OPS = int8_ops(Int8Role.SAME_PARAMS)
MOVE_OPS = int8_ops(Int8Role.MOVE)
INT8_SUFFIX = "_int8"
# |w / scale - q| above this means the weight is not the tagged int8 value (a pass changed it).
INTEGER_TOLERANCE = 1e-3


def _per_tensor(graph: Graph, name: str) -> QuantParams | None:
    tensor = graph.tensors.get(name)
    if tensor is None or tensor.quant is None or tensor.dtype != np.float32 or tensor.quant.axis is not None:
        return None
    return tensor.quant


def _same(a: QuantParams | None, b: QuantParams | None) -> bool:
    return (a is not None and b is not None and np.array_equal(a.scale, b.scale)
            and np.array_equal(a.zero_point, b.zero_point))


def _activation_kind(node: Node) -> str:
    act = node.attrs.get("activation")
    return "NONE" if not act else str(act.get("kind", "NONE"))


def int8_weights(graph: Graph, name: str, rescaled: bool = False) -> tuple[np.ndarray, np.ndarray] | None:
    """(int8 weights, per-output-channel scales) of a tagged fp32 weight, or None if not exact.

    ``rescaled``: the weight was int8 but a pass scaled its output channels (BatchNorm folding);
    then each channel is ``scale' * q`` with max|q| = 127 (symmetric quantization reaches 127 in
    every channel), so scale' = max|w| / 127 and the same exactness check decides.
    """
    tensor = graph.tensors.get(name)
    if tensor is None or tensor.data is None or tensor.data.dtype != np.float32 or tensor.data.ndim < 1:
        return None
    weight, quant = tensor.data, tensor.quant
    channels = weight.shape[0]
    if quant is not None and quant.axis is None and quant.scale.size == 1:
        scale = np.full(channels, quant.scale[0], np.float32)
    elif quant is not None and quant.axis == 0 and quant.scale.size == channels:
        scale = quant.scale.astype(np.float32)
    else:
        scale = None
    exact = None
    if scale is not None and quant is not None and not quant.zero_point.any() and (scale > 0).all():
        exact = _exact_int8(weight, scale)
    if exact is None and rescaled:
        abs_max = np.abs(weight.reshape(channels, -1)).max(axis=1).astype(np.float64)
        scale = np.where(abs_max > 0, abs_max / WEIGHT_MAX, 1.0).astype(np.float32)
        exact = _exact_int8(weight, scale)
    return exact


def _exact_int8(weight: np.ndarray, scale: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    channels = weight.shape[0]
    per_channel = scale.astype(np.float64).reshape((channels,) + (1,) * (weight.ndim - 1))
    ratio = weight.astype(np.float64) / per_channel
    q = np.rint(ratio)
    if np.abs(ratio - q).max(initial=0.0) > INTEGER_TOLERANCE or np.abs(q).max(initial=0.0) > WEIGHT_MAX:
        return None
    return q.astype(np.int8), scale


def _weighted_capable(graph: Graph, node: Node, rescaled: bool) -> bool:
    rank = 4 if node.op_type == "CONV_2D" else 2
    weight = graph.constant(node.inputs[1]) if len(node.inputs) > 1 else None
    bias_name = node.inputs[2] if len(node.inputs) > 2 else ""
    return (weight is not None and weight.ndim == rank and len([n for n in node.inputs if n]) <= 3
            and graph.constant(node.inputs[0]) is None and _per_tensor(graph, node.inputs[0]) is not None
            and _per_tensor(graph, node.outputs[0]) is not None
            and (not bias_name or graph.constant(bias_name) is not None)
            and _activation_kind(node) in FUSABLE_ACTIVATIONS
            and node.attrs.get("padding", "EXPLICIT") == "EXPLICIT"
            and int8_weights(graph, node.inputs[1], rescaled) is not None)


def _requantizing_capable(graph: Graph, node: Node, int8_weighted: set[str]) -> bool:
    """Ops that requantize to their own output scale: CONV_2D, FULLY_CONNECTED, ADD."""
    if node.op_type in WEIGHTED_OPS:
        return _weighted_capable(graph, node, node.name in int8_weighted)
    if node.op_type == "ADD":
        shapes = [graph.tensors[n].shape for n in node.inputs]
        return (len(node.inputs) == 2 and all(graph.constant(n) is None for n in node.inputs)
                and all(_per_tensor(graph, n) is not None for n in (*node.inputs, node.outputs[0]))
                and shapes[0] == shapes[1] and graph.tensors[node.inputs[0]].is_static
                and _activation_kind(node) in FUSABLE_ACTIVATIONS)
    return False


class _Int8Builder:
    """Rewrites the node list once, front to back, keeping an int8 twin per quantized tensor."""

    def __init__(self, graph: Graph, int8_weighted: set[str]) -> None:
        self.graph = graph
        self.int8_weighted = int8_weighted
        self.int8_of: dict[str, str] = {}
        self.nodes: list[Node] = []
        self.int8_nodes: list[str] = []
        self.dequantized_of: dict[str, str] = {}  # fp32 tensor -> its DEQUANTIZE(QUANTIZE(...)) twin
        self.grid_constants: set[str] = set()  # fp32 constants rounded to their grid (keep their tag)

    def quantized_input(self, name: str) -> str:
        if name in self.int8_of:
            return self.int8_of[name]
        source = self.graph.tensors[name]
        q_name = self.graph.add_tensor(name + INT8_SUFFIX, np.int8, source.shape)
        self.graph.tensors[q_name].quant = source.quant
        self.nodes.append(Node("QUANTIZE", self.graph.unique_name(name + "_quantize"), [name], [q_name]))
        self.int8_of[name] = q_name
        return q_name

    def int8_output(self, node: Node, params: QuantParams) -> None:
        out = node.outputs[0]
        q_out = self.graph.add_tensor(out + INT8_SUFFIX, np.int8, self.graph.tensors[out].shape)
        self.graph.tensors[q_out].quant = params
        node.outputs = [q_out, *node.outputs[1:]]
        self.int8_of[out] = q_out
        self.nodes += [node, Node("DEQUANTIZE", self.graph.unique_name(out + "_dequantize"), [q_out], [out])]
        self.dequantized_of[out] = out  # fp32 readers of `out` already read DEQUANTIZE(int8)
        self.int8_nodes.append(node.name)

    def round_trip(self, name: str) -> str:
        """``name`` as the QDQ model's fp32 readers see it: DEQUANTIZE(QUANTIZE(name)).

        Readers of a tagged tensor that an fp32 op wrote must not read it raw: the QDQ model
        rounds and clamps it to int8 (onnxruntime drops a Relu whose clamp the quantized range does).
        """
        if name in self.dequantized_of:
            return self.dequantized_of[name]
        q_name = self.quantized_input(name)
        tensor = self.graph.tensors[name]
        fp32 = self.graph.add_tensor(name + "_qdq", np.float32, tensor.shape)
        self.nodes.append(Node("DEQUANTIZE", self.graph.unique_name(name + "_dequantize"), [q_name], [fp32]))
        self.dequantized_of[name] = fp32
        return fp32

    def on_grid(self, name: str) -> str:
        """A tagged fp32 constant rounded to its int8 grid (as the QDQ model's runtime would, e.g. a
        Reshape of constants that the quantizer treated as an activation); other names as they are.

        Values outside the int8 range are left alone: a dequantized int32 bias carries a tag too and
        is on its grid already (rounding it again changes nothing, clamping it to int8 would).
        """
        tensor = self.graph.tensors.get(name) if name else None
        if tensor is None or tensor.data is None or tensor.quant is None or tensor.data.dtype != np.float32:
            return name
        if name not in self.dequantized_of:
            quant, value = tensor.quant, tensor.data
            if quant.axis is not None:
                if value.ndim == 0 or quant.scale.size != value.shape[quant.axis]:
                    return name
            elif quant.scale.size != 1:
                return name
            steps = quantize_steps(value, quant.scale, quant.zero_point, quant.axis)
            if steps.size and (steps.min() < INT8_MIN or steps.max() > INT8_MAX):
                return name
            on_grid = self.graph.add_constant(
                f"{name}_on_grid", fake_quantize(value, quant.scale, quant.zero_point, quant.axis))
            self.graph.tensors[on_grid].quant = quant
            self.grid_constants.add(on_grid)
            self.dequantized_of[name] = on_grid
        return self.dequantized_of[name]

    def fp32_node(self, node: Node) -> None:
        """Appends an fp32 op reading the round-tripped values of its tagged inputs; a tagged graph
        output it writes is round-tripped too (written raw, then QUANTIZE and DEQUANTIZE)."""
        graph = self.graph
        node.inputs = [self.round_trip(n) if n and graph.constant(n) is None and _per_tensor(graph, n)
                       else self.on_grid(n) for n in node.inputs]
        round_tripped_outputs = []
        for i, name in enumerate(node.outputs):
            if name in graph.outputs and _per_tensor(graph, name) is not None:
                raw = graph.add_tensor(name + "_raw", np.float32, graph.tensors[name].shape)
                graph.tensors[raw].quant = graph.tensors[name].quant
                node.outputs[i] = raw
                round_tripped_outputs.append((raw, name))
        self.nodes.append(node)
        for raw, name in round_tripped_outputs:
            q_name = self.quantized_input(raw)
            self.nodes.append(Node("DEQUANTIZE", graph.unique_name(name + "_dequantize"), [q_name], [name]))
            self.dequantized_of[name] = name

    def moves_int8(self, node: Node) -> bool:
        """A byte-moving op on int8 data whose output keeps (or may take) the input's parameters."""
        graph = self.graph
        if len(node.outputs) != 1 or not node.inputs:
            return False
        out_params = _per_tensor(graph, node.outputs[0])
        if node.op_type == "CONCAT":
            return all(n in self.int8_of and _same(_per_tensor(graph, n), out_params) for n in node.inputs)
        if node.op_type in SAME_PARAMS_OPS:
            if _activation_kind(node) != "NONE" or node.attrs.get("ceil_mode", False):
                return False
            if node.attrs.get("padding", "EXPLICIT") != "EXPLICIT":
                return False
            return _same(_per_tensor(graph, node.inputs[0]), out_params) and (
                node.inputs[0] in self.int8_of or _per_tensor(graph, node.inputs[0]) is not None)
        if node.op_type not in MOVE_OPS:
            return False
        if node.inputs[0] not in self.int8_of and _per_tensor(graph, node.inputs[0]) is None:
            return False  # an untagged fp32 input: the op stays fp32
        constants_only = all(graph.constant(n) is not None for n in node.inputs[1:] if n)
        in_params = _per_tensor(graph, node.inputs[0])
        return constants_only and (out_params is None or _same(in_params, out_params))

    def rewrite(self, node: Node) -> None:
        graph = self.graph
        if _requantizing_capable(graph, node, self.int8_weighted):
            inputs = list(node.inputs)
            acts = [i for i, n in enumerate(inputs) if n and graph.constant(n) is None]
            for i in acts:
                inputs[i] = self.quantized_input(inputs[i])
            if node.op_type in WEIGHTED_OPS:
                self._quantize_weights(node, inputs)
            node.inputs = inputs
            self.int8_output(node, _per_tensor(graph, node.outputs[0]))  # type: ignore[arg-type]
            return
        if self.moves_int8(node):
            params = graph.tensors[node.inputs[0]].quant
            if node.op_type == "CONCAT":
                node.inputs = [self.int8_of[n] for n in node.inputs]
            else:
                node.inputs = [self.quantized_input(node.inputs[0]), *node.inputs[1:]]
            graph.tensors[node.outputs[0]].quant = params
            self.int8_output(node, params)  # type: ignore[arg-type]
            return
        self.fp32_node(node)

    def _quantize_weights(self, node: Node, inputs: list[str]) -> None:
        graph = self.graph
        weights = int8_weights(graph, node.inputs[1], node.name in self.int8_weighted)
        assert weights is not None
        q_weight, scale = weights
        inputs[1] = graph.add_constant(node.inputs[1] + INT8_SUFFIX, q_weight)
        graph.tensors[inputs[1]].quant = QuantParams(scale, np.zeros(scale.size, np.int64), 0)
        if len(node.inputs) < 3 or not node.inputs[2]:
            return
        input_scale = np.float64(graph.tensors[node.inputs[0]].quant.scale[0])  # type: ignore[union-attr]
        bias_scale = (input_scale * scale.astype(np.float64)).astype(np.float32)
        tag = graph.tensors[node.inputs[2]].quant
        own = (tag is not None and tag.scale.size in (1, scale.size)
               and np.allclose(tag.scale, bias_scale, rtol=1e-5))
        if own:
            bias_scale = np.broadcast_to(tag.scale.astype(np.float32), scale.shape)  # type: ignore[union-attr]
        bias = np.asarray(graph.constant(node.inputs[2]), np.float64).reshape(-1)
        q_bias = quantize_bias(bias, bias_scale)
        inputs[2] = graph.add_constant(node.inputs[2] + "_int32", q_bias)
        graph.tensors[inputs[2]].quant = QuantParams(np.ascontiguousarray(bias_scale, np.float32),
                                                     np.zeros(scale.size, np.int64), 0)


def quantize_from_qdq(graph: Graph, int8_weighted: set[str] | None = None) -> list[str]:
    """Rewrites the lowered, channels-last ``graph`` in place; returns the names of its int8 nodes.
    ``int8_weighted``: what :func:`onnx_qdq.strip_qdq` returned."""
    builder = _Int8Builder(graph, int8_weighted or set())
    for node in graph.nodes:
        builder.rewrite(node)
    graph.nodes = builder.nodes
    # unread DEQUANTIZEs, and anything kept alive only as a Q/DQ boundary (onnx_qdq.boundaries_kept)
    eliminate_dead_code(graph)
    for tensor in graph.tensors.values():
        dtype = tensor.data.dtype if tensor.data is not None else tensor.dtype
        if tensor.quant is not None and dtype not in (np.int8, np.int32) \
                and tensor.name not in builder.grid_constants:
            tensor.quant = None  # weights on their grid keep it: keep_weights_narrow stores them as int8
    return builder.int8_nodes
