"""Exactness of the dependency groups (slim/pruning): pruned = the original with the same channels'
weights zeroed, evaluated by onnxruntime, for every structural pattern and the real models.

Each model loses 30% of the units of every prunable group (no rounding, least L1-important first,
no fine-tuning). The zeroed reference is the original graph with every weight slice of those
channels set to 0 (producers' filters and biases, BatchNorm scale and shift, per-channel
constants, consumers' input columns): if a group coupled too few channels, or a pruning function
cut the wrong slice, the two models differ. Unprunable groups must be unprunable for a reason a
human would accept (a model output, a LayerNorm over the channels), checked per model.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import pytest

torch = pytest.importorskip("torch")

from lite_converter.frontends.onnx_export import export_onnx  # noqa: E402
from slim.pruning import rules  # noqa: E402
from slim.pruning.analysis import analyze  # noqa: E402
from slim.pruning.apply import apply_plan  # noqa: E402
from slim.pruning.config import PruneConfig  # noqa: E402
from slim.pruning.pruner import allocate_units  # noqa: E402
from tests.models.pruning_patterns import PATTERNS  # noqa: E402
from tests.prune_cases import CNNS, OCR_SHAPES, PADDLE_OCR, pattern_input, pattern_onnx, real_model  # noqa: E402

RELATIVE = 1e-5
RATIO = PruneConfig(ratio=0.3, round_to=1, max_ratio=0.9, criterion="l1", finetune=None)
OUTPUT = "a model output keeps its channels"
LAYER_NORM = "normalizes over these channels"
# Why a group may be left alone, per model (substrings of the reasons); anything else fails.
ALLOWED_BLOCKS = {"attention": (OUTPUT, LAYER_NORM), "cls": (OUTPUT, "Softmax"),
                  "rec": (OUTPUT, LAYER_NORM, "reduces over these channels")}
ALLOWED_BLOCKS.update({name: ALLOWED_BLOCKS.get(key, (OUTPUT,)) for name, key in PADDLE_OCR.items()})
# Prunable groups each pattern must have (so a rule that blocks everything cannot pass).
MINIMUM_GROUPS = {"residual_add": 3, "residual_mul": 1, "concat_offsets": 2, "split_slice": 2,
                  "depthwise_grouped": 3, "channel_shuffle": 3, "squeeze_excitation": 3, "normalizations": 2,
                  "flatten_linear": 3, "attention": 2, "upsample_concat": 2}


def _run(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    session = onnxruntime.InferenceSession(model.SerializeToString(), options,
                                           providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def _parameters(graph: object) -> int:
    return sum(t.data.size for t in graph.tensors.values() if t.data is not None and t.data.dtype.kind == "f")


def _check_exact(model: onnx.ModelProto | Path, image: np.ndarray, name: str) -> None:
    analysis = analyze(model, image)
    allowed = ALLOWED_BLOCKS.get(name, (OUTPUT,))
    for group in analysis.dependencies.groups:
        if not group.prunable:
            assert all(any(a in reason for a in allowed) for reason in group.blocked), \
                f"{name}: group '{group.name}' left alone for {group.blocked}"
    choices = allocate_units(analysis, RATIO)
    assert all(c.removed > 0 for c in choices), "every prunable group loses channels at 30%"
    plan = analysis.plan(choices)
    pruned, zeroed = apply_plan(analysis.view, plan), apply_plan(analysis.view, plan, zeroing=True)
    assert _parameters(pruned) < 0.95 * _parameters(analysis.graph)
    feeds = {analysis.graph.inputs[0]: image}
    for got, expected, original in zip(_run(export_onnx(pruned), feeds), _run(export_onnx(zeroed), feeds),
                                       _run(export_onnx(analysis.graph), feeds), strict=True):
        assert got.shape == expected.shape
        scale = max(1.0, float(np.abs(expected).max()))
        error = float(np.abs(got - expected).max()) / scale
        assert error <= RELATIVE, f"{name}: pruned vs zeroed relative error {error:.2e}"
        # the zeroing changed the function: the comparison above is not between two originals
        assert float(np.abs(expected - original).max()) / scale > 1e-4


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_pattern_pruned_equals_zeroed(name: str):
    analysis = analyze(pattern_onnx(name), pattern_input())
    assert len(analysis.groups) >= MINIMUM_GROUPS[name], analysis.dependencies.report()
    _check_exact(pattern_onnx(name), pattern_input(), name)


# paddle_rec repeats rec's check through the Paddle frontend in ~110 s: `make test-training` runs it.
REAL_MODELS = sorted(CNNS) + sorted(OCR_SHAPES) + [
    pytest.param(name, marks=pytest.mark.training) if name == "paddle_rec" else name
    for name in sorted(PADDLE_OCR)]


@pytest.mark.parametrize("name", REAL_MODELS)
def test_real_model_pruned_equals_zeroed(name: str):
    """The PaddleOCR models pruned from ONNX and from Paddle's own inference folders (no Paddle
    needed: the Paddle frontend reads them; onnxruntime runs the pruned and zeroed graphs)."""
    path, image = real_model(name)
    _check_exact(path, image, name)


def test_attention_prunes_head_dims_and_mlp_not_the_normalized_width():
    analysis = analyze(pattern_onnx("attention"), pattern_input())
    by_name = {g.name: g for g in analysis.dependencies.groups}
    assert len(by_name["/qkv/MatMul"].units) == 6  # head dim 24 / 4 heads: the same index in every head
    assert len(by_name["/fc1/MatMul"].units) == 40
    assert not by_name["/stem/stem.0/Conv"].prunable  # the embedding width, under LayerNorm


def test_channel_shuffle_keeps_both_grouped_convolutions_whole():
    """36 channels between two 3-group convolutions with a shuffle between them. The first conv
    needs in-group index j removed from all 3 groups ({j, 12+j, 24+j}); the shuffle sends those to
    positions 3j..3j+2, which the second conv's groups tie to in-group indices 3j % 12...: columns
    j, j+4 and j+8 go together, so 4 units of 9 channels."""
    analysis = analyze(pattern_onnx("channel_shuffle"), pattern_input())
    first = next(g for g in analysis.groups if g.name == "/first/first.0/Conv")
    assert len(first.units) == 4
    for unit in first.units:
        channels = unit.indices[first.main]
        assert len(channels) == 9 and len({c % 4 for c in channels}) == 1


def test_unsafe_group_is_left_alone_and_listed(monkeypatch: pytest.MonkeyPatch):
    """A wrong rule (HardSigmoid coupling nothing, so the SE gate and the features it scales fall
    into two groups) makes the pruned model fail: the trial run finds both groups, which are
    reported unprunable instead of being corrupted; the other groups still prune exactly."""
    monkeypatch.setitem(rules.RULES, "HardSigmoid", lambda view, node, axis: [])
    analysis = analyze(pattern_onnx("squeeze_excitation"), pattern_input())
    broken = [g.name for g in analysis.dependencies.groups if any("pruned model" in r for r in g.blocked)]
    assert broken == ["/stem/stem.0/Conv", "/expand/Conv"], analysis.dependencies.report()
    assert {g.name for g in analysis.groups} == {"/reduce/Conv", "/project/project.0/Conv"}
    plan = analysis.plan(allocate_units(analysis, RATIO))
    pruned, zeroed = apply_plan(analysis.view, plan), apply_plan(analysis.view, plan, zeroing=True)
    feeds = {"x": pattern_input()}
    np.testing.assert_allclose(_run(export_onnx(pruned), feeds)[0], _run(export_onnx(zeroed), feeds)[0],
                               rtol=0, atol=1e-5)


def test_ops_without_a_rule_block_their_channels():
    """LRN mixes neighbouring channels: no rule says how to prune through it, so its group stays."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    weights = [numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), "w1"),
               numpy_helper.from_array(rng.standard_normal((4, 8, 1, 1)).astype(np.float32), "w2")]
    nodes = [helper.make_node("Conv", ["x", "w1"], ["a"], pads=[1, 1, 1, 1]),
             helper.make_node("LRN", ["a"], ["b"], size=3),
             helper.make_node("Conv", ["b", "w2"], ["y"])]
    graph = helper.make_graph(nodes, "lrn",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])], weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    analysis = analyze(model, rng.standard_normal((1, 3, 8, 8)).astype(np.float32))
    (group,) = [g for g in analysis.dependencies.groups if g.name == "node_0" or "Conv" in g.name][:1]
    assert not group.prunable and any("LRN" in r for r in group.blocked), analysis.dependencies.report()
