"""Label-free early stopping of QAT (slim/qat_validation.py, slim/distill.py's ``validate``): the
decision-agreement score against an independent numpy arg-max, and the loop ending with the state
that scored best (recorded by the test itself when each score was taken), not the last one."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402

from slim.calibration_data import InputSpec  # noqa: E402
from slim.config import resolve_config  # noqa: E402
from slim.distill import distill_modules  # noqa: E402
from slim.finetune_config import FinetuneConfig  # noqa: E402
from slim.qat import quantization_aware_training, split_held_out  # noqa: E402
from slim.qat_config import QatConfig  # noqa: E402
from slim.qat_validation import DecisionAgreement  # noqa: E402
from slim.training_data import TrainingData  # noqa: E402
from tests.test_qat_exact import _residual_net  # noqa: E402

SPEC = [InputSpec("x", np.float32, [4, 6])]


class Linear(nn.Module):
    """``run`` like slim's modules: one output ``y`` = x @ weight, [batch, steps, classes]."""

    output_names = ["y"]

    def __init__(self, weight: np.ndarray) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.from_numpy(weight))

    def run(self, feeds: Mapping[str, np.ndarray | torch.Tensor], keep: Iterable[str] = ()) -> dict:
        x = torch.as_tensor(feeds["x"])
        return {"y": (x @ self.weight).reshape(x.shape[0], 2, -1)}


def test_decision_agreement_equals_numpy_argmax() -> None:
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((6, 10)).astype(np.float32), rng.standard_normal((6, 10)).astype(np.float32)
    teacher_weight = a
    student_weight = a + 0.6 * b  # agrees on some positions, not all
    batches = [{"x": rng.standard_normal((4, 6)).astype(np.float32)} for _ in range(3)]
    score = DecisionAgreement(Linear(student_weight), Linear(teacher_weight), batches)()
    x = np.concatenate([batch["x"] for batch in batches])
    expected = np.mean(
        (x @ student_weight).reshape(-1, 2, 5).argmax(-1) == (x @ teacher_weight).reshape(-1, 2, 5).argmax(-1)
    )
    assert 0.2 < expected < 0.95  # the case is not trivial
    assert score == pytest.approx(expected)


def test_the_best_scoring_state_is_restored_not_the_last() -> None:
    rng = np.random.default_rng(2)
    student = Linear(rng.standard_normal((6, 10)).astype(np.float32)).train()
    teacher = Linear(rng.standard_normal((6, 10)).astype(np.float32))
    data = TrainingData(rng.standard_normal((32, 6)).astype(np.float32), SPEC, batch_size=4)
    scores = iter([0.1, 0.2, 0.7, 0.3, 0.4])  # best at the third validation: step 4
    seen: list[np.ndarray] = []

    def validate() -> float:
        seen.append(student.weight.detach().numpy().copy())
        return next(scores)

    config = FinetuneConfig(steps=8, learning_rate=0.05, validate_every=2, progress=False, loss="l2")
    report = distill_modules(student, teacher, data, config, validate=validate)
    assert [step for step, _ in report.validation] == [0, 2, 4, 6, 8]
    assert report.best_step == 4
    assert len(report.validation_cpu) == 5 and report.validation_cpu == sorted(report.validation_cpu)
    assert not np.allclose(seen[2], seen[4])  # training moved the weights after the best step
    np.testing.assert_array_equal(student.weight.detach().numpy(), seen[2])


def test_split_held_out_keeps_the_last_batches_apart() -> None:
    rng = np.random.default_rng(3)
    batches = [rng.standard_normal((4, 6)).astype(np.float32) for _ in range(5)]
    training, held = split_held_out(TrainingData(batches, SPEC, 4), 2)
    assert training.num_batches == 3
    for got, want in zip(held, batches[3:], strict=True):
        np.testing.assert_array_equal(got["x"], want)
    with pytest.raises(ValueError, match="leaves no training data"):
        split_held_out(TrainingData(batches, SPEC, 4), 5)


def test_qat_with_validation_exports_the_best_state(tmp_path: Path) -> None:
    model = _residual_net(tmp_path / "residual.onnx")
    rng = np.random.default_rng(4)
    data = [rng.standard_normal((2, 3, 21, 19)).astype(np.float32) for _ in range(6)]
    quant = dataclasses.replace(resolve_config("int8"), progress=False)
    finetune = FinetuneConfig(steps=4, learning_rate=1e-3, validate_every=2, progress=False)
    result = quantization_aware_training(
        model, data, QatConfig(quant=quant, finetune=finetune, validation_batches=2)
    )
    report = result.report
    assert report is not None and [step for step, _ in report.validation] == [0, 2, 4]
    best = max(report.validation, key=lambda item: item[1])
    assert report.best_step == best[0]
    assert all(0.0 <= score <= 1.0 for _, score in report.validation)
