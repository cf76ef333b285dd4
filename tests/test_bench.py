"""`lite bench` end to end, the FLOP counter against hand-computed counts, and the peer comparison."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from lite_converter.app import bench_qemu
from lite_converter.app.bench import BenchConfig, benchmark
from lite_converter.app.bench_stats import summarize
from lite_converter.app.cli import main
from lite_converter.convert import convert_onnx
from lite_converter.flops import model_flops
from lite_converter.reader import read_model


# small_conv_net at 1x3xHxW: conv1 3x3 3->8 (2*HW*8*27), conv2 1x1 8->8 (2*HW*8*8), Add and
# GlobalAveragePool over HW*8 elements each; Relu is fused into conv1 and costs nothing.
def small_conv_flops(h: int, w: int) -> int:
    hw = h * w
    return 2 * hw * 8 * 27 + 2 * hw * 8 * 8 + hw * 8 + hw * 8


def _model(nodes: list, inputs: list, outputs: list, weights: dict[str, np.ndarray]) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "flops", inputs, outputs,
                              [numpy_helper.from_array(v, k) for k, v in weights.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def depthwise_pool_dense_net() -> onnx.ModelProto:
    """x[1,4,8,8] -> depthwise 3x3 -> MaxPool 2x2/2 -> Flatten -> Gemm 64->10."""
    rng = np.random.default_rng(0)
    weights = {"dw": rng.standard_normal((4, 1, 3, 3)).astype(np.float32),
               "fc": rng.standard_normal((10, 64)).astype(np.float32),
               "fc_b": rng.standard_normal(10).astype(np.float32)}
    nodes = [helper.make_node("Conv", ["x", "dw"], ["d"], group=4, pads=[1, 1, 1, 1], name="dw"),
             helper.make_node("MaxPool", ["d"], ["p"], kernel_shape=[2, 2], strides=[2, 2], name="pool"),
             helper.make_node("Flatten", ["p"], ["f"], name="flat"),
             helper.make_node("Gemm", ["f", "fc", "fc_b"], ["y"], transB=1, name="fc")]
    return _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], weights)


def matmul_transpose_conv_net() -> onnx.ModelProto:
    """a[2,3,5] @ b[5,7] (both inputs: a constant b would become FULLY_CONNECTED) -> Mul(m, m);
    x[1,2,4,4] -> ConvTranspose 3x3 2->3 (stride 1)."""
    weights = {"wt": np.random.default_rng(1).standard_normal((2, 3, 3, 3)).astype(np.float32)}
    nodes = [helper.make_node("MatMul", ["a", "b"], ["m"], name="matmul"),
             helper.make_node("Mul", ["m", "m"], ["s"], name="square"),
             helper.make_node("ConvTranspose", ["x", "wt"], ["t"], name="deconv")]
    return _model(nodes,
                  [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3, 5]),
                   helper.make_tensor_value_info("b", TensorProto.FLOAT, [5, 7]),
                   helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 4])],
                  [helper.make_tensor_value_info("s", TensorProto.FLOAT, [2, 3, 7]),
                   helper.make_tensor_value_info("t", TensorProto.FLOAT, [1, 3, 6, 6])], weights)


def flops_by_opcode(model: onnx.ModelProto) -> dict[str, int]:
    totals: dict[str, int] = {}
    for op in model_flops(read_model(convert_onnx(model))).ops:
        totals[op.opcode] = totals.get(op.opcode, 0) + op.flops
    return totals


# -- FLOPs ----------------------------------------------------------------------------------------
def test_flops_of_conv_net_match_hand_count(small_conv_onnx):
    report = model_flops(read_model(convert_onnx(small_conv_onnx, input_shapes={"x": [1, 3, 16, 16]})))
    assert report.total == small_conv_flops(16, 16) == 147456
    by_name = {op.name: op.flops for op in report.ops}
    assert by_name["conv1"] == 2 * 256 * 8 * 27
    assert by_name["conv2"] == 2 * 256 * 8 * 8
    assert report.unknown == []


def test_flops_dynamic_shapes_come_from_the_runtime(small_conv_lite):
    model = read_model(small_conv_lite)
    assert model_flops(model).unknown, "dynamic H/W: conv FLOPs cannot be known without shapes"
    from runtime_arm import Interpreter

    with Interpreter(model_content=small_conv_lite) as it:
        it.resize_input("x", (1, 3, 10, 12))
        it.allocate_tensors()
        shapes = {d["index"]: d["shape"] for d in it.tensor_details()}
    report = model_flops(model, shapes)
    assert report.unknown == []
    assert report.total == small_conv_flops(10, 12)


def test_flops_depthwise_pool_dense():
    totals = flops_by_opcode(depthwise_pool_dense_net())
    assert totals["CONV_2D"] == 2 * (4 * 8 * 8) * 9  # depthwise: 9 MACs per output
    assert totals["MAX_POOL_2D"] == (4 * 4 * 4) * 4  # one compare per window element
    assert totals["FULLY_CONNECTED"] == 2 * 10 * 64
    assert sum(totals.values()) == 4608 + 256 + 1280


def test_flops_matmul_and_transposed_conv():
    totals = flops_by_opcode(matmul_transpose_conv_net())
    assert totals["MATMUL"] == 2 * (2 * 3 * 7) * 5
    assert totals["MUL"] == 2 * 3 * 7
    assert totals["CONV_TRANSPOSE_2D"] == 2 * (2 * 4 * 4) * 9 * 3  # each input pixel feeds 3x3x3 outputs


def test_latency_summary_uses_measured_values():
    stats = summarize([5.0, 1.0, 4.0, 2.0, 3.0, 10.0, 6.0, 7.0, 8.0, 9.0])
    assert (stats.min, stats.median, stats.p90, stats.runs) == (1.0, 5.5, 9.0, 10)


# -- lite bench -----------------------------------------------------------------------------------
def _number(pattern: str, text: str) -> float:
    match = re.search(pattern, text)
    assert match, f"{pattern!r} not in:\n{text}"
    return float(match.group(1))


def test_bench_cli_reports_positive_consistent_figures(tmp_path, small_conv_lite, capsys):
    path = tmp_path / "small.lite"
    path.write_bytes(small_conv_lite)
    status = main(["bench", str(path), "--input-shape", "x=1,3,32,32", "--runs", "6", "--warmup", "1",
                   "--profile"])
    text = capsys.readouterr().out
    assert status == 0, text
    init = _number(r"init \(load \+ prepare\): +([\d.]+) ms", text)
    first = _number(r"first run: +([\d.]+) ms", text)
    low = _number(r"min ([\d.]+) ms", text)
    median = _number(r"median ([\d.]+) ms", text)
    p90 = _number(r"p90 ([\d.]+) ms", text)
    assert min(init, first, low) > 0 and low <= median <= p90
    assert "over 6 runs" in text
    arena = _number(r"arena .*?\((\d+) bytes\)", text)
    assert arena >= 4 * 8 * 32 * 32  # at least the 8x32x32 float features it computes
    assert _number(r"process peak RSS ([\d.]+) [MG]iB", text) > 0  # a whole Python process: MiB at least
    assert _number(r"\((\d+) per inference\)", text) == small_conv_flops(32, 32)
    rate = _number(r"achieved ([\d.]+) GFLOP/s", text)
    assert rate == pytest.approx(small_conv_flops(32, 32) / (median * 1e-3) / 1e9, rel=0.05, abs=0.01)

    table = text.split("per-op profile", 1)[1]
    rows = re.findall(r"^  ([A-Z_0-9]+) +(\S+) +([\d.]+) ms +([\d.]+)%", table, re.MULTILINE)
    ops = {op for op, *_ in rows}
    assert {"CONV_2D", "ADD", "GLOBAL_AVERAGE_POOL"} <= ops
    assert {node for _, node, *_ in rows} >= {"conv1", "conv2", "residual", "pool"}
    shares = [float(share) for *_, share in rows]
    assert sum(shares) == pytest.approx(100.0, abs=0.5)
    times = [float(t) for _, _, t, _ in rows]
    assert times == sorted(times, reverse=True)


def test_bench_compares_with_onnxruntime_interleaved(tmp_path, small_conv_onnx, capsys):
    path = tmp_path / "small.onnx"
    onnx.save(small_conv_onnx, path)
    status = main(["bench", str(path), "--input-shape", "x=1,3,24,24", "--runs", "5", "--warmup", "1",
                   "--compare", "onnxruntime"])
    text = capsys.readouterr().out
    assert status == 0, text
    row = re.search(r"^  onnxruntime +([\d.]+) ms +([\d.]+) ms +([\d.]+) +([\d.e+-]+) ", text, re.MULTILINE)
    assert row, text
    ours = float(re.search(r"^  lite +([\d.]+) ms", text, re.MULTILINE).group(1))
    theirs, ratio, diff = float(row.group(1)), float(row.group(3)), float(row.group(4))
    # The table prints medians to 0.001 ms and the ratio to 0.01: allow exactly that rounding.
    printed_rounding = 0.005 + (theirs / ours) * (0.0005 / ours + 0.0005 / theirs)
    assert ratio == pytest.approx(theirs / ours, rel=0.02, abs=max(0.01, printed_rounding))
    assert diff < 1e-4  # both computed the same model on the same input


def test_bench_api_ratios_and_unavailable_peers(tmp_path, small_conv_onnx):
    path = tmp_path / "small.onnx"
    onnx.save(small_conv_onnx, path)
    result = benchmark(BenchConfig(path, {"x": [1, 3, 16, 16]}, runs=4, warmup=0,
                                   compare=("onnxruntime", "no_such_runtime")))
    ort, unknown = result.peers
    assert ort.stats is not None and ort.stats.runs == 4 and ort.unavailable is None
    assert unknown.stats is None and "unknown peer" in unknown.unavailable
    assert result.ours.stats is not None and result.ours.stats.runs == 4
    assert result.arena_bytes > 0
    assert result.flops.total == small_conv_flops(16, 16)


def test_bench_of_lite_without_onnx_says_peers_need_it(tmp_path, small_conv_lite, capsys):
    path = tmp_path / "alone.lite"
    path.write_bytes(small_conv_lite)
    assert main(["bench", str(path), "--input-shape", "x=1,3,8,8", "--runs", "2", "--compare", "ort"]) == 0
    text = capsys.readouterr().out
    assert re.search(r"onnxruntime .*not run: needs the source ONNX", text), text


def test_bench_of_tflite_runs_litert_on_that_file_and_says_what_the_others_need(tmp_path, small_conv_onnx):
    pytest.importorskip("ai_edge_litert", reason="LiteRT not installed: `make bench-deps` installs it")
    from lite_converter.app.peers.tflite_export import export_tflite

    onnx_path = tmp_path / "small.onnx"
    onnx.save(small_conv_onnx, onnx_path)
    lite = tmp_path / "small.lite"
    convert_onnx(onnx_path, lite, input_shapes={"x": [1, 3, 16, 16]})
    source = tmp_path / "given" / "model.tflite"
    source.parent.mkdir()
    source.write_bytes(export_tflite(read_model(lite)))
    workdir = tmp_path / "w"
    result = benchmark(BenchConfig(source, runs=2, warmup=0, compare=("litert", "onnxruntime"),
                                   workdir=workdir))
    litert, ort = result.peers
    assert result.lite_path == workdir / "model.lite" and result.ours.stats is not None
    assert litert.unavailable is None and litert.max_abs_diff is not None and litert.max_abs_diff < 1e-4
    assert not list(workdir.glob("*.tflite"))  # LiteRT ran the given file, nothing was exported
    assert ort.stats is None and "needs an ONNX model" in ort.unavailable


def test_bench_baseline_runs_interleaved_and_is_compared(tmp_path, small_conv_lite, capsys):
    """--baseline: another model on our runtime in the same loop, its outputs diffed against ours."""
    from tests.conftest import small_conv_net

    path = tmp_path / "main.lite"
    path.write_bytes(small_conv_lite)
    other = tmp_path / "other.onnx"
    onnx.save(small_conv_net(seed=1), other)  # same graph, other weights: outputs must differ
    assert main(["bench", str(path), "--input-shape", "x=1,3,8,8", "--runs", "3", "--warmup", "0",
                 "--baseline", str(path)]) == 0
    row = re.search(r"lite baseline +[0-9.]+ ms .* [0-9.]+ +([0-9.e+-]+) +main.lite", capsys.readouterr().out)
    assert row is not None and float(row.group(1)) == 0.0
    result = benchmark(BenchConfig(path, {"x": [1, 3, 8, 8]}, runs=3, warmup=0, baseline=other))
    (baseline,) = result.peers
    assert baseline.stats is not None and baseline.stats.runs == 3
    assert baseline.max_abs_diff is not None and baseline.max_abs_diff > 1e-3


def test_bench_dynamic_input_needs_a_shape(tmp_path, small_conv_lite, capsys):
    path = tmp_path / "dyn.lite"
    path.write_bytes(small_conv_lite)
    assert main(["bench", str(path)]) == 1
    assert "--input-shape x=" in capsys.readouterr().err


def test_bench_target_counts_instructions_under_qemu(tmp_path, small_conv_lite, capsys):
    spec = bench_qemu.TARGETS["aarch64"]
    if not (spec.lite_bench.exists() and bench_qemu.PLUGIN_PATH.exists()):
        pytest.skip("no aarch64 lite_bench or qemu plugin: `make cross qemu-plugin`")
    path = tmp_path / "m.lite"
    path.write_bytes(small_conv_lite)
    assert main(["bench", str(path), "--target", "aarch64", "--input-shape", "x=1,3,16,16"]) == 0
    text = capsys.readouterr().out
    instructions = _number(r"instructions per inference: (\d+)", text)
    assert _number(r"FLOPs: ([\d.]+) G", text) == pytest.approx(small_conv_flops(16, 16) / 1e9, abs=1e-4)
    per_instruction = _number(r"([\d.]+) FLOPs per instruction", text)
    assert per_instruction == pytest.approx(small_conv_flops(16, 16) / instructions, rel=0.01)
    assert instructions > small_conv_flops(16, 16) / 16  # no ISA here does more than 16 FLOPs per instruction


@pytest.mark.parametrize("peer, modules", [("mnn", ["MNN", "_tools"]), ("ncnn", ["ncnn", "pnnx"])])
def test_bench_optional_peer_runs_and_agrees(tmp_path, small_conv_onnx, peer, modules):
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"{peer} not installed ({', '.join(missing)}): `make bench-deps` installs the peers")
    path = tmp_path / "small.onnx"
    onnx.save(small_conv_onnx, path)
    result = benchmark(BenchConfig(path, {"x": [1, 3, 16, 16]}, runs=3, warmup=0, compare=(peer,),
                                   workdir=tmp_path / "work"))
    (row,) = result.peers
    assert row.unavailable is None, row.unavailable
    assert row.stats is not None and row.stats.median > 0
    # same model, same input; ncnn's default fast paths round more than fp32 reference code
    assert row.max_abs_diff is not None and row.max_abs_diff < 1e-2


def test_lite_path_is_what_ran(tmp_path, small_conv_onnx):
    path = tmp_path / "keep.onnx"
    onnx.save(small_conv_onnx, path)
    result = benchmark(BenchConfig(path, {"x": [1, 3, 8, 8]}, runs=1, warmup=0, workdir=tmp_path / "w"))
    assert result.lite_path == Path(tmp_path / "w" / "keep.lite") and result.lite_path.is_file()


# -- LiteRT through our .lite -> .tflite exporter --------------------------------------------------
def test_tflite_export_names_the_ops_it_does_not_cover():
    pytest.importorskip("ai_edge_litert", reason="LiteRT not installed: `make bench-deps` installs it")
    from lite_converter.app.peers.tflite_export import ExportUnsupported, export_tflite

    nodes = [helper.make_node("Softmax", ["x"], ["s"], axis=-1),
             helper.make_node("ArgMax", ["s"], ["y"], axis=1)]
    model = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 6])],
                   [helper.make_tensor_value_info("y", TensorProto.INT64, [1, 1, 6])], {})
    with pytest.raises(ExportUnsupported, match=r"op\(s\) ARG_MAX$"):  # SOFTMAX is covered
        export_tflite(read_model(convert_onnx(model)))


def test_litert_runs_the_exported_model_and_agrees(tmp_path):
    pytest.importorskip("ai_edge_litert", reason="LiteRT not installed: `make bench-deps` installs it")
    # stride-2 conv with symmetric pads (needs an explicit PAD: TFLite's SAME pads bottom/right only),
    # depthwise conv (SAME), max pool with explicit pads (PADV2 with -inf), dense head
    rng = np.random.default_rng(3)
    weights = {"w": rng.standard_normal((8, 3, 3, 3)).astype(np.float32),
               "b": rng.standard_normal(8).astype(np.float32),
               "dw": rng.standard_normal((8, 1, 3, 3)).astype(np.float32),
               "fc": rng.standard_normal((5, 8 * 4 * 4)).astype(np.float32)}
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], strides=[2, 2], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("Conv", ["r", "dw"], ["d"], group=8, pads=[1, 1, 1, 1]),
             helper.make_node("Clip", ["d", "lo", "hi"], ["d6"]),
             helper.make_node("MaxPool", ["d6"], ["p"], kernel_shape=[3, 3], strides=[2, 2],
                              pads=[1, 1, 1, 1]),
             helper.make_node("Flatten", ["p"], ["f"]),
             helper.make_node("Gemm", ["f", "fc"], ["y"], transB=1)]
    weights |= {"lo": np.array(0, np.float32), "hi": np.array(6, np.float32)}
    path = tmp_path / "cnn.onnx"
    onnx.save(_model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
                     [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])], weights), path)
    result = benchmark(BenchConfig(path, runs=2, warmup=0, compare=("litert",), workdir=tmp_path / "w"))
    (row,) = result.peers
    assert row.unavailable is None, row.unavailable
    assert row.max_abs_diff is not None and row.max_abs_diff < 1e-4
    assert (tmp_path / "w" / "cnn.tflite").is_file()


def test_litert_export_of_unfusable_activations_resize_concat_deconv(tmp_path):
    """The PP-OCR det ingredients: hard-sigmoid and hard-swish after convs (separate ops in TFLite),
    channel concat, nearest x2 resize, stride-2 transposed conv followed by a sigmoid."""
    pytest.importorskip("ai_edge_litert", reason="LiteRT not installed: `make bench-deps` installs it")
    rng = np.random.default_rng(4)
    weights = {"w1": rng.standard_normal((4, 4, 1, 1)).astype(np.float32),
               "w2": rng.standard_normal((4, 4, 3, 3)).astype(np.float32),
               "wt": rng.standard_normal((8, 2, 2, 2)).astype(np.float32),
               "bt": rng.standard_normal(2).astype(np.float32),
               "roi": np.zeros(0, np.float32), "scales": np.array([1, 1, 2, 2], np.float32)}
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c1"]),
             helper.make_node("HardSigmoid", ["c1"], ["hs"], alpha=0.2, beta=0.5),
             helper.make_node("Conv", ["x", "w2"], ["c2"], pads=[1, 1, 1, 1]),
             helper.make_node("HardSwish", ["c2"], ["hw"]),
             helper.make_node("Concat", ["hs", "hw"], ["cat"], axis=1),
             helper.make_node("Resize", ["cat", "roi", "scales"], ["up"], mode="nearest",
                              coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
             helper.make_node("ConvTranspose", ["cat", "wt", "bt"], ["t"], strides=[2, 2]),
             helper.make_node("Sigmoid", ["t"], ["prob"])]
    path = tmp_path / "det_like.onnx"
    outputs = [helper.make_tensor_value_info("up", TensorProto.FLOAT, [1, 8, 16, 16]),
               helper.make_tensor_value_info("prob", TensorProto.FLOAT, [1, 2, 16, 16])]
    onnx.save(_model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])], outputs,
                     weights), path)
    result = benchmark(BenchConfig(path, runs=2, warmup=0, compare=("litert",), workdir=tmp_path / "w"))
    (row,) = result.peers
    assert row.unavailable is None, row.unavailable
    assert row.max_abs_diff is not None and row.max_abs_diff < 1e-4
