"""int8 models on ARM (qemu-user): every int8 tensor equals slim's fake-quant simulation (0 LSB).

The cross-built ``run_model`` runs a quantized .lite model with every activation exposed as a graph
output (slim.calibrate.with_outputs); each int8 op's output is then re-computed by
slim.fake_quant.simulate_node from the ARM run's own inputs of that op, so a wrong ARM kernel or a
dispatch bug is pinned to the op that made it, independently of the host runtime.

Five emulated CPUs cover the int8 kernel variants the dispatcher can pick:
``-cpu max,sve=off,sme=off`` (dotprod + i8mm), ``-cpu neoverse-n1`` (dotprod, no i8mm),
``-cpu cortex-a53`` and ``-cpu cortex-a72`` (plain NEON: Raspberry Pi 3 / 4) and armv7
``-cpu cortex-a7`` (32-bit NEON).
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import slim
from lite_converter.ir import Graph
from slim.calibrate import with_outputs
from tests.slim_oracle import assert_exact, simulation_mismatches

REPO = Path(__file__).resolve().parents[1]
BUILD = Path(os.environ.get("LITE_CROSS_BUILD_ROOT") or REPO / "build")  # as `make cross`

QEMU_AARCH64 = ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu", "-cpu"]
EMULATED = {  # name -> (cross build dir, emulator command); binfmt is not set up here
    "aarch64-max": ("aarch64", [*QEMU_AARCH64, "max,sve=off,sme=off"]),
    "aarch64-n1": ("aarch64", [*QEMU_AARCH64, "neoverse-n1"]),
    "aarch64-a53": ("aarch64", [*QEMU_AARCH64, "cortex-a53"]),
    "aarch64-a72": ("aarch64", [*QEMU_AARCH64, "cortex-a72"]),
    "armv7-a7": ("armv7", ["qemu-arm", "-L", "/usr/arm-linux-gnueabihf", "-cpu", "cortex-a7"]),
}
DTYPES = {"float32": np.float32, "int8": np.int8, "uint8": np.uint8, "int32": np.int32, "int64": np.int64}
OUTPUT_LINE = re.compile(r"^output (\d+) '(.*)' (\w+) \[([\d, ]*)\]:")


@pytest.fixture(scope="session")
def cross_builds() -> Path:
    """<root>/aarch64 and <root>/armv7, brought up to date by ``make cross`` (incremental)."""
    for tool in ("qemu-aarch64", "qemu-arm", "aarch64-linux-gnu-gcc", "arm-linux-gnueabihf-gcc"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is not installed: `make test` installs it")
    proc = subprocess.run(["make", "-s", "cross"], cwd=REPO, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, f"make cross failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return BUILD


def run_all_tensors_on_arm(cross_builds: Path, cpu: str, graph: Graph, feeds: dict[str, np.ndarray],
                           tmp_path: Path, threads: int = 1) -> dict[str, np.ndarray]:
    """Runs ``graph`` with every activation as an output under qemu; {tensor name: ARM value}.

    Names, dtypes and shapes come from run_model's own listing of its outputs, so nothing but the
    raw input bytes is taken from the host side.
    """
    used = (t for node in graph.nodes for t in (*node.inputs, *node.outputs) if t)
    names = list(dict.fromkeys(t for t in used if not graph.tensors[t].is_constant))
    model = tmp_path / f"{cpu}.lite"
    model.write_bytes(with_outputs(graph, names))
    input_path, output_path = tmp_path / f"{cpu}.in", tmp_path / f"{cpu}.out"
    input_path.write_bytes(b"".join(np.ascontiguousarray(feeds[name]).tobytes() for name in graph.inputs))
    build_dir, emulator = EMULATED[cpu]
    command = [*emulator, str(cross_builds / build_dir / "runtime_arm" / "run_model"), str(model),
               "--input", str(input_path), "--output", str(output_path), "--threads", str(threads)]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"run_model on {cpu} failed: {proc.stderr[-3000:]}"
    raw, offset, values = output_path.read_bytes(), 0, {}
    for match in filter(None, map(OUTPUT_LINE.match, proc.stdout.splitlines())):
        dtype = np.dtype(DTYPES[match.group(3)])
        shape = tuple(int(d) for d in match.group(4).split(",") if d.strip())
        count = int(np.prod(shape, dtype=np.int64))
        values[match.group(2)] = np.frombuffer(raw, dtype, count, offset).reshape(shape)
        offset += count * dtype.itemsize
    assert offset == len(raw), f"{cpu}: listed outputs take {offset} bytes, the file has {len(raw)}"
    assert set(names) - set(graph.inputs) <= set(values), f"{cpu}: outputs missing from run_model"
    constants = {name: t.data for name, t in graph.tensors.items() if t.data is not None}  # int8 operands
    return {**values, **feeds, **constants}


def arm_int8_mismatches(graph: Graph, values: dict[str, np.ndarray]) -> dict[str, float]:
    """{node name: max |ARM - simulation|} over the int8-related nodes (in LSB for int8 outputs)."""
    return simulation_mismatches(graph, values)


def odd_channels_net() -> onnx.ModelProto:
    """Conv 3x3/2 -> Relu -> MaxPool -> depthwise 3x3 + Clip(0,6) -> 1x1 Conv + Add(skip) -> 1x1 Conv
    -> GAP -> Flatten -> Gemm. Channel counts (3, 19, 11, 13) and a 15x13 input leave tails in every
    int8 GEMM tile and reduction block an ARM kernel may use."""
    rng = np.random.default_rng(41)
    w = {
        "w1": rng.standard_normal((19, 3, 3, 3)).astype(np.float32) * 0.4,
        "b1": rng.standard_normal(19).astype(np.float32) * 0.2,
        "wd": rng.standard_normal((19, 1, 3, 3)).astype(np.float32) * 0.5,
        "bd": rng.standard_normal(19).astype(np.float32) * 0.1,
        "w3": rng.standard_normal((19, 19, 1, 1)).astype(np.float32) * 0.3,
        "w4": rng.standard_normal((11, 19, 1, 1)).astype(np.float32) * 0.3,
        "b4": rng.standard_normal(11).astype(np.float32) * 0.1,
        "fc_w": rng.standard_normal((13, 11)).astype(np.float32) * 0.5,
        "fc_b": rng.standard_normal(13).astype(np.float32) * 0.1,
    }
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], strides=[2, 2], name="conv1"),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[1, 1], name="maxpool"),
        helper.make_node("Conv", ["p1", "wd", "bd"], ["cd"], pads=[1, 1, 1, 1], group=19, name="depthwise"),
        helper.make_node("Clip", ["cd", "lo", "hi"], ["r2"], name="relu6"),
        helper.make_node("Conv", ["r2", "w3"], ["c3"], name="project"),
        helper.make_node("Add", ["c3", "p1"], ["s"], name="skip"),
        helper.make_node("Conv", ["s", "w4", "b4"], ["c4"], name="expand"),
        helper.make_node("GlobalAveragePool", ["c4"], ["gap"], name="gap"),
        helper.make_node("Flatten", ["gap"], ["flat"], name="flatten"),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["y"], transB=1, name="fc"),
    ]
    inits = [numpy_helper.from_array(v, k) for k, v in w.items()]
    inits += [numpy_helper.from_array(np.array(v, np.float32), k) for k, v in (("lo", 0), ("hi", 6))]
    graph = helper.make_graph(nodes, "odd_channels",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 15, 13])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 13])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def _batches(shape: tuple[int, ...], count: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32) for _ in range(count)]


@pytest.fixture(scope="module")
def small_net() -> tuple[Graph, dict[str, np.ndarray]]:
    data = _batches((1, 3, 15, 13), 4, seed=7)
    result = slim.compress(odd_channels_net(), None, data, slim.QuantConfig(progress=False))
    expected = {"conv1", "maxpool", "depthwise", "project", "skip", "expand", "gap", "fc"}
    assert expected <= set(result.int8_nodes)
    return result.graph, {"x": data[0]}


@pytest.fixture(scope="module")
def mobilenet_v2(tmp_path_factory: pytest.TempPathFactory) -> tuple[Graph, dict[str, np.ndarray]]:
    """MobileNetV2 (seeded weights and BatchNorm statistics) at 64x64, PTQ with three batches."""
    torch = pytest.importorskip("torch")
    from tests.models import ARCHITECTURES, build_seeded

    path = tmp_path_factory.mktemp("mobilenet_v2_int8") / "mobilenet_v2.onnx"
    with torch.no_grad():
        torch.onnx.export(build_seeded(ARCHITECTURES["mobilenet_v2_legacy"]), (torch.zeros(1, 3, 64, 64),),
                          str(path), input_names=["input"], output_names=["logits"], opset_version=13,
                          dynamo=False)
    data = _batches((1, 3, 64, 64), 3, seed=2)
    result = slim.compress(str(path), None, data, slim.QuantConfig(progress=False))
    convs = [n for n in result.graph.nodes if n.op_type == "CONV_2D"]
    assert len(convs) == 52 and all(n.name in result.int8_nodes for n in convs)
    return result.graph, {"input": data[0]}


@pytest.mark.parametrize("cpu", list(EMULATED))
def test_small_net_int8_on_arm_matches_simulation(cross_builds: Path, small_net: tuple[Graph, dict],
                                                  cpu: str, tmp_path: Path):
    graph, feeds = small_net
    errors = arm_int8_mismatches(graph, run_all_tensors_on_arm(cross_builds, cpu, graph, feeds, tmp_path))
    assert_exact(errors, minimum_nodes=10)


@pytest.mark.parametrize("cpu", list(EMULATED))
def test_mobilenet_v2_int8_on_arm_matches_simulation(cross_builds: Path, mobilenet_v2: tuple[Graph, dict],
                                                     cpu: str, tmp_path: Path):
    graph, feeds = mobilenet_v2
    errors = arm_int8_mismatches(graph, run_all_tensors_on_arm(cross_builds, cpu, graph, feeds, tmp_path))
    assert_exact(errors, minimum_nodes=60)


@pytest.mark.parametrize("cpu", list(EMULATED))
def test_int8_transposed_convolutions_on_arm_match_simulation(cross_builds: Path, cpu: str, tmp_path: Path):
    """The int8 CONV_TRANSPOSE_2D (kernel == stride: packed GEMM rows written in place, the grouped tail for
    few output channels; other kernels by output phase: pads, output padding, asymmetric strides, batch 2)
    on each ARM CPU's GEMM kernel, at 3 threads."""
    from tests.test_int8_conv_transpose import (
        OVERLAP_INPUT,
        OVERLAPPING,
        overlapping_net,
        upsampling_head_net,
    )

    data = _batches((1, 3, 9, 13), 4, seed=5)
    result = slim.compress(upsampling_head_net(), None, data, slim.QuantConfig(progress=False))
    assert {"up1", "up2", "overlap"} <= set(result.int8_nodes)
    on_arm = run_all_tensors_on_arm(cross_builds, cpu, result.graph, {"x": data[0]}, tmp_path)
    errors = arm_int8_mismatches(result.graph, on_arm)
    assert {"up1", "up2", "overlap"} <= set(errors)
    assert_exact(errors)
    data = _batches(OVERLAP_INPUT, 4, seed=6)
    result = slim.compress(overlapping_net(), None, data, slim.QuantConfig(progress=False))
    on_arm = run_all_tensors_on_arm(cross_builds, cpu, result.graph, {"x": data[1]}, tmp_path, threads=3)
    errors = arm_int8_mismatches(result.graph, on_arm)
    assert {name for name, _, _, fits in OVERLAPPING if fits} <= set(errors)
    assert_exact(errors)


