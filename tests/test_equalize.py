"""Cross-layer equalization (slim/equalize.py): the fp32 function is unchanged (our runtime on the equalized
graph against onnxruntime on the original), the pairs' channel ranges meet, non-homogeneous activations and
shared tensors are left alone, and per-tensor int8 of a net with BatchNorm-spread channels gets closer to
fp32 (onnxruntime) with it than without."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
ort = pytest.importorskip("onnxruntime")

from torch import nn  # noqa: E402

import slim  # noqa: E402
from lite_converter.app import cli  # noqa: E402
from lite_converter.convert import load_model, lower, to_lite_bytes  # noqa: E402
from runtime_arm import Interpreter  # noqa: E402
from slim.equalize import equalize, find_pairs  # noqa: E402


class SpreadNet(nn.Module):
    """Stem, depthwise-separable block (ReLU), a pointwise conv through ReLU6 (not homogeneous), and a
    tensor read twice (a residual add): the three cases the pass meets."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1), nn.BatchNorm2d(16), nn.ReLU())
        self.depthwise = nn.Sequential(nn.Conv2d(16, 16, 3, 1, 1, groups=16), nn.BatchNorm2d(16), nn.ReLU())
        self.pointwise = nn.Sequential(nn.Conv2d(16, 24, 1), nn.BatchNorm2d(24), nn.ReLU6())
        self.project = nn.Conv2d(24, 24, 1)
        self.residual = nn.Conv2d(24, 24, 3, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.project(self.pointwise(self.depthwise(self.stem(x))))
        return y + self.residual(y)


def spread_net(path, seed: int = 0) -> None:
    """SpreadNet with BatchNorm scales log-uniform over +-1.5 decades, exported to ONNX at ``path``."""
    torch.manual_seed(seed)
    net = SpreadNet().eval()
    with torch.no_grad():
        for module in net.modules():
            if isinstance(module, nn.BatchNorm2d):
                module.weight.copy_(10.0 ** (torch.rand(module.num_features) * 3 - 1.5))
                module.bias.uniform_(-0.2, 0.2)
                module.running_mean.uniform_(-0.1, 0.1)
                module.running_var.uniform_(0.5, 2.0)
    torch.onnx.export(net, torch.zeros(1, 3, 16, 16), str(path), input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "n"}, "y": {0: "n"}}, dynamo=False)


def inputs(count: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((count, 3, 16, 16)).astype(np.float32)


def reference(path, x: np.ndarray) -> np.ndarray:
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]


def run(lite: bytes, x: np.ndarray) -> np.ndarray:
    with Interpreter(model_content=lite) as interpreter:
        return np.concatenate([interpreter.run([x[i : i + 1]])["y"] for i in range(len(x))])


def sqnr_db(reference_values: np.ndarray, values: np.ndarray) -> float:
    noise = np.mean((values.astype(np.float64) - reference_values) ** 2)
    return 10.0 * np.log10(np.mean(reference_values.astype(np.float64) ** 2) / noise)


def test_equalized_graph_computes_the_same_function(tmp_path) -> None:
    path = tmp_path / "spread.onnx"
    spread_net(path)
    graph = lower(load_model(str(path)))
    assert equalize(graph) == 2  # stem -> depthwise (axis 0), depthwise -> pointwise (axis 3)
    x = inputs(4, 1)
    expected = reference(path, x)
    np.testing.assert_allclose(run(to_lite_bytes(graph), x), expected, rtol=1e-4,
                               atol=1e-4 * float(np.abs(expected).max()))


def test_pairs_skip_relu6_and_tensors_read_twice(tmp_path) -> None:
    path = tmp_path / "spread.onnx"
    spread_net(path)
    graph = lower(load_model(str(path)))
    pairs = {(pair.first.name, pair.second.name) for pair in find_pairs(graph)}
    names = [node.name for node in graph.nodes if node.op_type == "CONV_2D"]
    stem, depthwise, pointwise, project, residual = names
    assert pairs == {(stem, depthwise), (depthwise, pointwise)}
    assert not any(first in (pointwise, project) or second == residual for first, second in pairs)


def test_pair_ranges_meet(tmp_path) -> None:
    path = tmp_path / "spread.onnx"
    spread_net(path)
    graph = lower(load_model(str(path)))
    before = {pair.first.name: np.abs(graph.constant(pair.first.inputs[1])).max(axis=(1, 2, 3))
              for pair in find_pairs(graph)}
    equalize(graph)
    pair = next(p for p in find_pairs(graph) if p.second_axis == 3)  # depthwise -> pointwise: the chain end
    first = np.abs(graph.constant(pair.first.inputs[1])).max(axis=(1, 2, 3))
    second = np.abs(graph.constant(pair.second.inputs[1])).max(axis=(0, 1, 2))
    np.testing.assert_allclose(first, second, rtol=1e-2)
    spread_before = before[pair.first.name].max() / before[pair.first.name].min()
    assert first.max() / first.min() < spread_before / 5


@pytest.mark.parametrize("per_tensor_weights", [True, False])
def test_equalization_brings_int8_closer_to_fp32(tmp_path, per_tensor_weights: bool) -> None:
    path = tmp_path / "spread.onnx"
    spread_net(path)
    calibration = [inputs(8, seed) for seed in range(4)]
    x = inputs(16, 99)
    expected = reference(path, x)
    measured = {}
    for on in (False, True):
        settings = slim.QuantConfig(algorithm="hist", per_tensor_weights=per_tensor_weights, equalize=on,
                                    progress=False)
        result = slim.compress(str(path), None, calibration, settings)
        measured[on] = sqnr_db(expected, run(result.lite_bytes, x))
    # +-1.5 decades of BN scale: without equalization the small channels keep few int8 levels
    assert measured[True] > measured[False] + 2.0, measured  # measured +3.9 dB per tensor, +5.0 per channel


def test_lite_compress_equalize_flag(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    """``lite compress --equalize`` is listed in the help and gives a model closer to fp32 (onnxruntime)."""
    with pytest.raises(SystemExit):
        cli.main(["compress", "--help"])
    assert "--equalize" in capsys.readouterr().out
    path = tmp_path / "spread.onnx"
    spread_net(path)
    data = tmp_path / "data"
    data.mkdir()
    for seed in range(4):
        np.save(data / f"{seed}.npy", inputs(8, seed))
    x = inputs(16, 99)
    expected = reference(path, x)
    measured = {}
    for flags in ([], ["--equalize"]):
        output = tmp_path / f"spread{len(flags)}.lite"
        assert cli.main(["compress", str(path), "-o", str(output), "--data", str(data), *flags]) == 0
        measured[bool(flags)] = sqnr_db(expected, run(output.read_bytes(), x))
    assert measured[True] > measured[False] + 2.0, measured
