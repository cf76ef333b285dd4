"""Rewrites an ONNX-vocabulary graph into .lite ops (docs/OPS.md), the form the writer accepts.

Conventions of the lowered graph, relied on by the back half (layout pass, writer):

* ``op_type`` is an OpCode name of lite.fbs (``"CONV_2D"``); attrs are named exactly like the fields
  of the op's options table and hold nothing else, except ``layout`` (below);
* enum-valued attrs hold the enum member NAME as ``str``: ``padding="SAME_UPPER"``,
  ``mode="LINEAR"``, ``coordinate_mode="HALF_PIXEL"``, ``to="INT64"``, PAD ``mode="REFLECT"``,
  scatter ``reduction="ADD"``;
* ``activation`` is a dict ``{"kind": "RELU", "alpha": 0.0, "beta": 0.0}`` (kind = ActivationKind
  name, "NONE" when nothing is fused); with kind "PRELU" the CONV_2D has the slope as input 3;
* list attrs are python lists of int; CONSTANT_OF_SHAPE ``value`` is a 1-element numpy array of the
  output dtype;
* channels-last ops (CONV_2D, CONV_TRANSPOSE_2D, MAX/AVERAGE_POOL_2D, GLOBAL_*_POOL, RESIZE,
  DEPTH_TO_SPACE, SPACE_TO_DEPTH, INSTANCE_NORM_NHWC, LRN_NHWC) are still in the LOGICAL NCHW
  layout with ``layout="NCHW"``: CONV_2D weights OIHW, CONV_TRANSPOSE_2D weights ONNX
  [Cin, Cout/group, KH, KW]. The layout pass transposes data and weights and sets ``layout="NHWC"``;
* RESIZE inputs are (x, scales_hw, sizes_hw) with 2-element (h, w) vectors ("" when absent);
* every axis attr is normalized to [0, rank) when the rank is known;
* absent optional inputs are "" (trailing ones dropped); every tensor has a numpy dtype;
* compute ops see float32 only: float16/float64 models get CASTs around them (promote_float32.py).
"""

from __future__ import annotations

from lite_converter.frontends.onnx_type_inference import fill_gaps
from lite_converter.ir import ConversionError, Graph, Node
from lite_converter.passes.lowering import LOWERINGS
from lite_converter.passes.lowering.fuse_fc_bias import fuse_fc_bias
from lite_converter.passes.lowering.fuse_gelu import fuse_gelu
from lite_converter.passes.lowering.fuse_layer_norm import fuse_layer_norm
from lite_converter.passes.lowering.fuse_silu import fuse_silu
from lite_converter.passes.lowering.promote_float32 import promote_float32


def _lower_node(graph: Graph, node: Node) -> list[Node]:
    if node.domain or node.op_type not in LOWERINGS:
        op = f"{node.domain}::{node.op_type}" if node.domain else node.op_type
        raise ConversionError(f"node '{node.name}': op {op} has no .lite lowering")
    return LOWERINGS[node.op_type](graph, node)


def _unique_names(nodes: list[Node]) -> None:
    seen: set[str] = set()
    for node in nodes:
        base, k = node.name, 1
        while node.name in seen:
            node.name = f"{base}_{k}"
            k += 1
        seen.add(node.name)


def _check_dtypes(graph: Graph) -> None:
    missing = sorted(name for name, t in graph.tensors.items() if t.dtype is None)
    if missing:
        shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
        raise ConversionError(f"the dtype of {len(missing)} tensor(s) could not be inferred: {shown}")


def lower_to_lite(graph: Graph) -> None:
    """Replaces every ONNX node by its .lite equivalent, in place."""
    fill_gaps(graph)
    lowered: list[Node] = []
    for node in graph.nodes:
        lowered.extend(_lower_node(graph, node))
    graph.nodes = lowered
    fuse_fc_bias(graph)
    fuse_layer_norm(graph)
    fuse_silu(graph)
    fuse_gelu(graph)
    promote_float32(graph)
    _unique_names(graph.nodes)
    graph.toposort()
    graph.remove_unused_tensors()
    _check_dtypes(graph)
