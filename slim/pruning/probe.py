"""A probe run: the graph executed once in torch on one sample, to learn every tensor's concrete shape."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import torch

from lite_converter.ir import Graph
from slim.torch_ir.module import GraphModule


def probe_shapes(graph: Graph, feeds: Mapping[str, np.ndarray]) -> dict[str, list[int]]:
    """Shape of every tensor the graph computes (and of its inputs) for ``feeds``."""
    module = GraphModule(graph).eval()
    names = [name for node in graph.nodes for name in node.outputs if name]
    with torch.no_grad():
        values = module.run(feeds, keep=names)
    shapes = {name: list(value.shape) for name, value in values.items()}
    shapes.update({name: list(np.shape(feeds[name])) for name in graph.inputs})
    return shapes


def one_sample(graph: Graph, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The first sample of a batch (axis 0 kept) where the model's batch size is free, so a probe
    costs one inference; the batch as it is where the model fixes its size."""
    result = {}
    for name, value in feeds.items():
        shape = graph.tensors[name].shape
        static = shape is not None and len(shape) > 0 and isinstance(shape[0], int)
        result[name] = np.asarray(value) if static else np.asarray(value)[:1]
    return result
