"""IR -> torch (slim/torch_ir): every real model runs forward in torch equal to onnxruntime, gradients
are right, trained values go back into the IR, BatchNorm is frozen unless asked.

The oracle is onnxruntime on the same ONNX file: within 1e-5 of max(1, max|output|), or twice
onnxruntime's own optimized-vs-unoptimized spread where that is larger (PP-OCRv4 det's steep sigmoid
on rendered text: tests/models/oracle.py). For gradients torch.autograd.gradcheck (float64 finite
differences) on the small pattern models.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

torch = pytest.importorskip("torch")

from lite_converter.frontends.onnx_export import export_onnx  # noqa: E402
from lite_converter.ir import Graph, Node, Tensor  # noqa: E402
from slim.torch_ir import GraphModule, TorchExecutorError, load_trainable, write_back  # noqa: E402
from tests.models import ARCHITECTURES  # noqa: E402
from tests.models.oracle import SPREAD_FACTOR, onnxruntime_outputs  # noqa: E402
from tests.prune_cases import OCR_SHAPES, pattern_input, pattern_onnx, real_model  # noqa: E402

RELATIVE = 1e-5


def _relative_error(ours: np.ndarray, reference: np.ndarray) -> float:
    return float(np.abs(ours - reference).max() / max(1.0, float(np.abs(reference).max())))


@pytest.mark.parametrize("name", sorted(ARCHITECTURES) + sorted(OCR_SHAPES))
def test_forward_matches_onnxruntime(name: str):
    path, image = real_model(name)
    graph = load_trainable(path)
    feeds = {graph.inputs[0]: image}
    with torch.no_grad():
        ours = GraphModule(graph).eval().run(feeds)
    reference = onnxruntime_outputs(path, feeds)
    literal = onnxruntime_outputs(path, feeds, optimized=False)
    assert set(ours) == set(reference)
    for output, expected in reference.items():
        assert float(np.std(expected)) > 1e-3, f"{name}: degenerate output, the comparison proves nothing"
        scale = max(1.0, float(np.abs(expected).max()))
        spread = float(np.abs(literal[output] - expected).max()) / scale
        error = _relative_error(ours[output].numpy(), expected)
        assert error <= max(RELATIVE, SPREAD_FACTOR * spread), \
            f"{name} {output}: relative error {error:.2e} (onnxruntime's own spread {spread:.2e})"


@pytest.mark.parametrize("name", ["residual_add", "attention", "depthwise_grouped", "upsample_concat",
                                  "squeeze_excitation", "normalizations", "split_slice", "channel_shuffle"])
def test_gradients_pass_gradcheck(name: str):
    graph = load_trainable(pattern_onnx(name))
    module = GraphModule(graph).double().eval()
    parameters = dict(module.named_parameters())
    checked = list(parameters)[:: max(1, len(parameters) // 4)]  # a spread of weights, biases, BN scales
    x = torch.from_numpy(pattern_input())
    x = x.double().requires_grad_(True)

    def function(image: torch.Tensor, *values: torch.Tensor) -> torch.Tensor:
        state = dict(parameters) | dict(zip(checked, values, strict=True))
        return torch.func.functional_call(module, state, (image,))

    values = tuple(parameters[k].detach().clone().requires_grad_(True) for k in checked)
    assert torch.autograd.gradcheck(function, (x, *values), eps=1e-6, atol=1e-5, rtol=1e-4, fast_mode=True)


def test_trained_values_are_written_back_and_convert(tmp_path: Path):
    proto = pattern_onnx("residual_add")
    graph = load_trainable(proto)
    module = GraphModule(graph).train()
    optimizer = torch.optim.SGD(module.parameters(), lr=0.1)
    x = torch.from_numpy(pattern_input())
    for _ in range(3):
        loss = module(x).square().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    before = {name: graph.tensors[name].data.copy() for name in module.parameter_names()}
    write_back(module)
    changed = [name for name in before if not np.array_equal(before[name], graph.tensors[name].data)]
    assert len(changed) == len(before), "every trainable constant moved in training and must be written back"
    path = tmp_path / "trained.onnx"
    onnx.save(export_onnx(graph), path)
    with torch.no_grad():
        ours = module.eval()(x).numpy()
    reference = onnxruntime_outputs(path, {"x": x.numpy()})["y"]
    assert _relative_error(ours, reference) <= RELATIVE


def test_batchnorm_frozen_by_default_and_trained_on_request():
    graph = load_trainable(pattern_onnx("residual_add"))
    x = torch.from_numpy(pattern_input())
    frozen = GraphModule(graph)
    with torch.no_grad():
        assert torch.equal(frozen.train()(x), frozen.eval()(x)), "frozen BN must not depend on the mode"
    training = GraphModule(graph, bn_train=True).train()
    means = [node.inputs[3] for node in graph.nodes if node.op_type == "BatchNormalization"]
    before = training.constant(means[0]).clone()
    with torch.no_grad():
        training(x)
    assert not torch.equal(training.constant(means[0]), before), "BN statistics must update in bn_train mode"


def test_hardswish_constants_stay_fixed():
    """Single values (a hard-swish's 3 and 6, Clip bounds) are buffers: training must not move them."""
    graph = load_trainable(pattern_onnx("squeeze_excitation"))
    module = GraphModule(graph)
    scalars = [name for name, value in module.parameter_names().items() if value.numel() == 1]
    assert scalars == []


def test_unsupported_ops_are_listed_by_node():
    graph = Graph(tensors={"x": Tensor("x", np.dtype(np.float32), [1, 4])}, inputs=["x"], outputs=["y", "z"])
    graph.nodes = [Node("Frobnicate", "first", ["x"], ["y"]), Node("Frobnicate", "second", ["x"], ["z"])]
    with pytest.raises(TorchExecutorError, match=r"Frobnicate: 2 node\(s\) first, second"):
        GraphModule(graph)


def test_decomposed_hard_swish_runs_as_one_op_with_the_same_values_and_gradients():
    """slim/torch_ir/fuse_hard_swish.py: the chains are found, and the fused run equals the op-by-op
    run (forward and every parameter's gradient); keeping an inner tensor runs that chain unfused."""
    path, image = real_model("rec")
    graph = load_trainable(path)
    fused, plain = GraphModule(graph).train(), GraphModule(graph).train()
    assert len(fused._hard_swish) == 28, "PP-OCRv4 rec's 28 decomposed hard-swish chains not all found"
    plain._hard_swish = {}
    x = torch.from_numpy(image)
    results = []
    for module in (fused, plain):
        y = module(x)
        (y * y).sum().backward()
        results.append((y.detach(), {n: p.grad.clone() for n, p in module.named_parameters()}))
    assert torch.allclose(results[0][0], results[1][0], rtol=1e-6, atol=1e-6)
    for name, grad in results[0][1].items():
        assert torch.allclose(grad, results[1][1][name], rtol=1e-5, atol=1e-6), name
    inner = sorted(next(iter(fused._hard_swish.values()))[2])[0]
    with torch.no_grad():
        kept = fused.run({graph.inputs[0]: x}, keep=[inner])
        assert torch.allclose(kept[graph.outputs[0]], results[1][0], rtol=1e-6, atol=1e-6)
        assert inner in kept
