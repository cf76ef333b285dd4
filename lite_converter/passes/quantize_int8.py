"""Post-training int8 quantization of a lowered, channels-last graph (docs/QUANTIZATION.md).

Given a calibrated real range per activation tensor, the pass turns the ops the int8 runtime
implements into int8 ops and leaves every other op in fp32, with QUANTIZE / DEQUANTIZE at the
borders:

* CONV_2D (incl. depthwise) and FULLY_CONNECTED with a constant weight and a fused NONE / RELU /
  CLIP activation: int8 weight per output channel, int32 bias, int8 output;
* CONV_TRANSPOSE_2D likewise with groups 1, dilation 1 and a kernel at least the stride on both axes
  (pads and output padding allowed: each output value is one dot product over its taps, runtime
  ops/conv_transpose2d_int8.cc); its weight [Ci, KH, KW, Co] is quantized per output channel along
  axis 3;
* ADD of two activations of the same shape (as seen in calibration), fused NONE / RELU / CLIP;
* MAX_POOL_2D (no fused activation) and GLOBAL_AVERAGE_POOL: the output keeps the input's scale and
  zero point (max is exact, the mean stays within the input's range);
* RESHAPE / FLATTEN / SQUEEZE / UNSQUEEZE / TRANSPOSE whose input is already int8 (the output of an
  int8 op): they move bytes, so the output shares the input's scale and zero point;
* such a move op on an fp32 tensor whose every reader runs in int8 (the model input's NCHW -> NHWC
  TRANSPOSE before the first CONV_2D): its input is quantized first, with the output's scale and
  zero point, and the op moves int8 bytes (quantizing is elementwise, so the bytes are those of
  quantizing after the move, with a quarter of the bytes moved);
* RESIZE that repeats pixels (nearest, power-of-two scales) whose input is int8: bytes moved, like
  the ops above;
* SPLIT whose input is int8: bytes moved, every part keeps the input's scale and zero point;
* CONCAT whose inputs all come from ops chosen for int8, directly or through such a RESIZE, a SPLIT,
  a max pool or a move op: every input (and the tensors tied to it by those ops: SPPF's pool chain,
  C2f's split halves, an FPN branch's upsampled source) and the output get the union of their
  calibrated ranges (one scale and zero point), so CONCAT moves bytes exactly.

Every int8 op's output ``y`` is renamed ``y`` + "_int8" and a DEQUANTIZE writes the original ``y``
back, so graph outputs and fp32 readers see what they saw before; DEQUANTIZEs nobody reads are
dropped at the end. An fp32 tensor read by an int8 op gets one QUANTIZE.

Ops left in fp32 keep an int8 copy of their constant weight when ``QuantizeInputs.weight_only`` is
set (weight_only_int8.py: int8 weight + a DEQUANTIZE the runtime evaluates at prepare).
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np

from lite_converter.int8.params import (
    activation_params,
    bias_int32,
    bias_weight_scale_floor,
    constant_per_tensor,
    weight_per_channel,
)
from lite_converter.ir import ConversionError, Graph, Node, QuantParams
from lite_converter.lite_ops import OPS, Int8Role, int8_ops
from lite_converter.passes.compose_tables_int8 import compose_tables_int8
from lite_converter.passes.split_lookup_activation import LOOKUP_OPS, split_lookup_activations
from lite_converter.passes.weight_only_int8 import store_weights_int8

FUSABLE_ACTIVATIONS = ("NONE", "RELU", "CLIP")
# slim/calibrate.py observes these ops' tensors and slim/bias_correction.py corrects them (it reads the
# weight as [Co, KH, KW, Ci] or [Co, Ci]).
WEIGHTED_OPS = int8_ops(Int8Role.WEIGHTED, weight_axis=0)
# Every op with a constant weight quantized per output channel and a requantized output. CONV_TRANSPOSE_2D
# is int8 when calibration covered its output (slim/calibrate.py observes it).
INT8_WEIGHTED_OPS = int8_ops(Int8Role.WEIGHTED)
# the output-channel axis of the weight when it is not 0
WEIGHT_AXIS = {op: OPS[op].int8_weight_axis for op in INT8_WEIGHTED_OPS if OPS[op].int8_weight_axis}
POOL_OPS = int8_ops(Int8Role.SAME_PARAMS)
BINARY_OPS = int8_ops(Int8Role.BINARY)
# Ops that only move values: int8 when their input already is, with the input's scale and zero point.
MOVE_OPS = int8_ops(Int8Role.MOVE)
INT8_SUFFIX = "_int8"
# Tags earlier passes append to a constant's name (fold_batch_norm.py "_bnfold", the layout pass "_perm",
# Graph.unique_name "__<n>"); repeated, they were ~2 KB of a PP-OCR det int8 file's names.
_PASS_TAGS = re.compile(r"(?:_bnfold|_perm|__\d+)+$")


@dataclasses.dataclass
class QuantizeInputs:
    """What calibration found: real ranges and seen shapes per tensor; node names kept fp32;
    whether fp32 ops store their constant weights as int8 (weight-only int8)."""

    ranges: dict[str, tuple[float, float]]
    shapes: dict[str, set[tuple[int, ...]]] = dataclasses.field(default_factory=dict)
    skip_nodes: set[str] = dataclasses.field(default_factory=set)
    weight_only: bool = True
    # HARD_SWISH / HARD_SIGMOID / SIGMOID / TANH / SILU through int8 tables (split_lookup_activation.py,
    # runtime ops/lookup_int8.cc).
    lookup_activations: bool = True
    # MUL, and ADD / MUL with a broadcast or constant second operand (ops/binary_int8.cc).
    broadcast_binary: bool = True
    # Chains of int8 maps of one tensor (table activation -> MUL / ADD by a scalar) as one REQUANTIZE
    # table (compose_tables_int8.py; runtime ops/lookup_int8.cc requantize_table_op_kernel).
    compose_tables: bool = True
    # One weight scale per tensor (every channel gets the largest channel's): for targets whose int8
    # arithmetic has per-tensor weights only; the file still stores per-channel (equal) scales.
    per_tensor_weights: bool = False


def _activation_kind(node: Node) -> str:
    act = node.attrs.get("activation")
    return "NONE" if not act else str(act.get("kind", "NONE"))


def _activations(graph: Graph, node: Node) -> list[str]:
    return [name for name in node.inputs if name and graph.constant(name) is None]


def int8_capable(graph: Graph, node: Node, inputs: QuantizeInputs) -> bool:
    """True when the int8 runtime implements ``node`` as it stands and calibration covered it."""
    if node.name in inputs.skip_nodes or not node.outputs or node.outputs[0] not in inputs.ranges:
        return False
    acts = _activations(graph, node)
    if any(graph.tensors[name].dtype != np.float32 or name not in inputs.ranges for name in acts):
        return False
    op = node.op_type
    if op in INT8_WEIGHTED_OPS:
        weight = graph.constant(node.inputs[1]) if len(node.inputs) > 1 else None
        rank = 2 if op == "FULLY_CONNECTED" else 4
        return (
            (op != "CONV_TRANSPOSE_2D"
             or (weight is not None and transpose_int8_supported(node, weight.shape)))
            and weight is not None and weight.ndim == rank and weight.dtype == np.float32
            and acts == [node.inputs[0]] and len([n for n in node.inputs if n]) <= 3
            and _activation_kind(node) in FUSABLE_ACTIVATIONS
            and node.attrs.get("padding", "EXPLICIT") == "EXPLICIT"
        )
    if op in BINARY_OPS:
        if len(node.inputs) != 2 or _activation_kind(node) not in FUSABLE_ACTIVATIONS or not acts:
            return False
        if op == "ADD" and len(acts) == 2:
            seen_a, seen_b = inputs.shapes.get(acts[0]), inputs.shapes.get(acts[1])
            if bool(seen_a) and seen_a == seen_b and len(seen_a) == 1:
                return True
        return inputs.broadcast_binary and _binary_operands(graph, node, inputs) is not None
    if op == "MAX_POOL_2D":
        explicit = node.attrs.get("padding", "EXPLICIT") == "EXPLICIT"
        return (acts == node.inputs[:1] and _activation_kind(node) == "NONE" and explicit
                and not node.attrs.get("ceil_mode", False))
    if op == "GLOBAL_AVERAGE_POOL":
        return acts == node.inputs[:1]
    if op in LOOKUP_OPS:
        return inputs.lookup_activations and acts == node.inputs and len(acts) == 1
    return False


def transpose_int8_supported(node: Node, weight_shape: tuple[int, ...]) -> bool:
    """A CONV_TRANSPOSE_2D the int8 runtime implements: groups 1, dilation 1, a kernel at least the
    stride on both axes (every output value then has taps; kernel == stride without pads writes
    disjoint blocks, other kernels run by output phase), any pads and output padding."""
    a = node.attrs
    return (len(weight_shape) == 4 and int(a.get("group", 1)) == 1
            and int(a.get("dilation_h", 1)) == 1 and int(a.get("dilation_w", 1)) == 1
            and weight_shape[1] >= int(a.get("stride_h", 1)) and weight_shape[2] >= int(a.get("stride_w", 1)))


def broadcast_supported(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """b broadcasts against the full-shape a as runtime_arm/src/ops/int8_broadcast.h accepts: b's dims
    (right-aligned) are a's on a leading block, 1 on a middle block, a's on a trailing block."""
    if len(b) > len(a):
        return False
    dims = (1,) * (len(a) - len(b)) + tuple(b)
    d = 0
    while d < len(a) and dims[d] == a[d] and dims[d] != 1:
        d += 1
    while d < len(a) and dims[d] == 1:
        d += 1
    return all(dims[i] == a[i] for i in range(d, len(a)))


def _binary_operands(graph: Graph, node: Node, inputs: QuantizeInputs) -> tuple[str, str] | None:
    """(a, b) of an int8 ADD / MUL: a full-shape activation and a b that broadcasts against it
    (another activation or a float32 constant), or None."""
    def seen(name: str) -> tuple[int, ...] | None:
        constant = graph.constant(name)
        if constant is not None:
            return tuple(constant.shape) if constant.dtype == np.float32 else None
        shapes = inputs.shapes.get(name)
        return next(iter(shapes)) if shapes and len(shapes) == 1 else None

    first, second = node.inputs
    for a, b in ((first, second), (second, first)):
        shape_a, shape_b = seen(a), seen(b)
        if graph.constant(a) is None and shape_a is not None and shape_b is not None \
                and broadcast_supported(shape_a, shape_b):
            return a, b
    return None


def _drop_constant_binaries_after_fp32(graph: Graph, chosen: list[Node]) -> list[Node]:
    """Keeps an ADD / MUL with a constant operand in int8 only when its activation comes from an int8
    op: on an fp32 input it would only add a QUANTIZE and a DEQUANTIZE around one elementwise op."""
    chosen_ids = {id(node) for node in chosen}
    int8_outputs: set[str] = set()
    kept = []
    for node in graph.nodes:
        if id(node) not in chosen_ids:
            continue
        constants = [name for name in node.inputs if graph.constant(name) is not None]
        constant_operand = node.op_type in BINARY_OPS and bool(constants)
        if constant_operand and not any(name in int8_outputs for name in node.inputs):
            continue
        kept.append(node)
        int8_outputs.update(node.outputs[:1])
    return kept


def _share_concat_ranges(graph: Graph, chosen: list[Node], inputs: QuantizeInputs) -> None:
    """Gives each eligible CONCAT's inputs and output one common range (in ``inputs.ranges``), together
    with every tensor tied to them by an op that keeps its input's scale and zero point: a max pool
    (SPPF's chained pools), a SPLIT (C2f's halves), a RESIZE that repeats pixels (FPN branches), a
    move op. A CONCAT is eligible when each input comes from an op chosen for int8, directly or
    through such ops; each connected set of tensors gets the union of its calibrated ranges."""
    chosen_ids = {id(node) for node in chosen}
    parent: dict[str, str] = {}

    def root(name: str) -> str:
        while parent.setdefault(name, name) != name:
            name = parent[name]
        return name

    def tie(a: str, b: str) -> None:
        parent[root(a)] = root(b)

    int8: set[str] = set()
    joined: set[str] = set()  # tensors of eligible CONCATs
    for node in graph.nodes:
        if node.name in inputs.skip_nodes or not node.outputs or not node.inputs:
            continue
        source = node.inputs[0]
        if id(node) in chosen_ids:
            int8.add(node.outputs[0])
            if node.op_type in POOL_OPS:
                tie(node.outputs[0], source)
        elif node.op_type == "CONCAT" or _moves_bytes(graph, node):
            names = node.inputs if node.op_type == "CONCAT" else [source]
            if not all(name in int8 and name in inputs.ranges for name in names) \
                    or any(name not in inputs.ranges for name in node.outputs):
                continue
            int8.update(node.outputs)
            for name in (*names, *node.outputs):
                tie(name, node.outputs[0])
            if node.op_type == "CONCAT":
                joined.add(node.outputs[0])
    groups: dict[str, list[str]] = {}
    for name in parent:
        groups.setdefault(root(name), []).append(name)
    for root_name, names in groups.items():
        if not any(root(name) == root_name for name in joined):
            continue
        low = min(inputs.ranges[name][0] for name in names)
        high = max(inputs.ranges[name][1] for name in names)
        for name in names:
            inputs.ranges[name] = (low, high)


def _moves_bytes(graph: Graph, node: Node) -> bool:
    """SPLIT, a pixel-repeating RESIZE or a move op over one activation (other inputs constant)."""
    rest_constant = all(graph.constant(name) is not None for name in node.inputs[1:] if name)
    if node.op_type == "SPLIT":
        return rest_constant
    if node.op_type == "RESIZE":
        return resize_moves_bytes(graph, node)
    return node.op_type in MOVE_OPS and len(node.outputs) == 1 and rest_constant


def quantize_int8(graph: Graph, inputs: QuantizeInputs) -> list[str]:
    """Rewrites ``graph`` in place; returns the names of the nodes now running in int8."""
    inputs = dataclasses.replace(inputs, ranges=dict(inputs.ranges))
    if inputs.lookup_activations:
        split_lookup_activations(graph, inputs.ranges, lambda node: int8_capable(graph, node, inputs))
    chosen = _drop_constant_binaries_after_fp32(
        graph, [node for node in graph.nodes if int8_capable(graph, node, inputs)])
    chosen_ids = {id(node) for node in chosen}
    _share_concat_ranges(graph, chosen, inputs)
    int8_of: dict[str, str] = {}  # fp32 tensor name -> its int8 twin
    params_of: dict[str, QuantParams] = {}
    new_nodes: list[Node] = []

    def params_for(name: str) -> QuantParams:
        if name not in params_of:
            low, high = inputs.ranges[name]
            params_of[name] = activation_params(low, high)
        return params_of[name]

    def int8_input(name: str) -> str:
        if name in int8_of:
            return int8_of[name]
        source = graph.tensors[name]
        q_name = graph.add_tensor(name + INT8_SUFFIX, np.int8, source.shape)
        graph.tensors[q_name].quant = params_for(name)
        new_nodes.append(Node("QUANTIZE", graph.unique_name(name + "_quantize"), [name], [q_name]))
        int8_of[name] = q_name
        return q_name

    moved: list[str] = []
    quantize_first = _quantize_before_move(graph, chosen_ids, inputs)
    for node in graph.nodes:
        if id(node) in quantize_first and node.inputs[0] not in int8_of:
            source = node.inputs[0]
            q_source = graph.add_tensor(source + INT8_SUFFIX, np.int8, graph.tensors[source].shape)
            graph.tensors[q_source].quant = params_for(node.outputs[0])
            new_nodes.append(Node("QUANTIZE", graph.unique_name(source + "_quantize"), [source], [q_source]))
            int8_of[source] = q_source  # only this op reads it: params_for(source) is never asked
            params_of[source] = params_for(node.outputs[0])
        if _moves_int8(graph, node, int8_of, inputs):
            out = node.outputs[0]
            params_of[out] = params_for(node.inputs[0])
            if node.op_type == "CONCAT":
                node.inputs = [int8_of[name] for name in node.inputs]
            else:
                node.inputs = [int8_of[node.inputs[0]], *node.inputs[1:]]
            new_nodes.append(node)
            q_outs = []
            for out in node.outputs:  # SPLIT: every part keeps the input's parameters
                params_of[out] = params_of[node.outputs[0]]
                q_out = graph.add_tensor(out + INT8_SUFFIX, np.int8, graph.tensors[out].shape)
                graph.tensors[q_out].quant = params_of[out]
                q_outs.append(q_out)
                int8_of[out] = q_out
                new_nodes.append(Node("DEQUANTIZE", graph.unique_name(out + "_dequantize"), [q_out], [out]))
            node.outputs = q_outs
            moved.append(node.name)
            continue
        if id(node) not in chosen_ids:
            new_nodes.append(node)
            continue
        if node.op_type in BINARY_OPS:
            operands = _binary_operands(graph, node, inputs)
            if operands is not None:
                node.inputs = list(operands)  # ADD and MUL commute: the full-shape activation first
        acts = _activations(graph, node)
        new_inputs = list(node.inputs)
        for i, name in enumerate(node.inputs):
            if name in acts:
                new_inputs[i] = int8_input(name)
            elif node.op_type in BINARY_OPS:
                new_inputs[i] = _int8_constant(graph, name)
        out = node.outputs[0]
        if node.op_type in POOL_OPS:
            params_of[out] = params_for(acts[0])  # shared scale and zero point
        out_params = params_for(out)
        if node.op_type in INT8_WEIGHTED_OPS:
            _quantize_weights(graph, node, new_inputs, params_for(acts[0]), inputs.per_tensor_weights)
        node.inputs = new_inputs
        out_tensor = graph.tensors[out]
        q_out = graph.add_tensor(out + INT8_SUFFIX, np.int8, out_tensor.shape)
        graph.tensors[q_out].quant = out_params
        node.outputs = [q_out] + node.outputs[1:]
        int8_of[out] = q_out
        new_nodes.append(node)
        new_nodes.append(Node("DEQUANTIZE", graph.unique_name(out + "_dequantize"), [q_out], [out]))
    graph.nodes = new_nodes
    _drop_unread_dequantize(graph)
    graph.remove_unused_tensors()
    if inputs.weight_only:
        store_weights_int8(graph)
    merged = set(compose_tables_int8(graph)) if inputs.compose_tables else set()
    return [node.name for node in chosen if node.name not in merged] + moved


def _quantize_before_move(graph: Graph, chosen_ids: set[int], inputs: QuantizeInputs) -> set[int]:
    """Ids of move ops (TRANSPOSE, RESHAPE ...) on an fp32 tensor that only they read, whose output
    is calibrated, not a graph output and read only by ops chosen for int8 as an activation: quantizing
    before the move gives the same bytes and moves a quarter of them."""
    producers, consumers = graph.producers(), graph.consumers()
    found: set[int] = set()
    for node in graph.nodes:
        if (node.op_type not in MOVE_OPS or node.name in inputs.skip_nodes or len(node.outputs) != 1
                or not node.inputs
                or not all(graph.constant(name) is not None for name in node.inputs[1:] if name)):
            continue
        source, out = node.inputs[0], node.outputs[0]
        if (graph.constant(source) is not None or len(consumers.get(source, [])) != 1
                or id(producers.get(source)) in chosen_ids or out in graph.outputs
                or out not in inputs.ranges):
            continue
        readers = consumers.get(out, [])
        if readers and all(id(r) in chosen_ids and out in _activations(graph, r) for r in readers):
            found.add(id(node))
    return found


def _moves_int8(graph: Graph, node: Node, int8_of: dict[str, str], inputs: QuantizeInputs) -> bool:
    """A byte-moving op whose data input is int8 already and whose other inputs are constants, or a
    CONCAT of int8 tensors sharing one scale and zero point."""
    if node.op_type == "CONCAT":
        if node.name in inputs.skip_nodes or len(node.outputs) != 1 or not node.inputs:
            return False
        if not all(name in int8_of for name in node.inputs):
            return False
        ranges = {inputs.ranges.get(name) for name in (*node.inputs, node.outputs[0])}
        return len(ranges) == 1 and None not in ranges
    if node.op_type == "RESIZE":
        return (node.name not in inputs.skip_nodes and node.inputs[0] in int8_of
                and resize_moves_bytes(graph, node))
    if node.op_type == "SPLIT":  # int8 when its input is; every part keeps the input's parameters
        return (node.name not in inputs.skip_nodes and bool(node.inputs) and node.inputs[0] in int8_of
                and _moves_bytes(graph, node))
    return (node.op_type in MOVE_OPS and node.name not in inputs.skip_nodes and len(node.outputs) == 1
            and bool(node.inputs) and node.inputs[0] in int8_of
            and all(graph.constant(name) is not None for name in node.inputs[1:] if name))


def resize_moves_bytes(graph: Graph, node: Node) -> bool:
    """A RESIZE that repeats each pixel an integer number of times (nearest, asymmetric, floor, constant
    power-of-two scales: PP-OCR det's FPN upsampling): it copies bytes, so it runs on int8 as it is
    (ops/resize.cc's nearest path is dtype-generic) with the input's scale and zero point; the
    simulation is numpy's repeat (slim/fake_quant.py)."""
    if (node.op_type != "RESIZE" or len(node.outputs) != 1 or len(node.inputs) < 2
            or any(node.inputs[2:]) or node.attrs.get("mode") != "NEAREST"
            or node.attrs.get("coordinate_mode") != "ASYMMETRIC"
            or node.attrs.get("nearest_mode") != "FLOOR"):
        return False
    scales = graph.constant(node.inputs[1])
    if scales is None or scales.dtype != np.float32 or scales.size != 2:
        return False
    whole = [int(s) for s in scales.reshape(-1) if s >= 1.0 and float(s).is_integer()]
    return len(whole) == 2 and all(s & (s - 1) == 0 for s in whole)


def _int8_constant(graph: Graph, name: str) -> str:
    """A float32 constant operand as int8 with per-tensor parameters covering its values and 0."""
    q, params = constant_per_tensor(np.asarray(graph.constant(name)))
    q_name = graph.add_constant(_constant_name(name, INT8_SUFFIX), q)
    graph.tensors[q_name].quant = params
    return q_name


def _constant_name(source: str, suffix: str) -> str:
    """The name hint of an int8 / int32 copy of constant ``source``: its source-model name without
    the tags passes appended (Graph.unique_name keeps it unique); node names are kept as they are."""
    return _PASS_TAGS.sub("", source) + suffix


def _quantize_weights(graph: Graph, node: Node, new_inputs: list[str], input_params: QuantParams,
                      per_tensor: bool = False) -> None:
    weight = graph.constant(node.inputs[1])
    assert weight is not None
    bias = graph.constant(node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else None
    if len(node.inputs) > 2 and node.inputs[2] and bias is None:
        raise ConversionError(f"node '{node.name}': int8 needs a constant bias")
    floor = None if bias is None else bias_weight_scale_floor(bias.reshape(-1), input_params.scale[0])
    if per_tensor:
        axis = WEIGHT_AXIS.get(node.op_type, 0)
        whole = (np.float32(np.abs(weight).max(initial=0.0)) / np.float32(127)).astype(np.float32)
        floor = np.full(weight.shape[axis], whole, np.float32) if floor is None else np.maximum(floor, whole)
    q_weight, w_params = weight_per_channel(weight, floor, WEIGHT_AXIS.get(node.op_type, 0))
    new_inputs[1] = graph.add_constant(_constant_name(node.inputs[1], INT8_SUFFIX), q_weight)
    graph.tensors[new_inputs[1]].quant = w_params
    if bias is not None:
        q_bias = bias_int32(bias.reshape(-1), input_params.scale[0], w_params.scale)
        # No scales on the bias: they are s_in * s_w[c] by the scheme, no kernel reads them, and
        # they were 2% of a PP-OCR int8 file (the .tflite exporter recomputes them).
        new_inputs[2] = graph.add_constant(_constant_name(node.inputs[2], "_int32"), q_bias)


def _drop_unread_dequantize(graph: Graph) -> None:
    """Removes DEQUANTIZE nodes whose fp32 output nobody reads (repeated: nothing cascades today)."""
    read = {name for node in graph.nodes for name in node.inputs if name} | set(graph.outputs)
    graph.nodes = [n for n in graph.nodes if not (n.op_type == "DEQUANTIZE" and n.outputs[0] not in read)]
