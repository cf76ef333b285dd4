"""CPU seconds of one PP-OCRv4 rec training step (8 hard lines, 48x320, 1 torch thread), split into
teacher forward, student forward + loss, and backward + AdamW step; for the IR -> torch GraphModule
(what pruning's distillation trains) and for the QAT module (``int8_qat``, ranges frozen, l2 on the
logits). Process CPU time (``time.process_time``), so a loaded host inflates it less than wall time.

    .venv/bin/python -m benchmarks.qat_step_cost graph          # median of 5 steps after 1 warm-up
    .venv/bin/python -m benchmarks.qat_step_cost qat --profile  # torch.profiler table of one step
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import torch
from torch.profiler import ProfilerActivity, profile

from lite_converter.app import zoo
from slim.config import resolve_config
from slim.distill import output_loss
from slim.pipeline import prepare
from slim.qat import Fp32Module, LogitsView, qat_module
from slim.torch_ir import GraphModule, load_trainable
from tests.datasets import splits, text_lines


def training_step(
    kind: str, lines: np.ndarray, unfused: bool = False
) -> Callable[[], tuple[float, float, float]]:
    """A closure running one step of ``kind`` (graph, qat) and returning its three CPU times."""
    model = str(zoo.fetch("rec"))
    if kind == "graph":
        graph = load_trainable(model)
        student: torch.nn.Module = GraphModule(graph).train()
        teacher: torch.nn.Module = GraphModule(load_trainable(model)).eval()
        name = graph.inputs[0]
        if unfused:  # the decomposed hard-swish chains op by op (before slim/torch_ir/fuse_hard_swish.py)
            student._hard_swish = teacher._hard_swish = {}
    else:
        quant = resolve_config("int8")
        quant.progress = False
        prepared = prepare(model, [lines], quant)
        module = qat_module(prepared).train()
        module.range_offsets.requires_grad_(False)
        student = LogitsView(module, module.graph)
        teacher = LogitsView(Fp32Module(prepared.graph), prepared.graph)
        name = module.input_names[0]
    feeds = {name: torch.from_numpy(np.ascontiguousarray(lines))}
    optimizer = torch.optim.AdamW([p for p in student.parameters() if p.requires_grad], lr=1e-6)

    def step() -> tuple[float, float, float]:
        start = time.process_time()
        with torch.no_grad():
            reference = teacher.run(feeds)
        taught = time.process_time()
        produced = student.run(feeds)
        loss = sum(output_loss(produced[n], reference[n], "l2", 1.0) for n in teacher.output_names)
        forward = time.process_time()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return taught - start, forward - taught, time.process_time() - forward

    return step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kind", choices=("graph", "qat"))
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--unfused", action="store_true", help="graph: hard-swish chains op by op")
    parser.add_argument("--profile", action="store_true", help="a torch.profiler table of one step")
    args = parser.parse_args()
    torch.set_num_threads(1)
    lines = text_lines.rec_input(text_lines.render_lines(splits.TRAINING_SEED, 8)[0])
    step = training_step(args.kind, lines, args.unfused)
    step()
    if args.profile:
        with profile(activities=[ProfilerActivity.CPU]) as profiler:
            step()
        print(profiler.key_averages().table(sort_by="self_cpu_time_total", row_limit=30))
        return
    times = np.array([step() for _ in range(args.steps)])
    teacher, forward, backward = np.median(times, axis=0)
    total = np.median(times.sum(1))
    print(
        f"{args.kind}: CPU s per step of 8 lines, median of {args.steps}: teacher {teacher:.3f}, "
        f"student forward {forward:.3f}, backward + step {backward:.3f}, total {total:.3f}"
    )


if __name__ == "__main__":
    main()
