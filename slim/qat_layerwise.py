"""Layer-wise reconstruction for QAT: every int8 tensor of the student is distilled towards the fp32
tensor of the same name, and each CONV_2D / FULLY_CONNECTED sees its (quantized, upstream) input
without gradient, so each layer's weights learn to reproduce the fp32 layer's output from the int8
input they will get at run time.

The idea of AdaRound / BRECQ / QDrop (Nagel et al. 2020, Li et al. 2021, Wei et al. 2022): local
reconstruction losses give each layer a gradient of its own error rather than the end-to-end loss's
gradient, in which the rounding noise of every other layer is mixed (on PP-OCRv4 rec a step along
minus the end-to-end gradient of one batch raised that batch's loss at small step sizes, session
qat13). Here all layers train together in one forward / backward pass of the whole model (one
loss per tensor, averaged: slim.distill's feature loss), not block after block as in the papers;
the ranges and the export are QAT's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import torch
from torch import nn

from lite_converter.passes.quantize_int8 import INT8_SUFFIX
from slim.qat_module import QatModule


def matched_tensors(module: QatModule, fp32_names: set[str]) -> dict[str, str]:
    """{fp32 tensor name: int8 tensor name of the student} for every int8 node output whose name
    without the int8 suffix is a tensor of the fp32 graph (the pass keeps the fp32 names)."""
    pairs = {}
    for node in module.graph.nodes:
        if node.name not in module.int8_nodes or not node.outputs:
            continue
        name = node.outputs[0]
        source = name[: -len(INT8_SUFFIX)] if name.endswith(INT8_SUFFIX) else name
        if source in fp32_names and source not in module.output_names:
            pairs[source] = name
    return pairs


class LayerwiseView(nn.Module):
    """``inner`` (the QatModule, or a view of it) run with detached weighted-layer inputs in training,
    returning the matched int8 tensors under their fp32 names (for slim.distill's feature loss)."""

    def __init__(self, inner: nn.Module, module: QatModule, fp32_names: set[str]) -> None:
        super().__init__()
        self.inner, self.module = inner, module
        self.pairs = matched_tensors(module, fp32_names)
        self.output_names: list[str] = list(inner.output_names)  # type: ignore[arg-type]

    def run(
        self, feeds: Mapping[str, np.ndarray | torch.Tensor], keep: Iterable[str] = ()
    ) -> dict[str, torch.Tensor]:
        wanted = list(keep)
        self.module.detach_weighted_inputs = self.training
        try:
            result = self.inner.run(feeds, keep=[self.pairs.get(name, name) for name in wanted])  # type: ignore[operator]
        finally:
            self.module.detach_weighted_inputs = False
        values = {name: result[name] for name in self.output_names}
        values.update({name: result[self.pairs.get(name, name)] for name in wanted})
        return values


__all__ = ["LayerwiseView", "matched_tensors"]
