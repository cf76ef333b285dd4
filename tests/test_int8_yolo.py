"""YOLO-style detectors and a segmentation net through config="int8" (issues 13 and 14, Done-when 2):
every convolution runs int8 (SiLU as a table after an int8 conv, C2f's SPLIT, SPPF's max pools,
upsample + CONCAT with one shared range), and every int8 tensor the runtime computes equals slim's
fake-quant simulation (0 LSB: integer arithmetic on both sides), on the host and under qemu
(cortex-a72: the plain-NEON int8 kernels of a Raspberry Pi 4).

The nets are untrained (BatchNorm statistics drawn at random) and small (width 0.25, 64x64) to stay
within a few seconds (the ONNX export is most of it); the YOLOX-style net (the same op families
plus the head's class x objectness MUL, which stays fp32) and the trained models' accuracy and
speed are in benchmarks/yolo_int8.py.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest
import torch

import slim
from lite_converter.ir import Graph
from tests.models.seg_net import SegNet
from tests.models.torch_export import randomize_batch_norm, to_onnx
from tests.models.yolo_v8 import YoloV8
from tests.slim_oracle import assert_exact, int8_mismatches, simulation_mismatches
from tests.test_int8_arm import cross_builds, run_all_tensors_on_arm

__all__ = ["cross_builds"]  # the qemu build fixture, shared with tests/test_int8_arm.py

SIZE = 64
NETS = {
    "yolov8": lambda: YoloV8(num_classes=4, width=0.25),
    "segnet": lambda: SegNet(num_classes=5, width=8),
    # the benchmark's seg net: stride-2 stem, logits resized 2x bilinearly (that RESIZE stays fp32)
    "segnet_s2": lambda: SegNet(num_classes=5, width=8, stem_stride=2),
}
# The int8 op families each net must run (beyond CONV_2D), by what the graph holds.
FAMILIES = {
    "yolov8": {"SILU", "SPLIT", "CONCAT", "MAX_POOL_2D", "RESIZE", "ADD", "SIGMOID"},
    "segnet": {"SILU", "CONCAT", "RESIZE"},
    "segnet_s2": {"SILU", "CONCAT", "RESIZE"},
}


@functools.cache
def _quantize(name: str) -> tuple[str, slim.CompressResult, dict[str, np.ndarray]]:
    """(name, the int8 result of the default preset on 4 random batches, a fifth batch as feeds)."""
    torch.manual_seed(0)
    model = to_onnx(randomize_batch_norm(NETS[name](), seed=1), (1, 3, SIZE, SIZE))
    rng = np.random.default_rng(2)
    batches = [rng.random((1, 3, SIZE, SIZE), dtype=np.float32) for _ in range(5)]
    result = slim.compress(model, None, batches[:4], slim.QuantConfig(algorithm="hist", progress=False))
    return name, result, {"x": batches[4]}


@pytest.fixture(params=sorted(NETS))
def quantized(request: pytest.FixtureRequest) -> tuple[str, slim.CompressResult, dict[str, np.ndarray]]:
    return _quantize(request.param)


def _ops_of(graph: Graph, names: set[str]) -> dict[str, str]:
    return {node.name: node.op_type for node in graph.nodes if node.name in names}


def test_every_convolution_and_op_family_runs_int8(quantized: tuple) -> None:
    name, result, _ = quantized
    int8 = set(result.int8_nodes)
    convs = [node.name for node in result.graph.nodes if node.op_type == "CONV_2D"]
    in_int8 = sum(conv in int8 for conv in convs)
    assert in_int8 >= 0.9 * len(convs), f"{name}: {in_int8} of {len(convs)} convs int8"
    assert in_int8 == len(convs), f"{name}: fp32 convs {sorted(set(convs) - int8)}"
    families = set(_ops_of(result.graph, int8).values())
    assert FAMILIES[name] <= families, f"{name}: not int8: {FAMILIES[name] - families}"
    borders = [node.op_type for node in result.graph.nodes if node.op_type in ("QUANTIZE", "DEQUANTIZE")]
    # one QUANTIZE of the input; a DEQUANTIZE per fp32 head operand (softplus of each level's box branch,
    # each level's class scores) at most: nothing falls back to fp32 inside the backbone or the neck
    assert borders.count("QUANTIZE") == 1 and borders.count("DEQUANTIZE") <= 6, borders


def test_int8_tensors_equal_simulation_on_host(quantized: tuple) -> None:
    _, result, feeds = quantized
    assert_exact(int8_mismatches(result.graph, feeds), minimum_nodes=20)


@pytest.mark.parametrize("cpu", ["aarch64-a72"])
def test_yolov8_int8_tensors_equal_simulation_on_arm(cross_builds: Path, cpu: str, tmp_path: Path) -> None:
    """The YOLOv8-style net (every op family of the three) under qemu."""
    _, result, feeds = _quantize("yolov8")
    values = run_all_tensors_on_arm(cross_builds, cpu, result.graph, feeds, tmp_path)
    assert_exact(simulation_mismatches(result.graph, values), minimum_nodes=20)
