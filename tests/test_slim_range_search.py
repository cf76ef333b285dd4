"""Range search (slim/range_search.py): the range rule per tensor group is judged by the int8 model's
output against fp32, so a tensor whose rare extremes are the signal keeps them.

The model: a 1x1 conv then a max pool over the whole image, fed images of small noise with a few
bright spikes (0.1% of the pixels, fewer than a 99.9% quantile leaves out): the output is the spikes,
so percentile ranges on the conv output clip the answer, and the whole range (``abs_max``) is right.
The oracle is onnxruntime's fp32 output on batches the search never saw.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import slim
from runtime_arm import Interpreter
from slim.config import resolve_config
from slim.range_search import searchable_tensors

ort = pytest.importorskip("onnxruntime")

SIDE, CHANNELS = 32, 4


def spike_model() -> bytes:
    weight = np.linspace(0.5, 1.5, CHANNELS, dtype=np.float32).reshape(CHANNELS, 1, 1, 1)
    nodes = [helper.make_node("Conv", ["x", "w"], ["features"], name="conv"),
             helper.make_node("MaxPool", ["features"], ["peak"], kernel_shape=[SIDE, SIDE], name="pool")]
    graph = helper.make_graph(
        nodes, "spikes", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 1, SIDE, SIDE])],
        [helper.make_tensor_value_info("peak", TensorProto.FLOAT, [4, CHANNELS, 1, 1])],
        [numpy_helper.from_array(weight, "w")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


def spike_batches(rng: np.random.Generator, count: int) -> list[np.ndarray]:
    batches = []
    for _ in range(count):
        x = rng.uniform(0.0, 0.2, (4, 1, SIDE, SIDE)).astype(np.float32)
        for image in x:  # one spike per image: 1 of 1,024 pixels
            image[0, rng.integers(SIDE), rng.integers(SIDE)] = rng.uniform(2.0, 8.0)
        batches.append(x)
    return batches


def sqnr_db(reference: np.ndarray, test: np.ndarray) -> float:
    return float(10 * np.log10(np.sum(reference ** 2) / max(np.sum((reference - test) ** 2), 1e-30)))


def test_search_keeps_extremes_that_are_the_output(tmp_path) -> None:  # noqa: ANN001
    rng = np.random.default_rng(5)
    path = tmp_path / "spikes.onnx"
    path.write_bytes(spike_model())
    calibration, held_out = spike_batches(rng, 4), spike_batches(rng, 4)
    percentile = slim.QuantConfig(algorithm="hist", percentile=0.999, progress=False)
    searched = dataclasses.replace(percentile, range_search=True, search_batches=2, search_groups=1)
    session = ort.InferenceSession(path.read_bytes(), providers=["CPUExecutionProvider"])
    reference = np.concatenate([session.run(None, {"x": x})[0] for x in held_out])

    def held_out_sqnr(config: slim.QuantConfig) -> float:
        result = slim.compress(str(path), None, calibration, config)
        with Interpreter(model_content=result.lite_bytes) as interpreter:
            got = np.concatenate([interpreter.run({"x": x})["peak"] for x in held_out])
        return sqnr_db(reference, got.reshape(reference.shape))

    plain, chosen = held_out_sqnr(percentile), held_out_sqnr(searched)
    assert plain < 10.0, "the 99.9% range clips the spikes (what the search must see)"
    assert chosen > 30.0, (plain, chosen)


def test_search_reports_its_trials_and_leaves_fixed_rules_alone(tmp_path) -> None:  # noqa: ANN001
    rng = np.random.default_rng(6)
    path = tmp_path / "spikes.onnx"
    path.write_bytes(spike_model())
    config = slim.QuantConfig(algorithm="hist", percentile=0.999, progress=False, range_search=True,
                              search_batches=1, search_groups=2)
    prepared = slim.pipeline.prepare(str(path), spike_batches(rng, 2), config)
    result = prepared.range_search
    rules = prepared.calibration.candidates
    searched = {"abs_max", "hist 0.999", "hist 0.9999", "hist 0.99999"}  # pooled rules only when named
    assert result is not None and set(rules) == searched, "pooled tails are not kept unless named"
    assert {what for what, _ in result.trials if not what.startswith("group")} == searched
    searchable = searchable_tensors(prepared)
    assert "peak" not in searchable, "a graph output keeps its whole range under every rule"
    groups = min(config.search_groups, len(searchable))
    assert len(result.trials) == len(searched) + groups * (len(searched) - 1)
    best = max(value for _, value in result.trials)
    assert dict(result.trials)[result.model_rule] <= best
    features = next(name for name in prepared.calibration.ranges if name.startswith("features"))
    assert prepared.calibration.ranges[features][1] >= 2.0  # the spikes (2-8) kept, not the noise (< 0.3)


def test_search_settings_are_checked() -> None:
    preset = resolve_config("int8_search")
    assert preset.range_search and preset.algorithm == "hist"
    assert not resolve_config("int8").range_search and not resolve_config("int8_fast").range_search
    with pytest.raises(ValueError, match="search_batches"):
        slim.QuantConfig(search_batches=0)
    with pytest.raises(ValueError, match="needs algorithm='hist'"):
        slim.QuantConfig(algorithm="abs_max", range_search=True)


def test_search_rules_name_the_candidates_tried(tmp_path) -> None:  # noqa: ANN001
    """``search_rules`` restricts the search to the named rules (pooled ones included), model level only
    with ``search_groups=0``; the chosen ranges are exactly that rule's candidates."""
    rng = np.random.default_rng(8)
    path = tmp_path / "spikes.onnx"
    path.write_bytes(spike_model())
    named = ("hist 0.999", "pooled 0.999")
    config = slim.QuantConfig(algorithm="hist", percentile=0.999, progress=False, range_search=True,
                              search_batches=1, search_groups=0, search_rules=named)
    prepared = slim.pipeline.prepare(str(path), spike_batches(rng, 2), config)
    assert prepared.range_search is not None
    assert [what for what, _ in prepared.range_search.trials] == list(named)
    chosen = prepared.calibration.candidates[prepared.range_search.model_rule]
    assert prepared.calibration.ranges == chosen
