"""The IR graph as a ``torch.nn.Module``: the model's weights become parameters, its nodes run in torch.

``GraphModule(graph)`` walks the graph's nodes in order and computes each with the op table
(slim/torch_ir/registry.py); gradients flow through every op, so the model imported from ONNX,
TFLite or Paddle can be fine-tuned, distilled or quantization-aware trained without the user's
training code. ``write_back`` puts the trained values into the IR, which then goes through the
converter's normal passes and writer.

What is trainable: every floating-point constant with more than one element that a node reads as
a weight, bias, normalization scale or elementwise operand (per-channel affine, positional
embeddings). Single values stay fixed: they are the 3 and 6 of a decomposed hard-swish or a Clip
bound as often as a learned scalar, and changing them would keep the converter from recognizing
the activation. BatchNorm statistics are frozen (inference BN) unless ``bn_train=True``, where
they are updated from the batches in training mode.
"""

from __future__ import annotations

import collections
from collections.abc import Iterable, Mapping

import numpy as np
import torch
from torch import nn

from lite_converter.frontends import fused_activation
from lite_converter.ir import ConversionError, Graph
from slim.torch_ir import ops_elementwise, ops_nn, ops_shape  # noqa: F401 - they register the ops
from slim.torch_ir.fuse_hard_swish import hard_swish_chains
from slim.torch_ir.registry import OPS

# Ops whose constant inputs at these positions are weights (trainable when larger than one value).
_WEIGHT_INPUTS: dict[str, tuple[int, ...]] = {
    "Conv": (1, 2), "ConvTranspose": (1, 2), "Gemm": (0, 1, 2), "MatMul": (0, 1),
    "BatchNormalization": (1, 2), "InstanceNormalization": (1, 2), "LayerNormalization": (1, 2),
    "Add": (0, 1), "Sub": (0, 1), "Mul": (0, 1), "Div": (0, 1), "PRelu": (1,),
}


class TorchExecutorError(ConversionError):
    """The graph uses something the torch executor cannot run; the message lists every such node."""


def unsupported_nodes(graph: Graph) -> list[str]:
    """One line per op type the executor lacks, with the nodes that use it."""
    missing: dict[str, list[str]] = collections.defaultdict(list)
    for node in graph.nodes:
        if node.domain or node.op_type not in OPS:
            missing[f"{node.domain}::{node.op_type}" if node.domain else node.op_type].append(node.name)
    return [f"{op}: {len(names)} node(s) {', '.join(names[:5])}{' ...' if len(names) > 5 else ''}"
            for op, names in sorted(missing.items())]


def trainable_constants(graph: Graph) -> set[str]:
    """Names of the constants GraphModule makes parameters (see the module docstring)."""
    names: set[str] = set()
    for node in graph.nodes:
        for index in _WEIGHT_INPUTS.get(node.op_type, ()):
            if index < len(node.inputs) and node.inputs[index]:
                value = graph.constant(node.inputs[index])
                if value is not None and value.dtype.kind == "f" and value.size > 1:
                    names.add(node.inputs[index])
    return names