@pytest.mark.parametrize("cpu", list(EMULATED))
def test_every_int8_op_family_on_arm_matches_simulation(cross_builds: Path, cpu: str, tmp_path: Path):
    """tests/test_int8_op_families.py's net (every int8 op of lite_ops, grouped convs, composed and
    uncomposed tables) on each ARM CPU's kernels."""
    from tests.test_int8_op_families import INPUT_SHAPE, INT8_OPS, op_families_net
    from tests.test_slim_int8_ops import _quantize_with

    data = _batches(INPUT_SHAPE, 4, seed=8)
    covered: set[str] = set()
    for compose in (True, False):
        graph, _ = _quantize_with(op_families_net(), data, compose_tables=compose)
        on_arm = run_all_tensors_on_arm(cross_builds, cpu, graph, {"x": data[1]}, tmp_path)
        errors = arm_int8_mismatches(graph, on_arm)
        assert_exact(errors, minimum_nodes=30)
        covered |= {node.op_type for node in graph.nodes if node.name in errors}
    assert covered == INT8_OPS, sorted(INT8_OPS - covered)


@pytest.mark.parametrize("cpu", list(EMULATED))
def test_int8_grouped_convolutions_on_arm_match_simulation(cross_builds: Path, cpu: str, tmp_path: Path):
    """tests/test_int8_op_families.py's grouped shapes (ResNeXt's 4 channels per group, a widening
    stride-2, a grouped 1x1, 3 channels per group; batch 2): one GEMM per group on each ARM CPU's
    kernels, at 3 threads."""
    from tests.test_int8_op_families import GROUPED_SHAPES, GROUPED_SHAPES_INPUT, grouped_shapes_net
    from tests.test_slim_int8_ops import _quantize_with

    data = _batches(GROUPED_SHAPES_INPUT, 4, seed=12)
    graph, _ = _quantize_with(grouped_shapes_net(), data)
    on_arm = run_all_tensors_on_arm(cross_builds, cpu, graph, {"x": data[2]}, tmp_path, threads=3)
    errors = arm_int8_mismatches(graph, on_arm)
    assert set(GROUPED_SHAPES) <= set(errors), sorted(errors)
    assert_exact(errors)


