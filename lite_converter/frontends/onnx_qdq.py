"""QDQ-ONNX import, first half: QuantizeLinear / DequantizeLinear pairs become quantization tags.

A QDQ model (onnxruntime's ``quantize_static(quant_format=QDQ)`` and others) is an fp32 graph with
``x -> QuantizeLinear -> DequantizeLinear -> op`` around every quantized activation and
``int8 constant -> DequantizeLinear -> op`` for weights and biases. This module removes those nodes
from the IR (ONNX vocabulary, right after ``load_onnx``) and keeps what they said as
``Tensor.quant`` on the fp32 tensors:

* an activation ``x`` quantized by a Q/DQ pair gets the pair's per-tensor scale and zero point;
* a weight / bias DQ becomes the fp32 constant ``scale * (q - zero_point)`` tagged with its scale,
  zero point and axis, from which ``rint(w / scale)`` gives ``q`` back exactly (|q| <= 2^23).

Unsigned 8-bit values are mapped onto the int8 scheme exactly: ``q_s8 = q_u8 - 128`` (the byte
XOR 0x80) with ``zero_point - 128`` and the same scale. The tags survive the normal fp32 pipeline
(folding, lowering and the channels-last pass carry ``Tensor.quant``), and
:mod:`lite_converter.frontends.onnx_qdq_int8` then builds int8 ops from them.
Everything this cannot express is collected and raised at once, node by node.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np

from lite_converter.int8 import dequantize, fake_quantize
from lite_converter.ir import ConversionError, Graph, Node, QuantParams

QDQ_OPS = ("QuantizeLinear", "DequantizeLinear")
U8_OFFSET = 128
WEIGHTED_ONNX_OPS = ("Conv", "Gemm", "MatMul")
WEIGHT_READERS = (*WEIGHTED_ONNX_OPS, "ConvTranspose")  # their input 1 is the weight


def is_qdq_model(graph: Graph) -> bool:
    """True when the graph has QuantizeLinear / DequantizeLinear nodes."""
    return any(node.op_type in QDQ_OPS and not node.domain for node in graph.nodes)


def _params(graph: Graph, node: Node) -> tuple[np.ndarray, np.ndarray, np.dtype, int | None]:
    """(scale float32, zero point int64, quantized dtype, axis or None) of a Q / DQ node."""
    scale = graph.constant(node.inputs[1]) if len(node.inputs) > 1 else None
    if scale is None:
        raise ValueError("its scale is not a constant")
    has_zero_point = len(node.inputs) > 2 and node.inputs[2]
    # without a zero point: 0 of the quantized type, DequantizeLinear's input type (int8 weights
    # are often written so), QuantizeLinear's uint8 default
    source = graph.tensors.get(node.inputs[0]) if node.op_type == "DequantizeLinear" else None
    default_dtype = source.dtype if source is not None and source.dtype is not None else np.uint8
    zero_point = graph.constant(node.inputs[2]) if has_zero_point else np.zeros((), default_dtype)
    if zero_point is None:
        raise ValueError("its zero point is not a constant")
    if node.attrs.get("block_size"):
        raise ValueError("blocked quantization is not supported")
    scale = np.asarray(scale, np.float32)
    axis = node.attrs.get("axis", 1) if scale.ndim == 1 and scale.size > 1 else None
    return scale.reshape(-1), np.asarray(zero_point).astype(np.int64).reshape(-1), zero_point.dtype, axis


def _as_int8_params(scale: np.ndarray, zero_point: np.ndarray, dtype: np.dtype,
                    axis: int | None) -> QuantParams:
    if dtype == np.uint8:
        zero_point = zero_point - U8_OFFSET
    elif dtype != np.int8 and dtype != np.int32:
        raise ValueError(f"quantized type {dtype} is not int8 / uint8 / int32")
    return QuantParams(scale.copy(), zero_point.copy(), axis)


def _same(a: QuantParams, b: QuantParams) -> bool:
    return (a.axis == b.axis and np.array_equal(a.scale, b.scale)
            and np.array_equal(a.zero_point, b.zero_point))


def _constant_dequantize(graph: Graph, node: Node, problems: list[str]) -> None:
    """Replaces ``DQ(constant)`` by its fp32 value, tagged with the int8 parameters. ``problems``
    gets uint8 weights outside the scheme (pass a throwaway list for a constant that is not a
    weight: an Add / Mul operand stays an fp32 constant with exactly the dequantized values)."""
    q = graph.constant(node.inputs[0])
    assert q is not None
    scale, zero_point, dtype, axis = _params(graph, node)
    params = _as_int8_params(scale, zero_point, dtype, axis)
    if axis is not None:
        axis %= q.ndim
        params.axis = axis
    raw = q.astype(np.int64)
    if dtype == np.uint8:
        raw = raw - U8_OFFSET
    value = dequantize(raw, scale, params.zero_point, axis)
    out = node.outputs[0]
    tensor = graph.tensors[out]
    tensor.data, tensor.dtype, tensor.shape = value, np.dtype(np.float32), list(value.shape)
    tensor.quant = params
    if dtype == np.uint8 and params.zero_point.any():
        problems.append(f"node '{node.name}' (DequantizeLinear of '{node.inputs[0]}'): uint8 weights with "
                        "a zero point other than 128 are not in the int8 scheme (symmetric int8 weights); "
                        "quantize weights as int8 (weight_type=QInt8)")


def _fake_quantized_constant(graph: Graph, source: str, target: str, params: QuantParams) -> None:
    """``target`` = DequantizeLinear(QuantizeLinear(constant ``source``)) computed now, tagged.

    Quantizers leave weights held in Constant nodes (paddle2onnx's) as fp32 and put an
    activation-style Q/DQ pair after them; their runtime rounds them to that grid, so do we. With a
    zero point other than 0 they stay fp32 weights (not symmetric int8), now on the model's grid.
    Other exporters (fake-quantized training, NNCF) write every weight this way, per channel.
    """
    value = np.asarray(graph.constant(source), np.float32)
    if params.axis is not None:
        params.axis %= max(value.ndim, 1)
    tensor = graph.tensors[target]
    tensor.data = fake_quantize(value, params.scale, params.zero_point, params.axis)
    tensor.dtype, tensor.shape, tensor.quant = np.dtype(np.float32), list(value.shape), params


def strip_qdq(graph: Graph) -> set[str]:
    """Removes every QuantizeLinear / DequantizeLinear node and tags the tensors (module docstring).

    Returns the names of the Conv / Gemm / MatMul nodes whose weight was an int8 constant (node
    names survive the passes, constants do not): BatchNorm folding, where the model rounds nothing
    between Conv and BatchNorm, rescales each output channel of such a weight, which then stays
    int8 with a new per-channel scale.
    """
    problems: list[str] = []
    producers = graph.producers()
    consumers = graph.consumers()
    keep: list[Node] = []
    merges: list[tuple[str, str, QuantParams]] = []  # (fp32 source, dequantized copy, params)
    for node in graph.nodes:
        if node.op_type not in QDQ_OPS or node.domain:
            keep.append(node)
            continue
        try:
            if node.op_type == "DequantizeLinear" and graph.constant(node.inputs[0]) is not None:
                as_weight = any(reader.op_type in WEIGHT_READERS and reader.inputs[1:2] == node.outputs[:1]
                                for reader in consumers.get(node.outputs[0], []))
                _constant_dequantize(graph, node, problems if as_weight else [])
                continue
            if node.op_type == "QuantizeLinear":
                readers = consumers.get(node.outputs[0], [])
                if node.outputs[0] in graph.outputs or not readers or any(
                        r.op_type != "DequantizeLinear" for r in readers):
                    problems.append(f"node '{node.name}' (QuantizeLinear): its quantized output is used "
                                    "other than by DequantizeLinear (an int8 graph output or a QLinear op)")
                continue
            source = producers.get(node.inputs[0])
            if source is None or source.op_type != "QuantizeLinear":
                problems.append(f"node '{node.name}' (DequantizeLinear): its input '{node.inputs[0]}' is "
                                "neither a constant nor the output of a QuantizeLinear")
                continue
            q_params = _as_int8_params(*_params(graph, source))
            dq_params = _as_int8_params(*_params(graph, node))
            constant = graph.constant(source.inputs[0]) is not None  # quantized at run time
            if not _same(q_params, dq_params) or (q_params.axis is not None and not constant):
                problems.append(f"node '{node.name}' (DequantizeLinear): its scale / zero point differ from "
                                f"its QuantizeLinear '{source.name}' or are not per tensor")
                continue
            if constant:
                _fake_quantized_constant(graph, source.inputs[0], node.outputs[0], q_params)
                continue
            merges.append((source.inputs[0], node.outputs[0], q_params))
        except ValueError as error:
            problems.append(f"node '{node.name}' ({node.op_type}): {error}")
    if problems:
        raise ConversionError("the QDQ model cannot be imported as int8:\n  - " + "\n  - ".join(problems))
    graph.nodes = keep
    for source, copy, params in merges:
        _merge(graph, source, copy, params)
    for node in graph.nodes:  # remove_identity later makes the producer write the Identity's output
        if node.op_type == "Identity" and graph.tensors[node.outputs[0]].quant is None:
            graph.tensors[node.outputs[0]].quant = graph.tensors[node.inputs[0]].quant
    graph.remove_unused_tensors()
    int8_weighted = {node.name for node in graph.nodes
                     if node.op_type in WEIGHTED_ONNX_OPS and len(node.inputs) > 1
                     and graph.tensors[node.inputs[1]].data is not None
                     and graph.tensors[node.inputs[1]].quant is not None}
    return int8_weighted


def _merge(graph: Graph, source: str, copy: str, params: QuantParams) -> None:
    """Makes readers of the dequantized ``copy`` read ``source``; a graph output keeps its name."""
    kept, gone = source, copy
    if copy in graph.outputs and source not in graph.outputs and source not in graph.inputs:
        kept, gone = copy, source  # the producer writes the output's own name
        for node in graph.nodes:
            node.outputs = [kept if name == gone else name for name in node.outputs]
        graph.tensors[kept].dtype = graph.tensors[gone].dtype or graph.tensors[kept].dtype
        graph.tensors[kept].shape = graph.tensors[gone].shape or graph.tensors[kept].shape
    elif copy in graph.outputs:  # both names are outputs (or the source is an input): copy the value
        for node in graph.nodes:
            node.inputs = [source if name == copy else name for name in node.inputs]
        graph.nodes.append(Node("Identity", graph.unique_name(f"{copy}_identity"), [source], [copy]))
        gone = ""
    if gone:
        graph.replace_uses(gone, kept)
    existing = graph.tensors[kept].quant
    if existing is not None and not _same(existing, params):
        raise ConversionError(f"tensor '{kept}' is quantized twice with different scales / zero points")
    graph.tensors[kept].quant = params


DenseTags = dict[str, tuple[QuantParams | None, QuantParams | None]]


def dense_tags(graph: Graph) -> DenseTags:
    """The tags of the weights and biases of Gemm / MatMul nodes, by node name, with the weight's
    per-channel axis restated for the [N, K] FULLY_CONNECTED weight that lowering builds (it
    writes new, untagged constants: transposed, or scaled by a Gemm alpha, which we do not tag)."""
    saved: DenseTags = {}
    for node in graph.nodes:
        if node.op_type not in ("Gemm", "MatMul") or len(node.inputs) < 2:
            continue
        weight = graph.tensors.get(node.inputs[1])
        if weight is None or weight.data is None or weight.quant is None or weight.data.ndim != 2:
            continue
        if float(node.attrs.get("alpha", 1.0)) != 1.0 or node.attrs.get("transA", 0):
            continue
        trans_b = node.op_type == "Gemm" and bool(node.attrs.get("transB", 0))
        n_axis = 0 if trans_b else 1
        quant = weight.quant
        if quant.axis is not None and quant.axis != n_axis:
            continue  # per input channel: not expressible as per output channel
        weight_tag = QuantParams(quant.scale, quant.zero_point, None if quant.axis is None else 0)
        bias_tag = None
        if node.op_type == "Gemm" and len(node.inputs) > 2 and node.inputs[2]:
            bias = graph.tensors.get(node.inputs[2])
            if float(node.attrs.get("beta", 1.0)) == 1.0 and bias is not None:
                bias_tag = bias.quant
        saved[node.name] = (weight_tag, bias_tag)
    return saved


def restore_dense_tags(graph: Graph, saved: DenseTags) -> None:
    """Puts :func:`dense_tags` back on the FULLY_CONNECTED nodes lowering made of those nodes."""
    for node in graph.nodes:
        if node.op_type != "FULLY_CONNECTED" or node.name not in saved:
            continue
        weight_tag, bias_tag = saved[node.name]
        weight = graph.tensors[node.inputs[1]]
        if weight.quant is None and weight_tag is not None:
            weight.quant = weight_tag
        if len(node.inputs) > 2 and node.inputs[2] and bias_tag is not None:
            bias = graph.tensors[node.inputs[2]]
            bias.quant = bias.quant or bias_tag


@contextlib.contextmanager
def boundaries_kept(graph: Graph) -> Iterator[None]:
    """Keeps the optimizer's fusions from crossing what were Q/DQ boundaries while it runs.

    Every fusion pass rewrites a tensor in place only when it has one reader and is not a graph
    output (graph_queries.only_consumer). A QDQ model rounds each tagged activation to int8, so
    fusing across it (Conv + BatchNorm, x * relu6(x + 3) / 6 -> HardSwish, Conv + Sigmoid) would
    drop roundings the model's runtime does: the tagged activations are made graph outputs for the
    duration (from strip_qdq until after lowering) and the real outputs are restored after.
    """
    outputs = list(graph.outputs)
    producers = graph.producers()

    def folds_to_constant(name: str) -> bool:  # left to constant folding (the tag stays on the name)
        node = producers.get(name)
        return node is not None and all(graph.constant(n) is not None for n in node.inputs if n)

    graph.outputs += [name for name, tensor in graph.tensors.items()
                      if tensor.quant is not None and tensor.data is None and name not in outputs
                      and name not in graph.inputs and not folds_to_constant(name)]
    try:
        yield
    finally:
        graph.outputs = outputs
