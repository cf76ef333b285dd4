"""A label-free score of a QAT student: how often its decisions equal the fp32 model's.

For every output, the arg-max over the last axis (a classifier's class, a CTC recognizer's symbol per
time step, a detector's per-anchor class) of the int8 student is compared with the fp32 teacher's on
batches held out of training. The student runs its training-mode simulation (real-valued fake-quant,
no gradient) by default: the exact integer path (eval mode, ``exact=True``) computes its convolutions
in float64 and cost 5.2-6.6 CPU s per 8 PP-OCRv4 rec lines against 0.36-0.42 s (one thread), and the
two agree on 99.4% of rec's arg-max positions (session qat13). Why not
the training loss: on PP-OCRv4 rec the logits' l2 halved over 100 steps while character accuracy
stayed where it started (benchmarks/COMPRESSION.md, session qat13); the decisions are what a user
sees, and they need no labels. Ties are broken towards the teacher's decision being kept (a
position agrees only if the student's arg-max equals it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import torch
from torch import nn

from slim.distill import Runnable


class DecisionAgreement:
    """``score()``: the fraction of arg-max positions on which ``student`` equals ``teacher``,
    over ``batches`` (the teacher's decisions computed once)."""

    def __init__(self, student: nn.Module, teacher: Runnable, batches: Sequence[Mapping[str, np.ndarray]],
                 exact: bool = False) -> None:
        if not batches:
            raise ValueError("a decision-agreement score needs at least one held-out batch")
        self.student, self.exact = student, exact
        self.batches = [{n: torch.from_numpy(np.ascontiguousarray(v)) for n, v in b.items()} for b in batches]
        with torch.no_grad():
            self.decisions = [
                {n: v.argmax(-1) for n, v in teacher.run(b).items() if n in teacher.output_names}
                for b in self.batches
            ]

    def __call__(self) -> float:
        was_training = self.student.training
        self.student.train(not self.exact)
        agree = total = 0
        with torch.no_grad():
            for feeds, wanted in zip(self.batches, self.decisions, strict=True):
                produced = self.student.run(feeds)  # type: ignore[operator]
                for name, decision in wanted.items():
                    agree += int((produced[name].argmax(-1) == decision).sum())
                    total += decision.numel()
        self.student.train(was_training)
        return agree / max(total, 1)


__all__ = ["DecisionAgreement"]