def winograd_net() -> onnx.ModelProto:
    """A 3-channel 3x3 stem, then three 3x3 stride-1 convs (32 -> 32 same, 32 -> 24 valid, 24 -> 19 same
    + Relu) on a 17x15 input, a residual Add, GAP and Gemm. The three convs have the shapes for which
    lite_qs8_winograd_choose picks the int8 Winograd F(4,3) on ARM without dotprod (its cost rule and
    F(2,3) are checked by kernels_neon/tests/test_qs8_winograd.c): odd sizes, partial tiles and a
    half-full last group of tiles, channels not a multiple of 8."""
    rng = np.random.default_rng(43)
    w = {
        "w0": rng.standard_normal((32, 3, 3, 3)).astype(np.float32) * 0.4,
        "w1": rng.standard_normal((32, 32, 3, 3)).astype(np.float32) * 0.1,
        "b1": rng.standard_normal(32).astype(np.float32) * 0.2,
        "w2": rng.standard_normal((24, 32, 3, 3)).astype(np.float32) * 0.1,
        "b2": rng.standard_normal(24).astype(np.float32) * 0.1,
        "w3": rng.standard_normal((19, 24, 3, 3)).astype(np.float32) * 0.1,
        "fc_w": rng.standard_normal((5, 19)).astype(np.float32) * 0.5,
    }
    nodes = [
        helper.make_node("Conv", ["x", "w0"], ["c0"], pads=[1, 1, 1, 1], name="stem"),
        helper.make_node("Relu", ["c0"], ["r0"], name="relu0"),
        helper.make_node("Conv", ["r0", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="same32"),
        helper.make_node("Add", ["c1", "r0"], ["s1"], name="skip"),
        helper.make_node("Conv", ["s1", "w2", "b2"], ["c2"], name="valid24"),
        helper.make_node("Conv", ["c2", "w3"], ["c3"], pads=[1, 1, 1, 1], name="same19"),
        helper.make_node("Relu", ["c3"], ["r3"], name="relu3"),
        helper.make_node("GlobalAveragePool", ["r3"], ["gap"], name="gap"),
        helper.make_node("Flatten", ["gap"], ["flat"], name="flatten"),
        helper.make_node("Gemm", ["flat", "fc_w"], ["y"], transB=1, name="fc"),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 17, 15])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])
    inits = [numpy_helper.from_array(v, k) for k, v in w.items()]
    graph = helper.make_graph(nodes, "winograd", [x], [y], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


@pytest.mark.parametrize("cpu", list(EMULATED))
def test_int8_3x3_convolutions_on_arm_match_simulation(cross_builds: Path, cpu: str, tmp_path: Path):
    """The int8 3x3 stride-1 convs: Winograd F(4,3) on cortex-a53 / a72 / armv7, the direct GEMM with
    dotprod / i8mm; every node equals the simulation."""
    data = _batches((1, 3, 17, 15), 4, seed=9)
    result = slim.compress(winograd_net(), None, data, slim.QuantConfig(progress=False))
    assert {"same32", "valid24", "same19"} <= set(result.int8_nodes)
    errors = arm_int8_mismatches(result.graph, run_all_tensors_on_arm(cross_builds, cpu, result.graph,
                                                                      {"x": data[0]}, tmp_path))
    assert {"same32", "valid24", "same19"} <= set(errors)
    assert_exact(errors)


def wide_winograd_net() -> onnx.ModelProto:
    """Three 3x3 stride-1 convs (48 -> 96 -> 96 -> 96, Relu between) on a 12x12 map: their int8 weights
    (0.21 MB) outweigh the activations, and on ARM without dotprod each runs Winograd F(4,3), whose int16
    transformed weights are 8x the taps (as ResNet-18's stages are)."""
    rng = np.random.default_rng(47)
    channels = ((48, 96), (96, 96), (96, 96))
    w = {f"w{i}": rng.standard_normal((co, ci, 3, 3)).astype(np.float32) * 0.05
         for i, (ci, co) in enumerate(channels)}
    nodes, src = [], "x"
    for i in range(3):
        out = "y" if i == 2 else f"c{i}"
        nodes.append(helper.make_node("Conv", [src, f"w{i}"], [out], pads=[1, 1, 1, 1], name=f"conv{i}"))
        if i < 2:
            nodes.append(helper.make_node("Relu", [out], [f"r{i}"], name=f"relu{i}"))
            src = f"r{i}"
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 48, 12, 12])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 96, 12, 12])
    inits = [numpy_helper.from_array(v, k) for k, v in w.items()]
    graph = helper.make_graph(nodes, "wide_winograd", [x], [y], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def test_int8_winograd_weights_within_packed_weight_bound_on_arm(cross_builds: Path, tmp_path: Path):
    """lite_interpreter_options.packed_weight_ratio bounds the int8 Winograd's transformed weights as it
    bounds fp32's: on cortex-a72 (no dotprod) the copies are offers the interpreter grants while they fit
    (the others run the direct GEMM). lite_bench's committed memory stays within each bound, grows with
    it, and without a bound exceeds the tighter ones (the copies are kept)."""
    data = _batches((1, 48, 12, 12), 3, seed=12)
    model = tmp_path / "wide.lite"
    slim.compress(wide_winograd_net(), model, data, slim.QuantConfig(progress=False))
    build_dir, emulator = EMULATED["aarch64-a72"]
    memory = {}
    for ratio in (2.0, 6.0, math.inf):
        bench = cross_builds / build_dir / "runtime_arm" / "tools" / "lite_bench"
        command = [*emulator, str(bench), str(model), "--warmup", "0", "--runs", "1", "--json"]
        if math.isfinite(ratio):
            command += ["--packed-weight-ratio", str(ratio)]
        proc = subprocess.run(command, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
        report = json.loads(proc.stdout)
        memory[ratio], weights = report["memory_bytes"], report["weights_bytes"]
        assert math.isinf(ratio) or memory[ratio] <= ratio * weights, (ratio, memory[ratio], weights)
    assert memory[2.0] < memory[6.0] < memory[math.inf], memory
    assert memory[math.inf] > 6.0 * weights, (memory, weights)
    print({ratio: f"{m / weights:.2f}x" for ratio, m in memory.items()}, f"of {weights} weight bytes")


@pytest.mark.parametrize("cpu", ["aarch64-a72", "armv7-a7"])
def test_int8_winograd_split_across_threads_is_bit_identical_on_arm(cross_builds: Path, cpu: str,
                                                                    tmp_path: Path):
    """With threads the int8 Winograd splits its work over tile groups and, where there are few groups
    (wide_winograd_net's 12x12 maps are 2 groups of F(4,3) tiles), over output-channel blocks too:
    run_model's output bytes at 3 threads equal those at 1 thread."""
    data = _batches((1, 48, 12, 12), 3, seed=12)
    model = tmp_path / "wide.lite"
    slim.compress(wide_winograd_net(), model, data, slim.QuantConfig(progress=False))
    build_dir, emulator = EMULATED[cpu]
    input_path = tmp_path / "x.in"
    input_path.write_bytes(np.ascontiguousarray(data[0]).tobytes())
    outputs = []
    for threads in (1, 3):
        output_path = tmp_path / f"y{threads}.out"
        command = [*emulator, str(cross_builds / build_dir / "runtime_arm" / "run_model"), str(model),
                   "--input", str(input_path), "--output", str(output_path), "--threads", str(threads)]
        proc = subprocess.run(command, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
        outputs.append(output_path.read_bytes())
    assert len(outputs[0]) == 96 * 12 * 12 * 4 and outputs[0] == outputs[1]


def rows_in_place_net() -> onnx.ModelProto:
    """Two 3x3 convs on a 16-channel 5x70 input (68 interior pixels per output row, kernel rows of 48
    bytes): on ARM with dotprod (no i8mm) they read their kernel rows in place (the runs kernel of
    qs8_gemm_64x16c4_aarch64_neondot.c, chunks of 64 + 4 pixels), 24 output channels ending on a
    panel of 8 (its 8-row tiles), 40 on one of 8 after two whole ones; bias, a left-shifting scale."""
    rng = np.random.default_rng(61)
    w = {
        "wa": rng.standard_normal((24, 16, 3, 3)).astype(np.float32) * 0.15,
        "ba": rng.standard_normal(24).astype(np.float32) * 0.2,
        "wb": rng.standard_normal((40, 16, 3, 3)).astype(np.float32) * 0.05,
    }
    nodes = [
        helper.make_node("Conv", ["x", "wa", "ba"], ["ca"], pads=[1, 1, 1, 1], name="rows24"),
        helper.make_node("Relu", ["ca"], ["ya"], name="relu_a"),
        helper.make_node("Conv", ["x", "wb"], ["yb"], pads=[1, 1, 1, 1], name="rows40"),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 5, 70])
    ya = helper.make_tensor_value_info("ya", TensorProto.FLOAT, [1, 24, 5, 70])
    yb = helper.make_tensor_value_info("yb", TensorProto.FLOAT, [1, 40, 5, 70])
    inits = [numpy_helper.from_array(v, k) for k, v in w.items()]
    graph = helper.make_graph(nodes, "rows_in_place", [x], [ya, yb], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def test_int8_convs_reading_kernel_rows_in_place_match_simulation(cross_builds: Path, tmp_path: Path):
    """The dotprod runs kernel inside the runtime's rows GEMM (qemu neoverse-n1: dotprod, no i8mm):
    every int8 tensor equals the simulation."""
    data = _batches((1, 16, 5, 70), 4, seed=12)
    result = slim.compress(rows_in_place_net(), None, data, slim.QuantConfig(progress=False))
    assert {"rows24", "rows40"} <= set(result.int8_nodes)
    on_arm = run_all_tensors_on_arm(cross_builds, "aarch64-n1", result.graph, {"x": data[0]}, tmp_path)
    errors = arm_int8_mismatches(result.graph, on_arm)
    assert {"rows24", "rows40"} <= set(errors)
    assert_exact(errors)
