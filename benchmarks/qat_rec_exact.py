"""PP-OCRv4 rec after int8_qat: every int8 tensor of the runtime against the QAT module's simulation.

Trains rec's QAT module for a few steps on unlabeled hard lines of the training seed (so weights and
ranges have moved off their PTQ values, as a full run moves them), exports it, runs the exported
.lite on held-apart lines with every tensor exposed, and prints the largest difference in LSB per
int8 tensor (issue 13's bound: 1). Where an fp32 tensor enters int8 (a QUANTIZE: the input-side
layers the `int8` preset keeps in fp32, the attention's fp32 islands), the simulation quantizes the
runtime's fp32 value: torch's and the runtime's fp32 differ in the last bits (summation order), and
a rounding flipped there would spread through every int8 layer after it. The unit tests do this
for PP-OCRv4 cls and a small net (tests/test_qat_exact.py); rec is too slow for ``make test``.

    .venv/bin/python -m benchmarks.qat_rec_exact --steps 4 --lines 2
"""

from __future__ import annotations

import argparse
import collections
import time

import numpy as np
import torch

from lite_converter.app import zoo
from slim.finetune_config import FinetuneConfig
from slim.qat import quantization_aware_training
from slim.qat_config import QatConfig
from tests.datasets import splits, text_lines
from tests.slim_oracle import runtime_values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--lines", type=int, default=2, help="held-apart lines compared")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    lines = text_lines.rec_input(text_lines.render_lines(splits.TRAINING_SEED, 8 * args.steps)[0])
    training = [lines[i:i + 8] for i in range(0, len(lines), 8)]  # the first calibrate the PTQ start
    crops, _ = text_lines.render_lines(splits.EVALUATION_SEED, args.lines)
    feeds = {"x": text_lines.rec_input(crops)}
    config = QatConfig(finetune=FinetuneConfig(steps=args.steps, learning_rate=5e-5, batch_size=8,
                                               progress=False), range_learning_rate=5e-3)
    config.quant.progress = False
    start = time.perf_counter()
    result = quantization_aware_training(str(zoo.fetch("rec")), training, config)
    print(f"{args.steps} QAT steps + export: {time.perf_counter() - start:.0f} s")
    module, graph = result.module.eval(), result.quantized.graph
    feeds = {graph.inputs[0]: feeds["x"]}
    values = runtime_values(graph, feeds)
    borders = {node.inputs[0]: values[node.inputs[0]] for node in graph.nodes
               if node.op_type == "QUANTIZE" and graph.tensors[node.inputs[0]].data is None}
    with torch.no_grad():
        simulated = module.run(feeds, quantize_inputs=borders)
    names = [name for name, t in graph.tensors.items() if t.dtype == np.int8 and t.data is None]
    missing = [name for name in names if name not in module.int8_codes]
    errors = {name: int(np.abs(values[name].astype(np.int64) - module.int8_codes[name].numpy()).max())
              for name in names if name not in missing}
    histogram = collections.Counter(errors.values())
    output = graph.outputs[0]
    drift = float(np.abs(values[output] - simulated[output].numpy()).max())
    print(f"{len(errors)} int8 tensors compared on {args.lines} lines ({len(missing)} not simulated); "
          f"max |runtime - QAT| in LSB: {max(errors.values())}; histogram {dict(sorted(histogram.items()))}; "
          f"output max |diff| {drift:.3g}")


if __name__ == "__main__":
    main()
