"""Keeping chosen intermediate tensors as extra graph outputs, to debug a conversion layer by layer.

``convert(..., keep_tensors=[...])`` lists source-model tensor names (e.g. every node output of an
ONNX model) that should come out of the ``.lite`` model beside its own outputs, so that each can be
compared with the source framework's value (tests/test_layer_oracles.py does this against
onnxruntime). The pass runs after optimization and lowering, just before the channels-last pass:

* fusions have happened already, so keeping a tensor never turns a fusion off; a tensor that a
  fusion removed (a Conv's output folded into the BatchNormalization / activation after it) simply
  is not kept: the fused op's output carries the name of the last op it absorbed, and that one is;
* the channels-last pass brings every graph output back to the source model's layout under its own
  name, so a kept tensor reads in the layout of the source model (NCHW for ONNX), not NHWC.

A kept tensor that a runtime op would otherwise compute inside a fused pair (a 1x1 convolution
feeding a depthwise one, runtime_arm/src/ops/conv2d_pointwise_depthwise.h) now has a second reader,
so the runtime runs that pair as two ops: keep such tensors only when that is what you want.
"""

from __future__ import annotations

from collections.abc import Iterable

from lite_converter.ir import ConversionError, Graph


def keep_as_outputs(graph: Graph, names: Iterable[str]) -> list[str]:
    """Appends each named activation that survived the passes so far to ``graph.outputs`` (in the
    order given, after the model's own outputs) and returns the names it appended; constants,
    graph inputs, tensors already output and names no node writes any more are left out."""
    written = {output for node in graph.nodes for output in node.outputs if output}
    taken = set(graph.outputs) | set(graph.inputs)
    kept: list[str] = []
    for name in names:
        tensor = graph.tensors.get(name)
        if name in taken or name not in written or tensor is None or tensor.is_constant:
            continue
        graph.outputs.append(name)
        graph.output_layouts.setdefault(name, "")
        taken.add(name)
        kept.append(name)
    return kept


def check_known(graph: Graph, names: Iterable[str]) -> None:
    """Refuses, all at once, the names the source model does not have (before any pass ran)."""
    unknown = [name for name in names if name not in graph.tensors]
    if unknown:
        shown = ", ".join(repr(name) for name in unknown[:20])
        more = f" and {len(unknown) - 20} more" if len(unknown) > 20 else ""
        raise ConversionError(f"keep_tensors: the model has no tensor named {shown}{more}")
