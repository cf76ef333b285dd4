"""How far an int8 graph's outputs are from the fp32 graph's on the calibration batches (SQNR, cosine):
shared by the per-layer analysis, mixed precision and the range search."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lite_converter.ir import Graph
from runtime_arm import Interpreter
from slim.calibrate import with_outputs
from slim.quantize_prepared import Prepared, Quantized


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


def run_exposed(graph: Graph, names: list[str], batches: list[dict[str, np.ndarray]]
                 ) -> Iterator[dict[str, np.ndarray]]:
    """Per batch: the values of ``names`` (and the graph outputs and the batch's inputs)."""
    with Interpreter(model_content=with_outputs(graph, names)) as interpreter:
        for batch in batches:
            values = dict(interpreter.run(batch))
            values.update(batch)
            yield values


def reference_outputs(prepared: Prepared) -> list[dict[str, np.ndarray]]:
    """The fp32 graph's outputs on each calibration batch."""
    return list(run_exposed(prepared.graph, [], prepared.batches))


def output_agreement(prepared: Prepared, quantized: Quantized,
                     references: list[dict[str, np.ndarray]]) -> dict[str, Agreement]:
    """Per graph output: the int8 model's agreement with the fp32 ``references``."""
    agreements = {name: Agreement() for name in prepared.graph.outputs}
    runs = run_exposed(quantized.graph, [], prepared.batches)
    for reference, values in zip(references, runs, strict=True):
        for name, agreement in agreements.items():
            agreement.update(reference[name], values[name])
    return agreements
