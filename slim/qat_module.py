"""The int8 model as a trainable torch module: quantization-aware training that is the runtime.

``QatModule(fp32_graph, ranges, shapes, skip)`` runs the converter's own int8 pass on a copy of the
lowered fp32 graph (BatchNorm already folded into the convs, activations fused, channels-last),
without composing tables and without weight-only storage, and evaluates the int8 graph it returns
node by node in torch. So the int8 tensor boundaries, the per-channel weights, the int32 biases,
the fused clamps, the lookup activations (HARD_SWISH ...), the shared CONCAT ranges and the fp32
islands are exactly the pass's; nothing is re-decided here.

What is trained: the fp32 weights and biases of every CONV_2D / FULLY_CONNECTED (and LAYER_NORM's
affine), fake-quantized per channel as the pass will quantize them, and one range [low, high] per
group of int8 tensors that share a scale and zero point (an op's output with the pools and moves
that keep it, a CONCAT's inputs and output), from which scale and zero point follow as the pass
computes them (slim/qat_arith.py: LSQ through the step size, PACT-like through the clipped ends).

Forward values: in training, the real-valued fake-quant path (float32, STE); with ``exact`` (the
default in eval mode) each int8 op's codes are computed in integers as the runtime computes them
(fixed-point requantization, tables from lite_converter.int8) and the real value is their
dequantization, with the gradient of the real-valued path. ``int8_codes`` then holds every int8
tensor of the run by its name in the exported graph (tests compare them with the runtime's).

``export_ranges()`` gives the learned range of every fp32 tensor name the pass reads, and
``write_back(graph)`` the trained weights: the int8 pass run again with both makes the same int8
graph with the learned values (slim/qat.py).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping

import numpy as np
import torch
from torch import nn

from lite_converter.int8 import activation_range, channel_multipliers, lookup_table
from lite_converter.ir import ConversionError, Graph, Node
from lite_converter.lite_ops import Int8Role, int8_ops
from lite_converter.passes.quantize_int8 import INT8_SUFFIX, QuantizeInputs, quantize_int8, resize_moves_bytes
from lite_converter.passes.split_lookup_activation import LOOKUP_OPS
from lite_converter.passes.weight_only_int8 import MIN_ELEMENTS, WEIGHT_RANK
from slim import qat_arith as qa
from slim.qat_fp32_ops import FP32_OPS, UNARY, nhwc_conv

WEIGHTED = ("CONV_2D", "FULLY_CONNECTED")
TRAINED_INPUTS = {"CONV_2D": (1, 2), "FULLY_CONNECTED": (1, 2), "LAYER_NORM": (1, 2)}
MOVES = int8_ops(Int8Role.MOVE)


class QatError(ConversionError):
    """The int8 graph uses something QAT cannot simulate; the message lists every such node."""


def _unsupported(graph: Graph, int8_nodes: set[str]) -> list[str]:
    problems = []
    for node in graph.nodes:
        op = node.op_type
        if op in ("QUANTIZE", "DEQUANTIZE"):
            continue
        if node.name in int8_nodes:
            known = (
                op in WEIGHTED
                or op in ("ADD", "MUL", "MAX_POOL_2D", "GLOBAL_AVERAGE_POOL", "CONCAT", "RESIZE")
                or op in LOOKUP_OPS
                or op in MOVES
            )
        else:
            known = op in FP32_OPS and (op != "RESIZE" or resize_moves_bytes(graph, node))
        if not known:
            problems.append(f"{node.name} ({op}, {'int8' if node.name in int8_nodes else 'fp32'})")
    return problems


class _Groups:
    """int8 activation tensors sharing one scale and zero point: the same QuantParams object (the
    pass hands a pool's or a move's output its input's), or joined by an int8 CONCAT."""

    def __init__(self, graph: Graph, int8_nodes: set[str]) -> None:
        parent: dict[str, str] = {}

        def find(name: str) -> str:
            while parent[name] != name:
                parent[name] = parent[parent[name]]
                name = parent[name]
            return name

        by_object: dict[int, str] = {}
        for name, tensor in graph.tensors.items():
            if tensor.dtype == np.int8 and tensor.data is None and tensor.quant is not None:
                parent[name] = by_object.setdefault(id(tensor.quant), name)
        for node in graph.nodes:
            if node.op_type == "CONCAT" and node.name in int8_nodes:
                root = find(node.outputs[0])
                for name in node.inputs:
                    parent[find(name)] = root
        self.of = {name: find(name) for name in parent}
        self.roots = sorted(set(self.of.values()))


class QatModule(nn.Module):
    """The int8 graph of ``fp32_graph`` (a lowered graph, not modified) as a trainable module."""

    def __init__(
        self,
        fp32_graph: Graph,
        ranges: Mapping[str, tuple[float, float]],
        shapes: Mapping[str, set[tuple[int, ...]]] | None = None,
        skip: Iterable[str] = (),
        per_tensor_weights: bool = False,
        fp32_weights: Iterable[str] = (),
    ) -> None:
        super().__init__()
        graph = copy.deepcopy(fp32_graph)
        inputs = QuantizeInputs(
            dict(ranges),
            dict(shapes or {}),
            set(skip),
            weight_only=False,
            compose_tables=False,
            per_tensor_weights=per_tensor_weights,
        )
        self.per_tensor_weights = per_tensor_weights
        self.int8_nodes = set(quantize_int8(graph, inputs))
        problems = _unsupported(graph, self.int8_nodes)
        if problems:
            raise QatError(
                "quantization-aware training cannot simulate these nodes:\n  - " + "\n  - ".join(problems)
            )
        self.graph = graph
        self.input_names = list(graph.inputs)
        self.output_names = list(graph.outputs)
        self.exact: bool | None = None  # None: exact in eval mode only
        # layer-wise reconstruction (slim/qat_layerwise.py): each CONV_2D / FULLY_CONNECTED sees its
        # input without gradient, so a loss on a layer's output trains that layer alone
        self.detach_weighted_inputs = False
        self.int8_codes: dict[str, torch.Tensor] = {}
        self._fp32_nodes = {node.name: node for node in fp32_graph.nodes}
        self._keys: dict[str, str] = {}
        trained = self._trained_constants(graph, fp32_graph)
        constants = {
            name for node in graph.nodes for name in node.inputs if name and graph.constant(name) is not None
        }
        for node in graph.nodes:
            if node.name in self.int8_nodes and node.op_type in WEIGHTED:
                constants.update(name for name in self._fp32_nodes[node.name].inputs[1:3] if name)
        for index, name in enumerate(sorted(constants)):
            source = graph.constant(name)
            value = torch.from_numpy(
                np.array(fp32_graph.constant(name) if source is None else source, copy=True)
            )
            key = f"p{index}" if name in trained else f"c{index}"
            if name in trained:
                self.register_parameter(key, nn.Parameter(value))
            else:
                self.register_buffer(key, value)
            self._keys[name] = key
        self.tensor_names = {key: name for name, key in self._keys.items()}
        # skipped nodes the export gives fp32 weights back (slim/fp32_weights.py) are not fake-quantized
        named = set(fp32_weights)
        kept = {node.inputs[1] for node in graph.nodes if node.name in named and len(node.inputs) > 1}
        self._weight_only = weight_only_fake_quant(graph) - kept
        self._groups = _Groups(graph, self.int8_nodes)
        self._group_index = {root: i for i, root in enumerate(self._groups.roots)}
        bounds = []
        for root in self._groups.roots:
            quant = graph.tensors[root].quant
            assert quant is not None
            scale, zero_point = float(quant.scale.reshape(-1)[0]), int(quant.zero_point.reshape(-1)[0])
            bounds.append((scale * (-128 - zero_point), scale * (127 - zero_point)))
        base = torch.tensor(bounds, dtype=torch.float64).reshape(-1, 2)
        self.register_buffer("range_base", base)
        self.register_buffer("range_span", (base[:, 1] - base[:, 0]).clamp_min(1e-12))
        # the ranges move in units of their initial span, so one learning rate suits every tensor
        self.range_offsets = nn.Parameter(torch.zeros_like(base))

    @staticmethod
    def _trained_constants(graph: Graph, fp32_graph: Graph) -> set[str]:
        names = set()
        fp32_nodes = {node.name: node for node in fp32_graph.nodes}
        for node in graph.nodes:
            source = fp32_nodes.get(node.name, node) if node.op_type in WEIGHTED else node
            for index in TRAINED_INPUTS.get(node.op_type, ()):
                if index < len(source.inputs) and source.inputs[index]:
                    value = fp32_graph.constant(source.inputs[index])
                    if value is not None and value.dtype == np.float32 and value.size > 1:
                        names.add(source.inputs[index])
        return names

    # -- parameters --------------------------------------------------------------------------------
    def constant(self, name: str) -> torch.Tensor:
        return getattr(self, self._keys[name])

    def weight_parameters(self) -> list[nn.Parameter]:
        return [p for name, p in self.named_parameters() if name != "range_offsets"]

    def ranges(self) -> torch.Tensor:
        """[groups, 2] float64: each group's learned [low, high]."""
        return self.range_base + self.range_offsets * self.range_span[:, None]

    def export_ranges(self) -> dict[str, tuple[float, float]]:
        """fp32 tensor name -> learned range, for every int8 tensor's source name."""
        values = self.ranges().detach().tolist()
        result = {}
        for name, root in self._groups.of.items():
            low, high = values[self._group_index[root]]
            source = name[: -len(INT8_SUFFIX)] if name.endswith(INT8_SUFFIX) else name
            result[source] = (low, high)
        return result

    def write_back(self, graph: Graph) -> Graph:
        """Copies the trained weights into ``graph`` (a copy of the fp32 graph given at construction)."""
        for key, value in self.named_parameters():
            if key in self.tensor_names:
                tensor = graph.tensors[self.tensor_names[key]]
                assert tensor.data is not None
                tensor.data = value.detach().numpy().astype(tensor.data.dtype).reshape(tensor.data.shape)
        return graph

    # -- running -----------------------------------------------------------------------------------
    def _params(self, name: str, ranges: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        low, high = ranges[self._group_index[self._groups.of[name]]]
        return qa.activation_scale_zero_point(low, high)

    def run(
        self,
        feeds: Mapping[str, np.ndarray | torch.Tensor],
        keep: Iterable[str] = (),
        quantize_inputs: Mapping[str, np.ndarray] | None = None,
    ) -> dict[str, torch.Tensor]:
        """The graph outputs and the fp32 tensors named in ``keep``, by name.

        ``quantize_inputs``: fp32 values (e.g. the runtime's) to quantize in place of the module's own
        where an fp32 tensor enters int8 (a QUANTIZE node's input). An fp32 island computed by torch
        and by the runtime differs in the last bits (summation order), which flips a few roundings at
        the border and then spreads through the int8 layers after it; with the runtime's border values
        an exactness check compares the int8 arithmetic alone."""
        exact = (not self.training) if self.exact is None else self.exact
        ranges = self.ranges()
        real: dict[str, torch.Tensor] = {}
        codes: dict[str, torch.Tensor] = {}
        for name in self.input_names:
            value = feeds[name]
            real[name] = (
                value if isinstance(value, torch.Tensor) else torch.from_numpy(np.ascontiguousarray(value))
            )
        for name, key in self._keys.items():
            real[name] = getattr(self, key)
        for node in self.graph.nodes:
            out = node.outputs[0]
            if node.op_type == "QUANTIZE":
                s, zp = self._params(out, ranges)
                if quantize_inputs is not None and node.inputs[0] in quantize_inputs:
                    real[node.inputs[0]] = torch.from_numpy(np.asarray(quantize_inputs[node.inputs[0]]))
                real[out] = qa.fake_quantize(real[node.inputs[0]], s, zp)
                if exact:
                    codes[out] = qa.quantize_exact(real[node.inputs[0]], s.item(), int(zp.item()))
            elif node.op_type == "DEQUANTIZE":
                real[out] = real[node.inputs[0]]
            elif node.name in self.int8_nodes:
                self._int8_node(node, real, codes, ranges, exact)
            else:
                values = [real[n] if n else None for n in node.inputs]
                if node.op_type in WEIGHT_RANK and node.inputs[1] in self._weight_only:
                    weight = values[1]
                    assert weight is not None
                    scale = qa.weight_scales(weight, None)
                    values[1] = qa.weight_codes(weight, scale) * scale.reshape(
                        (-1,) + (1,) * (weight.dim() - 1)
                    )
                real[out] = FP32_OPS[node.op_type](node, values)
            if exact and out in codes:
                s, zp = self._params(out, ranges)
                value = qa.dequantize_exact(codes[out], s.item(), int(zp.item()))
                real[out] = real[out] + (value - real[out]).detach()
        self.int8_codes = codes if exact else {}
        wanted = [*self.output_names, *keep]
        return {name: real[name] for name in wanted}

    def forward(self, *inputs: torch.Tensor) -> torch.Tensor | tuple[torch.Tensor, ...]:
        result = self.run(dict(zip(self.input_names, inputs, strict=False)))
        outputs = tuple(result[name] for name in self.output_names)
        return outputs[0] if len(outputs) == 1 else outputs

    def _operand(
        self, name: str, real: dict[str, torch.Tensor], codes: dict[str, torch.Tensor], ranges: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """(real value, scale, zero point, codes) of an int8 operand, activation or int8 constant."""
        tensor = self.graph.tensors[name]
        if tensor.data is not None:
            assert tensor.quant is not None
            scale = torch.tensor(float(tensor.quant.scale.reshape(-1)[0]), dtype=torch.float32)
            zero_point = torch.tensor(float(tensor.quant.zero_point.reshape(-1)[0]), dtype=torch.float64)
            q = torch.from_numpy(np.asarray(tensor.data, np.int64))
            return qa.dequantize_exact(q, scale.item(), int(zero_point.item())), scale, zero_point, q
        s, zp = self._params(name, ranges)
        return real[name], s, zp, codes.get(name)

    def _int8_node(
        self,
        node: Node,
        real: dict[str, torch.Tensor],
        codes: dict[str, torch.Tensor],
        ranges: torch.Tensor,
        exact: bool,
    ) -> None:
        op, out = node.op_type, node.outputs[0]
        x_name = node.inputs[0]
        if op in MOVES or op in ("CONCAT", "RESIZE", "MAX_POOL_2D"):
            real[out] = FP32_OPS[op](node, [real[n] if n else None for n in node.inputs])
            if exact:
                values = [codes[n] if n in codes else real[n] for n in node.inputs if n]
                if op == "MAX_POOL_2D":
                    pooled = FP32_OPS[op](node, [values[0].to(torch.float64)])
                    codes[out] = pooled.to(torch.int64)
                else:
                    codes[out] = FP32_OPS[op](node, list(values)).to(torch.int64)
            return
        s_y, zp_y = self._params(out, ranges)
        s_y_f, zp_y_i = s_y.item(), int(zp_y.item())
        low, high = activation_range(node.attrs.get("activation"), s_y_f, zp_y_i)
        held = held_ends(node.attrs.get("activation"), low, high)
        if op == "GLOBAL_AVERAGE_POOL":
            real[out] = qa.fake_quantize(real[x_name].mean(dim=(1, 2), keepdim=True), s_y, zp_y)
            if exact:
                count = int(codes[x_name].shape[1] * codes[x_name].shape[2])
                total = (codes[x_name] - zp_y_i).sum(dim=(1, 2), keepdim=True)
                codes[out] = torch.clamp(qa.divide_round_half_away(total, count) + zp_y_i, -128, 127)
            return
        if op in LOOKUP_OPS:
            s_x, zp_x = self._params(x_name, ranges)
            a = node.attrs
            y = UNARY[op](real[x_name], float(a.get("alpha", 0.2)), float(a.get("beta", 0.5)))
            real[out] = qa.fake_quantize(y, s_y, zp_y, low, high, held)
            if exact:
                table = lookup_table(op, a, (s_x.item(), int(zp_x.item())), (s_y_f, zp_y_i))
                codes[out] = torch.from_numpy(table.astype(np.int64))[codes[x_name] + 128]
            return
        if op in ("ADD", "MUL"):
            a_real, s_a, zp_a, a_codes = self._operand(node.inputs[0], real, codes, ranges)
            b_real, s_b, zp_b, b_codes = self._operand(node.inputs[1], real, codes, ranges)
            y = a_real + b_real if op == "ADD" else a_real * b_real
            real[out] = qa.fake_quantize(y, s_y, zp_y, low, high, held)
            if exact:
                assert a_codes is not None and b_codes is not None
                binary = qa.add_exact if op == "ADD" else qa.mul_exact
                codes[out] = binary(
                    a_codes,
                    (s_a.item(), int(zp_a.item())),
                    b_codes,
                    (s_b.item(), int(zp_b.item())),
                    (s_y_f, zp_y_i),
                    low,
                    high,
                )
            return
        self._weighted(node, real, codes, ranges, exact, (s_y, zp_y, low, high), held)

    def _weighted(
        self,
        node: Node,
        real: dict[str, torch.Tensor],
        codes: dict[str, torch.Tensor],
        ranges: torch.Tensor,
        exact: bool,
        output: tuple[torch.Tensor, torch.Tensor, int, int],
        held: tuple[bool, bool],
    ) -> None:
        s_y, zp_y, low, high = output
        source = self._fp32_nodes[node.name]
        x_name, out = node.inputs[0], node.outputs[0]
        s_x, zp_x = self._params(x_name, ranges)
        weight = self.constant(source.inputs[1])
        bias = self.constant(source.inputs[2]) if len(source.inputs) > 2 and source.inputs[2] else None
        floor = None if bias is None else qa.bias_scale_floor(bias, s_x)
        w_scale = qa.weight_scales(weight, floor)
        if self.per_tensor_weights:  # every channel at the largest channel's scale (the pass's floor)
            w_scale = torch.full_like(w_scale, float(qa.weight_scales(weight, None).max())).maximum(w_scale)
        w_codes = qa.weight_codes(weight, w_scale)
        per_channel = (-1,) + (1,) * (weight.dim() - 1)
        w_real = w_codes * w_scale.reshape(per_channel)
        b_codes = None if bias is None else qa.bias_codes(bias, s_x, w_scale)
        b_real = (
            None
            if b_codes is None
            else (b_codes * (s_x.to(torch.float64) * w_scale.to(torch.float64))).to(torch.float32)
        )
        x = real[x_name].detach() if self.detach_weighted_inputs else real[x_name]
        if node.op_type == "CONV_2D":
            y = nhwc_conv(x, w_real, b_real, node.attrs)
        else:
            y = torch.nn.functional.linear(x, w_real, b_real)
        real[out] = qa.fake_quantize(y, s_y, zp_y, low, high, held)
        if not exact:
            return
        with torch.no_grad():
            centered = (codes[x_name] - int(zp_x.item())).to(torch.float64)
            w64, b64 = w_codes.detach().to(torch.float64), None if b_codes is None else b_codes.detach()
            if node.op_type == "CONV_2D":
                acc = nhwc_conv(centered, w64, b64, node.attrs)
            else:
                acc = torch.nn.functional.linear(centered, w64, b64)
            multiplier, shift = channel_multipliers(s_x.item(), w_scale.numpy(), s_y.item())
            codes[out] = qa.requantize_exact(torch.round(acc), multiplier, shift, int(zp_y.item()), low, high)


def held_ends(activation: dict | None, low: int, high: int) -> tuple[bool, bool]:
    """Which ends of a fused activation's clamp [low, high] are the activation's own bound rather
    than the int8 range's (slim.qat_arith.fake_quantize sends no range gradient from those): ReLU's
    low end always (its negatives are 0 wherever the range is), a CLIP's ends where they lie
    inside the int8 codes."""
    kind = (activation or {}).get("kind", "NONE")
    if kind == "RELU":
        return True, False
    if kind == "CLIP":
        return low > qa.INT8_MIN, high < qa.INT8_MAX
    return False, False


def weight_only_fake_quant(graph: Graph) -> set[str]:
    """Names of the fp32 weights the converter will store as int8 (weight_only_int8.py): QAT
    fake-quantizes them per channel too. (Kept in the simulation of fp32 islands.)"""
    names = set()
    for node in graph.nodes:
        rank = WEIGHT_RANK.get(node.op_type)
        weight = graph.constant(node.inputs[1]) if rank is not None and len(node.inputs) > 1 else None
        if (
            weight is not None
            and weight.dtype == np.float32
            and weight.ndim == rank
            and weight.size >= MIN_ELEMENTS
        ):
            names.add(node.inputs[1])
    return names
