"""Bias compensation (slim/pruning/compensate.py, ``PruneConfig(compensate=True)``).

Oracle: a channel that is constant over the data (a zero filter with a positive bias, after ReLU)
carries no information, so removing it and moving its constant contribution into the consumer's
bias must give exactly the original model (onnxruntime on both ONNX files). The consumers cover
each handled kind: a 1x1 Conv, a Gemm (Linear after global pooling) and MatMul + Add (Linear on a
3-D input). Without compensation the same pruning moves the outputs, so the check can fail.
"""

from __future__ import annotations

import io

import numpy as np
import onnx
import onnxruntime
import pytest

torch = pytest.importorskip("torch")

import slim  # noqa: E402
from slim.pruning import allocate  # noqa: E402
from slim.pruning.groups import DependencyGraph, Group  # noqa: E402
from slim.pruning.pruner import PruneResult  # noqa: E402

CONSTANT = {"conv1": [1, 4, 6], "conv2": [0, 5], "fc1": [2, 3, 7]}  # channels made constant, per layer


class ConvNet(torch.nn.Module):
    """Conv consumer (1x1 after conv1) and Gemm consumer (Linear after pooling conv2)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 8, 1)
        self.fc = torch.nn.Linear(8, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.conv2(torch.relu(self.conv1(x))))
        return self.fc(y.mean(dim=(2, 3)))


class TokenNet(torch.nn.Module):
    """MatMul + Add consumer: Linear layers on a [batch, tokens, features] input."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(6, 8)
        self.fc2 = torch.nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


def _constant_channels(model: torch.nn.Module) -> None:
    """Zero filters with biases of 0.5-2: constant, non-zero channels after ReLU."""
    with torch.no_grad():
        for name, channels in CONSTANT.items():
            layer = getattr(model, name, None)
            if layer is not None:
                layer.weight[channels] = 0.0
                layer.bias[channels] = torch.linspace(0.5, 2.0, len(channels))


def _export(model: torch.nn.Module, shape: tuple[int, ...]) -> onnx.ModelProto:
    buffer = io.BytesIO()
    with torch.no_grad():
        torch.onnx.export(model.eval(), (torch.zeros(shape),), buffer, input_names=["x"], output_names=["y"],
                          opset_version=17, dynamo=False)
    return onnx.load_from_string(buffer.getvalue())


def _run(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0]


def _constant_first(dependencies: DependencyGraph, group: Group) -> np.ndarray:
    """Importance that ranks the constant channels of the group's producer lowest."""
    layer = next((name for name in CONSTANT if name in group.name), None)
    main = allocate.main_axis(group)
    return np.array([0.0 if layer and set(unit.indices[main]) <= set(CONSTANT[layer]) else 1.0
                     for unit in group.units])


def _pruned(onnx_model: onnx.ModelProto, data: np.ndarray, compensate: bool) -> PruneResult:
    groups = slim.prune_groups(onnx_model, data).prunable_groups
    ratios = {g.name: len(CONSTANT[layer]) / len(g.units)
              for g in groups for layer in CONSTANT if layer in g.name}
    config = slim.PruneConfig(ratios=ratios, criterion=_constant_first, round_to=1, finetune=None,
                              compensate=compensate)
    return slim.prune(onnx_model, data, config)


@pytest.mark.parametrize(("net", "shape"), [(ConvNet, (4, 3, 8, 8)), (TokenNet, (4, 5, 6))])
def test_constant_channels_removed_with_compensation_equal_the_original(net: type, shape: tuple[int, ...]):
    torch.manual_seed(0)
    model = net()
    _constant_channels(model)
    original = _export(model, shape)
    data = np.random.default_rng(0).standard_normal((16, *shape[1:])).astype(np.float32)
    test = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    expected = _run(original, test)

    compensated = _pruned(original, data, compensate=True)
    removed = sum(g.removed for g in compensated.report.groups)
    assert removed == sum(len(c) for layer, c in CONSTANT.items() if hasattr(model, layer))
    assert compensated.report.flops_kept < 1.0
    np.testing.assert_allclose(_run(compensated.onnx_model(), test), expected, rtol=1e-5, atol=1e-5)

    plain = _pruned(original, data, compensate=False)
    assert np.abs(_run(plain.onnx_model(), test) - expected).max() > 0.05
