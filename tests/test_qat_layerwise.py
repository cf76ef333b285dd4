"""Layer-wise reconstruction (slim/qat_layerwise.py): the student's int8 tensors are matched to the
fp32 teacher's by name with the same shapes, and with the weighted layers' inputs detached a loss on
one conv's output gives gradient to that conv's weights only (checked with autograd)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from slim.calibration_data import InputSpec  # noqa: E402
from slim.config import resolve_config  # noqa: E402
from slim.finetune_config import FinetuneConfig  # noqa: E402
from slim.pipeline import prepare  # noqa: E402
from slim.qat import Fp32Module, qat_module, train  # noqa: E402
from slim.qat_config import QatConfig  # noqa: E402
from slim.qat_layerwise import LayerwiseView  # noqa: E402
from slim.training_data import TrainingData  # noqa: E402
from tests.test_qat_exact import _residual_net  # noqa: E402

QUIET = dataclasses.replace(resolve_config("int8"), progress=False)


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> str:
    return _residual_net(tmp_path_factory.mktemp("layerwise") / "residual.onnx")


def test_matched_tensors_have_the_teachers_shapes_and_gradients_stay_local(model: str) -> None:
    rng = np.random.default_rng(7)
    data = [rng.standard_normal((2, 3, 21, 19)).astype(np.float32) for _ in range(2)]
    prepared = prepare(model, data, QUIET)
    module, teacher = qat_module(prepared).train(), Fp32Module(prepared.graph)
    view = LayerwiseView(module, module, {n for node in prepared.graph.nodes for n in node.outputs})
    assert len(view.pairs) >= 8, view.pairs
    feeds = {"x": data[0]}
    student = view.run(feeds, keep=list(view.pairs))
    reference = teacher.run(feeds, keep=list(view.pairs))
    for name in view.pairs:
        assert student[name].shape == reference[name].shape, name
    convs = [n for n in module.graph.nodes if n.op_type == "CONV_2D" and n.name in module.int8_nodes]
    last = convs[-1]
    target = next(f for f, s in view.pairs.items() if s == last.outputs[0])
    student[target].square().mean().backward()
    weights = {module._fp32_nodes[n.name].inputs[1]: n.name for n in convs}
    gradients = {name: getattr(module, key).grad for key, name in module.tensor_names.items()}
    with_gradient = {
        weights[name] for name, grad in gradients.items()
        if name in weights and grad is not None and bool(grad.any())
    }
    assert with_gradient == {last.name}
    assert not module.detach_weighted_inputs  # reset after the run


def _layer_error(view: LayerwiseView, teacher: Fp32Module, feeds: dict) -> float:
    """Mean over matched tensors of |student - fp32|^2 / |fp32|^2 (no gradient)."""
    with torch.no_grad():
        student = view.run(feeds, keep=list(view.pairs))
        reference = teacher.run(feeds, keep=list(view.pairs))
    return float(np.mean([
        float((student[n] - reference[n]).square().mean() / reference[n].square().mean().clamp_min(1e-12))
        for n in view.pairs
    ]))


def test_layerwise_training_repairs_perturbed_weights(model: str) -> None:
    """Weights moved by 10% noise (int8 far from fp32); 40 steps of layer-wise QAT bring every layer's
    output back towards fp32's on held-apart inputs."""
    rng = np.random.default_rng(8)
    data = [rng.standard_normal((2, 3, 21, 19)).astype(np.float32) for _ in range(4)]
    prepared = prepare(model, data, QUIET)
    module, teacher = qat_module(prepared), Fp32Module(prepared.graph)
    generator = torch.Generator().manual_seed(9)
    with torch.no_grad():
        for parameter in module.weight_parameters():
            parameter.mul_(1 + 0.1 * torch.randn(parameter.shape, generator=generator))
    view = LayerwiseView(module, module, {n for node in prepared.graph.nodes for n in node.outputs})
    held = {"x": rng.standard_normal((2, 3, 21, 19)).astype(np.float32)}
    before = _layer_error(view, teacher, held)
    finetune = FinetuneConfig(steps=40, learning_rate=2e-3, progress=False)
    config = QatConfig(quant=QUIET, finetune=finetune, layerwise=True, learn_ranges=False)
    specs = [InputSpec("x", np.float32, [2, 3, 21, 19])]
    report = train(module, teacher, TrainingData(data, specs, 2), config)
    after = _layer_error(view, teacher, held)
    assert report.steps == 40
    assert after < 0.5 * before, (before, after)