class GraphModule(nn.Module):
    """A torch module computing the IR graph; parameters and buffers are named by index, and
    ``tensor_names`` maps each to the IR tensor it came from."""

    def __init__(self, graph: Graph, bn_train: bool = False, frozen: Iterable[str] = ()) -> None:
        super().__init__()
        problems = unsupported_nodes(graph)
        if problems:
            listed = "\n  - ".join(problems)
            raise TorchExecutorError(f"the torch executor cannot run these ops:\n  - {listed}")
        self.graph = graph
        self.opset = graph.opset or 13
        self.bn_train = bn_train
        self.input_names = list(graph.inputs)
        self.output_names = list(graph.outputs)
        trainable = trainable_constants(graph) - set(frozen)
        used = {name for node in graph.nodes for name in node.inputs if name} | set(graph.outputs)
        self._keys: dict[str, str] = {}
        for index, name in enumerate(sorted(n for n in used if graph.constant(n) is not None)):
            value = torch.from_numpy(np.array(graph.constant(name), copy=True))
            if name in trainable:
                key = f"p{index}"
                self.register_parameter(key, nn.Parameter(value))
            else:
                key = f"c{index}"
                self.register_buffer(key, value)
            self._keys[name] = key
        self.tensor_names = {key: name for name, key in self._keys.items()}
        self._last_use = self._last_uses(graph)
        self._hard_swish = hard_swish_chains(graph)

    @staticmethod
    def _last_uses(graph: Graph) -> dict[int, list[str]]:
        """Node index -> activations read for the last time there (freed after it runs)."""
        last: dict[str, int] = {}
        for index, node in enumerate(graph.nodes):
            for name in node.inputs:
                if name and graph.constant(name) is None:
                    last[name] = index
        result: dict[int, list[str]] = collections.defaultdict(list)
        for name, index in last.items():
            if name not in graph.outputs:
                result[index].append(name)
        return result

    @property
    def float_dtype(self) -> torch.dtype:
        for value in self.parameters():
            return value.dtype
        for value in self.buffers():
            if value.is_floating_point():
                return value.dtype
        return torch.float32

    def constant(self, name: str) -> torch.Tensor:
        """The parameter or buffer holding the IR constant ``name``."""
        return getattr(self, self._keys[name])

    def parameter_names(self) -> dict[str, nn.Parameter]:
        """IR tensor name -> its parameter."""
        return {self.tensor_names[key]: value for key, value in self.named_parameters()}

    def _as_tensor(self, value: np.ndarray | torch.Tensor) -> torch.Tensor:
        tensor = value if isinstance(value, torch.Tensor) else torch.from_numpy(np.ascontiguousarray(value))
        return tensor.to(self.float_dtype) if tensor.is_floating_point() else tensor

    def run(self, feeds: Mapping[str, np.ndarray | torch.Tensor],
            keep: Iterable[str] = ()) -> dict[str, torch.Tensor]:
        """The graph outputs and the tensors named in ``keep``, by name."""
        env: dict[str, torch.Tensor] = {name: self.constant(name) for name in self._keys}
        missing = [name for name in self.input_names if name not in feeds]
        if missing:
            raise ValueError(f"missing model input(s) {missing}; the model's inputs are {self.input_names}")
        for name in self.input_names:
            env[name] = self._as_tensor(feeds[name])
        wanted = set(self.output_names) | set(keep)
        chains = {i: c for i, c in self._hard_swish.items() if not c.inner & wanted}
        skipped = {i for chain in chains.values() for i in chain.others}
        for index, node in enumerate(self.graph.nodes):
            if index in chains:  # a decomposed hard-swish as one op (slim/torch_ir/fuse_hard_swish.py)
                chain = chains[index]
                env[chain.output] = chain.function(env[chain.x])
            if index in chains or index in skipped:
                for name in self._last_use.get(index, ()):
                    if name not in wanted:
                        env.pop(name, None)
                continue
            values = [env[name] if name else None for name in node.inputs]
            try:
                result = OPS[node.op_type](node, values, self)
            except (RuntimeError, IndexError, ValueError, TypeError) as error:
                shapes = [None if v is None else list(v.shape) for v in values]
                raise TorchExecutorError(f"node '{node.name}' ({node.op_type}) failed in torch on input "
                                         f"shapes {shapes}: {error}") from error
            outputs = [result] if isinstance(result, torch.Tensor) else list(result)
            if fused_activation.ATTR in node.attrs:
                slope = env.get(node.attrs[fused_activation.ATTR].get("slope", ""))
                outputs[0] = ops_elementwise.apply_fused_activation(node, outputs[0], slope)
            for name, value in zip(node.outputs, outputs, strict=False):
                if name:
                    env[name] = value
            for name in self._last_use.get(index, ()):
                if name not in wanted:
                    env.pop(name, None)
        return {name: env[name] for name in wanted}

    def forward(self, *inputs: torch.Tensor,
                **named: torch.Tensor) -> torch.Tensor | tuple[torch.Tensor, ...]:
        """Positional inputs in the graph's input order (or by name); one output, or a tuple."""
        feeds = dict(zip(self.input_names, inputs, strict=False))
        feeds.update(named)
        result = self.run(feeds)
        outputs = tuple(result[name] for name in self.output_names)
        return outputs[0] if len(outputs) == 1 else outputs


def write_back(module: GraphModule, graph: Graph | None = None) -> Graph:
    """Copies the module's parameters and buffers (BN statistics too) into ``graph`` (default: the
    module's own graph), each in the dtype the IR had; returns the graph."""
    target = module.graph if graph is None else graph
    state = dict(module.named_parameters()) | dict(module.named_buffers())
    for key, value in state.items():
        name = module.tensor_names[key]
        tensor = target.tensors.get(name)
        if tensor is None or tensor.data is None:
            continue
        tensor.data = value.detach().cpu().numpy().astype(tensor.data.dtype).reshape(tensor.data.shape)
    return target
