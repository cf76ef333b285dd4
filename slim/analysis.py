"""Quantization analysis: how far each int8 layer's output is from fp32, on the calibration data.

Two numbers per int8 layer, both against the fp32 graph's value of the same tensor:

* **SQNR** (dB) and **cosine** of the int8 model's output there (our runtime, dequantized): the error
  accumulated by every int8 layer up to this one, which is what the next layer receives;
* **local SQNR** (dB): the error this layer adds on its own — its int8 simulation
  (slim/fake_quant.py) fed the *fp32* inputs quantized with the layer's input parameters. It ranks
  layers by sensitivity (mixed precision keeps the lowest ones in fp32) independently of upstream
  errors.

SQNR = 10 log10(sum(ref^2) / sum((ref - int8)^2)) over all calibration batches; cosine is taken over
the flattened tensor of all batches.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Iterator

import numpy as np

from lite_converter.convert import ModelSource
from lite_converter.int8 import dequantize, quantize
from lite_converter.int8.params import per_tensor
from lite_converter.ir import Graph, Node
from lite_converter.passes.quantize_int8 import MOVE_OPS
from runtime_arm import Interpreter
from slim.analysis_plot import write_plot
from slim.calibrate import with_outputs
from slim.calibration_data import CalibrationInput
from slim.config import QuantConfig, resolve_config
from slim.fake_quant import simulate_node
from slim.pipeline import Prepared, Quantized, prepare
from slim.pipeline import quantize as quantize_prepared


class Agreement:
    """Accumulates SQNR and cosine between a reference and a test signal over batches."""

    def __init__(self) -> None:
        self.signal = self.noise = self.dot = self.test_energy = 0.0

    def update(self, reference: np.ndarray, test: np.ndarray) -> None:
        # elementwise products and sums, not BLAS dot products: BLAS threads crawl on a loaded machine
        ref, got = np.asarray(reference, np.float64).reshape(-1), np.asarray(test, np.float64).reshape(-1)
        self.signal += float(np.square(ref).sum())
        self.noise += float(np.square(ref - got).sum())
        self.dot += float((ref * got).sum())
        self.test_energy += float(np.square(got).sum())

    @property
    def sqnr_db(self) -> float:
        if self.noise == 0.0:
            return math.inf
        return 10.0 * math.log10(self.signal / self.noise) if self.signal > 0 else -math.inf

    @property
    def cosine(self) -> float:
        norms = math.sqrt(self.signal * self.test_energy)
        return self.dot / norms if norms > 0 else float(self.signal == self.test_energy)


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


def _run_exposed(graph: Graph, names: list[str], batches: list[dict[str, np.ndarray]]
                 ) -> Iterator[dict[str, np.ndarray]]:
    """Per batch: the values of ``names`` (and the graph outputs and the batch's inputs)."""
    with Interpreter(model_content=with_outputs(graph, names)) as interpreter:
        for batch in batches:
            values = dict(interpreter.run(batch))
            values.update(batch)
            yield values


def reference_outputs(prepared: Prepared) -> list[dict[str, np.ndarray]]:
    """The fp32 graph's outputs on each calibration batch."""
    return list(_run_exposed(prepared.graph, [], prepared.batches))


def output_agreement(prepared: Prepared, quantized: Quantized,
                     references: list[dict[str, np.ndarray]]) -> dict[str, Agreement]:
    """Per graph output: the int8 model's agreement with the fp32 ``references``."""
    agreements = {name: Agreement() for name in prepared.graph.outputs}
    runs = _run_exposed(quantized.graph, [], prepared.batches)
    for reference, values in zip(references, runs, strict=True):
        for name, agreement in agreements.items():
            agreement.update(reference[name], values[name])
    return agreements


def _local_values(qnode: Node, fnode: Node, quantized: Graph, reference: dict[str, np.ndarray]
                  ) -> dict[str, np.ndarray]:
    """The int8 inputs of ``qnode`` made from the fp32 values of the same inputs of ``fnode``."""
    values: dict[str, np.ndarray] = {}
    for q_name, f_name in zip(qnode.inputs, fnode.inputs, strict=False):
        tensor = quantized.tensors.get(q_name) if q_name else None
        if tensor is None or tensor.is_constant or tensor.quant is None:
            continue
        values[q_name] = quantize(reference[f_name], *per_tensor(tensor.quant))
    return values


def measure(prepared: Prepared, quantized: Quantized) -> AnalysisReport:
    """Runs the fp32 and the int8 graph on the calibration batches and compares them layer by layer."""
    fp32_node = {node.name: node for node in prepared.graph.nodes}
    chosen = set(quantized.int8_nodes)
    layers = [node for node in quantized.graph.nodes
              if node.name in chosen and node.op_type not in MOVE_OPS and node.name in fp32_node
              and quantized.graph.tensors[node.outputs[0]].quant is not None]
    reference_names = list(dict.fromkeys(
        name for node in layers for name in (*fp32_node[node.name].inputs, fp32_node[node.name].outputs[0])
        if name and prepared.graph.constant(name) is None))
    cumulative = {node.name: Agreement() for node in layers}
    local = {node.name: Agreement() for node in layers}
    outputs = {name: Agreement() for name in prepared.graph.outputs}
    unsimulated: set[str] = set()
    fp32_runs = _run_exposed(prepared.graph, reference_names, prepared.batches)
    int8_runs = _run_exposed(quantized.graph, [node.outputs[0] for node in layers], prepared.batches)
    for reference, values in zip(fp32_runs, int8_runs, strict=True):
        for node in layers:
            fnode = fp32_node[node.name]
            expected = reference[fnode.outputs[0]]
            quant = quantized.graph.tensors[node.outputs[0]].quant
            assert quant is not None
            cumulative[node.name].update(expected, dequantize(values[node.outputs[0]], *per_tensor(quant)))
            if node.name in unsimulated:
                continue
            inputs = _local_values(node, fnode, quantized.graph, reference)
            try:
                alone = simulate_node(quantized.graph, node, inputs)
            except (ValueError, KeyError):  # an int8 op the simulation does not cover: no local SQNR
                unsimulated.add(node.name)
                continue
            local[node.name].update(expected, dequantize(alone, *per_tensor(quant)))
        for name, agreement in outputs.items():
            agreement.update(reference[name], values[name])
    report = [LayerReport(node.name, node.op_type, cumulative[node.name].sqnr_db,
                          cumulative[node.name].cosine,
                          math.nan if node.name in unsimulated else local[node.name].sqnr_db)
              for node in layers]
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
