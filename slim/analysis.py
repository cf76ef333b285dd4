"""Quantization analysis: how far each int8 layer's output is from fp32, on the calibration data.

Two numbers per int8 layer, both against the fp32 graph's value of the same tensor:

* **SQNR** (dB) and **cosine** of the int8 model's output there (our runtime, dequantized): the error
  accumulated by every int8 layer up to this one, which is what the next layer receives;
* **local SQNR** (dB): the error this layer adds on its own — its int8 simulation
  (slim/fake_quant.py) fed the *fp32* inputs quantized with the layer's input parameters. It ranks
  layers by sensitivity (mixed precision keeps the lowest ones in fp32) independently of upstream
  errors.

SQNR = 10 log10(sum(ref^2) / sum((ref - int8)^2)) over all calibration batches; cosine is taken over
the flattened tensor of all batches. A negative SQNR is a real result (the error is larger than the
signal), reported and drawn as such.

Like with like: a layer is compared where the fp32 graph has the same value. The int8 pass splits a
fused HARD_SWISH / SIGMOID off its conv into a table (and composes it with the MUL / ADD after it);
the int8 conv's own output is then the value *before* the activation, which the fp32 graph never
computes, so the row follows the int8 maps to the tensor the fp32 conv's fused output stands for
(``int8_layers``) and its local SQNR simulates the conv and those maps together.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re

import numpy as np

from lite_converter.convert import ModelSource
from lite_converter.int8 import dequantize, quantize
from lite_converter.int8.params import per_tensor
from lite_converter.ir import Graph, Node
from lite_converter.passes.quantize_int8 import INT8_SUFFIX, MOVE_OPS
from lite_converter.passes.split_lookup_activation import LOOKUP_OPS
from slim.analysis_plot import write_plot
from slim.calibration_data import CalibrationInput
from slim.config import QuantConfig, resolve_config
from slim.fake_quant import simulate_node
from slim.output_agreement import Agreement, run_exposed
from slim.pipeline import Prepared, Quantized, prepare
from slim.pipeline import quantize as quantize_prepared


@dataclasses.dataclass
class LayerReport:
    node: str
    op: str
    sqnr_db: float
    cosine: float
    local_sqnr_db: float  # nan when the simulation does not cover the op


@dataclasses.dataclass
class AnalysisReport:
    """Per-layer agreement of an int8 model with its fp32 graph, and of each graph output."""

    layers: list[LayerReport]
    outputs: dict[str, tuple[float, float]]  # graph output -> (SQNR dB, cosine)
    fp32_nodes: list[str]

    def most_sensitive(self) -> list[str]:
        """Int8 layers, lowest local SQNR first. Every int8 op counts, pools included: an int8 op
        makes its input quantized, whoever produces it."""
        ranked = sorted((layer for layer in self.layers if not math.isnan(layer.local_sqnr_db)),
                        key=lambda layer: layer.local_sqnr_db)
        return [layer.node for layer in ranked]

    def table(self) -> str:
        width = max([len("layer"), *(len(layer.node) for layer in self.layers), *map(len, self.outputs)])
        lines = [f"{'layer':<{width}}  {'op':<19} {'SQNR dB':>8} {'cosine':>8} {'local dB':>9}"]
        for layer in self.layers:
            lines.append(f"{layer.node:<{width}}  {layer.op:<19} {layer.sqnr_db:8.2f} {layer.cosine:8.5f} "
                         f"{layer.local_sqnr_db:9.2f}")
        for name, (sqnr, cosine) in self.outputs.items():
            lines.append(f"{name:<{width}}  {'(graph output)':<19} {sqnr:8.2f} {cosine:8.5f}")
        if self.fp32_nodes:
            lines.append(f"kept in fp32: {', '.join(self.fp32_nodes)}")
        return "\n".join(lines)


@dataclasses.dataclass
class _Layer:
    """One row: an int8 node, the int8 maps that finish it (a fused activation split off into a table,
    composed with the affine MUL / ADD after it), and the tensor where int8 and fp32 are compared."""

    node: Node
    chain: list[Node]
    int8_tensor: str
    fp32_tensor: str

    @property
    def op(self) -> str:
        return self.node.op_type + ("+table" if self.chain else "")


def fp32_counterpart(int8_name: str, fp32: Graph) -> str | None:
    """The fp32 tensor that an int8 tensor of the quantized graph stands for: its name without the int8
    pass's suffix, when the fp32 graph has that activation (``y_preact_int8``, the input of a fused
    activation split off by the int8 pass, has none: there is no such value in the fp32 graph)."""
    base = _INT8_NAME.sub("", int8_name)
    tensor = fp32.tensors.get(base) if base != int8_name else None
    return base if tensor is not None and not tensor.is_constant else None


_INT8_NAME = re.compile(rf"{INT8_SUFFIX}(?:__\d+)?$")
_MAP_OPS = (*LOOKUP_OPS, "REQUANTIZE")  # int8 -> int8 maps of one tensor (tables)
_NOT_LAYERS = (*MOVE_OPS, "QUANTIZE", "DEQUANTIZE", "CONCAT", "RESIZE")


def int8_layers(quantized: Quantized, fp32: Graph) -> list[_Layer]:
    """The rows of the analysis, in graph order. A node whose output has no fp32 counterpart is followed
    through the int8 maps that read it (and only they) to the first tensor that has one, so an int8
    CONV_2D whose HARD_SWISH became a table is compared after the table, with the fp32 conv's fused
    output: like with like (before, the int8 value before the activation was compared with the fp32
    value after it, and PP-OCR rec showed -29 dB on layers that were fine)."""
    graph, chosen = quantized.graph, set(quantized.int8_nodes)
    readers = graph.consumers()
    absorbed: set[int] = set()
    layers = []
    for node in graph.nodes:
        if (node.name not in chosen or node.op_type in _NOT_LAYERS or id(node) in absorbed or not node.outputs
                or graph.tensors[node.outputs[0]].quant is None):
            continue
        chain: list[Node] = []
        out = node.outputs[0]
        while fp32_counterpart(out, fp32) is None and len(readers.get(out, [])) == 1 \
                and readers[out][0].op_type in _MAP_OPS and out not in graph.outputs:
            chain.append(readers[out][0])
            out = chain[-1].outputs[0]
        fp32_name = fp32_counterpart(out, fp32)
        if fp32_name is None or graph.tensors[out].quant is None:
            continue  # nothing in the fp32 graph means the same value
        absorbed.update(id(n) for n in chain)
        layers.append(_Layer(node, chain, out, fp32_name))
    return layers


def _local_output(layer: _Layer, quantized: Graph, fp32: Graph, reference: dict[str, np.ndarray]
                  ) -> np.ndarray:
    """The layer's int8 result from the *fp32* values of its inputs, each quantized with the layer's
    input parameters; ValueError / KeyError when an input has no fp32 counterpart or the simulation
    does not cover an op."""
    values: dict[str, np.ndarray] = {}
    for name in layer.node.inputs:
        tensor = quantized.tensors.get(name) if name else None
        if tensor is None or tensor.is_constant or tensor.quant is None:
            continue
        source = fp32_counterpart(name, fp32)
        if source is None:
            raise KeyError(name)
        values[name] = quantize(reference[source], *per_tensor(tensor.quant))
    result = simulate_node(quantized, layer.node, values)
    for node in layer.chain:
        result = simulate_node(quantized, node, {node.inputs[0]: result})
    return result


def measure(prepared: Prepared, quantized: Quantized) -> AnalysisReport:
    """Runs the fp32 and the int8 graph on the calibration batches and compares them layer by layer."""
    fp32, graph = prepared.graph, quantized.graph
    layers = int8_layers(quantized, fp32)
    reference_names = list(dict.fromkeys(
        [layer.fp32_tensor for layer in layers]
        + [source for layer in layers for name in layer.node.inputs if name
           for source in [fp32_counterpart(name, fp32)] if source is not None]))
    cumulative = {layer.node.name: Agreement() for layer in layers}
    local = {layer.node.name: Agreement() for layer in layers}
    outputs = {name: Agreement() for name in fp32.outputs}
    unsimulated: set[str] = set()
    fp32_runs = run_exposed(fp32, reference_names, prepared.batches)
    int8_runs = run_exposed(graph, [layer.int8_tensor for layer in layers], prepared.batches)
    for reference, values in zip(fp32_runs, int8_runs, strict=True):
        for layer in layers:
            name = layer.node.name
            expected = reference[layer.fp32_tensor]
            quant = graph.tensors[layer.int8_tensor].quant
            assert quant is not None
            cumulative[name].update(expected, dequantize(values[layer.int8_tensor], *per_tensor(quant)))
            if name in unsimulated:
                continue
            try:
                alone = _local_output(layer, graph, fp32, reference)
            except (ValueError, KeyError):  # an int8 op the simulation does not cover: no local SQNR
                unsimulated.add(name)
                continue
            local[name].update(expected, dequantize(alone, *per_tensor(quant)))
        for name, agreement in outputs.items():
            agreement.update(reference[name], values[name])
    report = [LayerReport(layer.node.name, layer.op, cumulative[layer.node.name].sqnr_db,
                          cumulative[layer.node.name].cosine,
                          math.nan if layer.node.name in unsimulated else local[layer.node.name].sqnr_db)
              for layer in layers]
    return AnalysisReport(report, {name: (a.sqnr_db, a.cosine) for name, a in outputs.items()},
                          sorted(quantized.skip_nodes))


def analyze(model: ModelSource, data: CalibrationInput,
            config: str | QuantConfig = "int8", input_shapes: dict[str, list[int]] | None = None,
            plot_path: str | os.PathLike | None = None) -> AnalysisReport:
    """Quantizes ``model`` as slim.compress would (without writing it) and reports, per int8 layer,
    the SQNR and cosine of its output against fp32; optionally writes the report as a PNG plot."""
    prepared = prepare(model, data, resolve_config(config), input_shapes)
    report = measure(prepared, quantize_prepared(prepared))
    if plot_path is not None:
        write_plot(report, plot_path)
    return report
