"""The default's ranges do not depend on how the caller batched the calibration data.

``int8`` takes each 99.99% quantile over groups of 8 inputs (QuantConfig.percentile_samples): the
same 8 images fed as 8 batches of one or as one batch of 8 must give the same ranges, through the
real calibration (our runtime runs the lowered graph; slim/calibrate.py reads the batch size from
the input's leading dimension). The per-batch rule fails this, which is what the test guards.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from slim.config import resolve_config
from slim.pipeline import prepare


def batched_conv_net() -> onnx.ModelProto:
    """Conv(3x3) -> Relu -> Conv(1x1) with a dynamic batch dimension."""
    rng = np.random.default_rng(3)
    weights = [helper.make_tensor("w1", TensorProto.FLOAT, [8, 3, 3, 3],
                                  (rng.standard_normal((8, 3, 3, 3)) * 0.3).ravel().tolist()),
               helper.make_tensor("w2", TensorProto.FLOAT, [4, 8, 1, 1],
                                  (rng.standard_normal((4, 8, 1, 1)) * 0.3).ravel().tolist())]
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
             helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             helper.make_node("Conv", ["r1", "w2"], ["y"], name="conv2")]
    graph = helper.make_graph(nodes, "batched_conv_net",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, 16, 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 4, 16, 16])],
                              initializer=weights)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def images() -> np.ndarray:
    """8 images of small noise; one holds a bright patch (an object only some inputs show)."""
    rng = np.random.default_rng(4)
    x = rng.normal(0, 0.2, (8, 3, 16, 16)).astype(np.float32)
    x[5, :, 4:7, 4:7] += 6.0
    return x


def ranges(config_name: str, batches: list[np.ndarray], **changes: object) -> dict[str, tuple[float, float]]:
    config = dataclasses.replace(resolve_config(config_name), progress=False, **changes)
    shapes = {"x": [len(batches[0]), 3, 16, 16]}
    return prepare(batched_conv_net(), batches, config, shapes).calibration.ranges


def test_default_ranges_are_the_same_for_eight_batches_of_one_and_one_batch_of_eight() -> None:
    x = images()
    singles, whole = ranges("int8", [x[i:i + 1] for i in range(8)]), ranges("int8", [x])
    assert singles.keys() == whole.keys() and len(singles) >= 2
    for name in whole:
        assert singles[name] == pytest.approx(whole[name], rel=1e-5, abs=1e-7), name


def test_per_batch_quantiles_depend_on_the_batching() -> None:
    x = images()
    singles = ranges("int8", [x[i:i + 1] for i in range(8)], percentile_samples=None)
    whole = ranges("int8", [x], percentile_samples=None)
    assert any(singles[name][1] < 0.8 * whole[name][1] for name in whole), (singles, whole)
