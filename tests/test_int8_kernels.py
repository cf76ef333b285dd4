"""The fast int8 conv / depthwise / FC / max pool paths (packed int8 GEMM, im2col, depthwise and max pool
kernels) in the runtime.

Every int8 tensor must equal the fake-quant simulation (slim/fake_quant.py) exactly (0 LSB), the bytes
must not depend on the thread count, and the fast kernels must give exactly the bytes of the portable
C paths (LITE_CPU_FEATURES_MASK=0: portable GEMM microkernel and max pool, reference depthwise), which a fresh
process reads once at start. Channel counts (40, 72) straddle the 16 / 32-column tiles and the
32-channel depthwise blocks; odd spatial sizes give padded borders.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import slim
from lite_converter.ir import Graph
from runtime_arm import Interpreter
from slim.calibrate import with_outputs
from tests.slim_oracle import assert_exact, int8_mismatches

INPUT_SHAPE = (1, 3, 13, 11)


def fast_path_net(with_head: bool = True) -> onnx.ModelProto:
    """7x7 s2 conv (im2col: 21-byte runs, like ResNet's stem) -> 3x2 max pool with asymmetric pads
    -> 1x1 (direct GEMM) -> depthwise 3x3
    -> depthwise 5x5 s1 with asymmetric pads (the VNNI 5x5 kernel on AVX-512 VNNI hosts)
    -> depthwise 5x5 s2 with asymmetric pads -> 1x1 -> 1x7 conv (im2col) [-> GAP -> Gemm (FC): without
    it, any batch size runs]."""
    rng = np.random.default_rng(11)

    def weight(*shape: int, scale: float = 0.3) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    w = {"w1": weight(40, 3, 7, 7, scale=0.1), "b1": weight(40, scale=0.1), "w2": weight(72, 40, 1, 1),
         "wd3": weight(72, 1, 3, 3, scale=0.5), "bd3": weight(72, scale=0.1), "wd5": weight(72, 1, 5, 5),
         "wd5s1": weight(72, 1, 5, 5),
         "w4": weight(40, 72, 1, 1), "b4": weight(40, scale=0.1), "w5": weight(33, 40, 1, 7),
         "fc_w": weight(10, 33), "fc_b": weight(10, scale=0.1)}
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[3, 3, 3, 3], strides=[2, 2], name="stem"),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[3, 2], pads=[1, 0, 1, 1], name="maxpool"),
        helper.make_node("Conv", ["p1", "w2"], ["c2"], name="expand"),
        helper.make_node("Conv", ["c2", "wd3", "bd3"], ["c3"], pads=[1, 1, 1, 1], group=72, name="dw3"),
        helper.make_node("Clip", ["c3", "lo", "hi"], ["r3"], name="relu6"),
        helper.make_node("Conv", ["r3", "wd5s1"], ["c3b"], pads=[2, 1, 2, 3], group=72, name="dw5s1"),
        helper.make_node("Conv", ["c3b", "wd5"], ["c4"], pads=[2, 1, 2, 3], strides=[2, 2], group=72,
                         name="dw5"),
        helper.make_node("Conv", ["c4", "w4", "b4"], ["c5"], name="project"),
        helper.make_node("Conv", ["c5", "w5"], ["c6" if with_head else "y"], pads=[0, 3, 0, 3],
                         name="conv1x7"),
    ]
    if with_head:
        nodes += [helper.make_node("GlobalAveragePool", ["c6"], ["gap"], name="gap"),
                  helper.make_node("Flatten", ["gap"], ["flat"], name="flatten"),
                  helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["y"], transB=1, name="fc")]
    else:
        del w["fc_w"], w["fc_b"]
    inits = [numpy_helper.from_array(v, k) for k, v in w.items()]
    inits += [numpy_helper.from_array(np.array(v, np.float32), k) for k, v in (("lo", 0), ("hi", 6))]
    # Without the head any batch size runs: the batch dim is dynamic then (the runtime resizes only those).
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, list(INPUT_SHAPE) if with_head
                                      else ["batch", *INPUT_SHAPE[1:]])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10] if with_head else None)
    graph = helper.make_graph(nodes, "int8_fast_paths", [x], [y], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def _quantized(with_head: bool = True) -> tuple[Graph, dict[str, np.ndarray]]:
    rng = np.random.default_rng(5)
    data = [rng.standard_normal(INPUT_SHAPE).astype(np.float32) for _ in range(4)]
    result = slim.compress(fast_path_net(with_head), None, data, slim.QuantConfig(progress=False))
    assert {"stem", "maxpool", "expand", "dw3", "dw5", "project", "conv1x7"} <= set(result.int8_nodes)
    return result.graph, {"x": data[0]}


def _every_tensor(model: bytes, feeds: dict[str, np.ndarray], threads: int) -> dict[str, np.ndarray]:
    with Interpreter(model_content=model, threads=threads) as interpreter:
        return {name: np.array(value) for name, value in interpreter.run(feeds).items()}


def _probe_model(graph: Graph) -> bytes:
    names = [t for node in graph.nodes for t in node.outputs if t and not graph.tensors[t].is_constant]
    return with_outputs(graph, list(dict.fromkeys(names)))


def test_fast_int8_paths_match_simulation() -> None:
    graph, feeds = _quantized()
    errors = int8_mismatches(graph, feeds)
    assert {"stem", "maxpool", "expand", "dw3", "dw5", "project", "conv1x7", "fc"} <= set(errors)
    assert_exact(errors)


def _assert_same_bytes_on_2_and_4_threads(model: bytes, feeds: dict[str, np.ndarray]) -> None:
    one = _every_tensor(model, feeds, 1)
    for threads in (2, 4):
        other = _every_tensor(model, feeds, threads)
        for name, value in one.items():
            np.testing.assert_array_equal(other[name], value, err_msg=f"{name} with {threads} threads")


def test_fast_int8_paths_do_not_depend_on_threads() -> None:
    graph, feeds = _quantized()
    _assert_same_bytes_on_2_and_4_threads(_probe_model(graph), feeds)


_PORTABLE_RUN = """
import json, sys
import numpy as np
from runtime_arm import Interpreter
model = open(sys.argv[1], "rb").read()
x = np.load(sys.argv[2])
with Interpreter(model_content=model) as interpreter:
    out = interpreter.run({"x": x})
json.dump({k: np.asarray(v).astype(np.int64).ravel().tolist() for k, v in out.items()}, sys.stdout)
"""


def _assert_equal_to_portable_paths(model: bytes, feeds: dict[str, np.ndarray], tmp_path: Path,
                                    min_int8_outputs: int) -> None:
    """The fast kernels' bytes against a fresh process with every CPU feature masked off."""
    fast = _every_tensor(model, feeds, 1)
    (tmp_path / "m.lite").write_bytes(model)
    np.save(tmp_path / "x.npy", feeds["x"])
    env = {**os.environ, "LITE_CPU_FEATURES_MASK": "0"}
    command = [sys.executable, "-c", _PORTABLE_RUN, str(tmp_path / "m.lite"), str(tmp_path / "x.npy")]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True,
                          cwd=Path(__file__).parent.parent)
    portable = json.loads(done.stdout)
    int8_outputs = [name for name, value in fast.items() if value.dtype == np.int8]
    assert len(int8_outputs) >= min_int8_outputs
    for name in int8_outputs:
        np.testing.assert_array_equal(fast[name].astype(np.int64).ravel(), np.array(portable[name]),
                                      err_msg=name)


def test_fast_int8_kernels_equal_the_portable_paths(tmp_path: Path) -> None:
    graph, feeds = _quantized()
    _assert_equal_to_portable_paths(_probe_model(graph), feeds, tmp_path, min_int8_outputs=8)


def _assert_batch_of_two_equals_two_single_runs(model: bytes, first: np.ndarray, second: np.ndarray,
                                                 min_compared: int) -> None:
    singles = [_every_tensor(model, {"x": x}, 1) for x in (first, second)]
    with Interpreter(model_content=model, threads=2) as interpreter:
        interpreter.resize_input("x", (2, *first.shape[1:]))
        interpreter.allocate_tensors()
        outputs = interpreter.run({"x": np.concatenate([first, second])})
        batch = {name: np.array(value) for name, value in outputs.items()}
    compared = 0
    for name, value in batch.items():
        if value.dtype != np.int8 or value.shape[0] != 2:
            continue
        for i in range(2):
            np.testing.assert_array_equal(value[i], singles[i][name][0], err_msg=f"{name} image {i}")
        compared += 1
    assert compared >= min_compared


def test_fast_int8_paths_batch_of_two_equals_two_single_runs() -> None:
    """im2col steps (batch, row, column) across tile and batch boundaries; each image of a batch must
    give the bytes it gives alone."""
    graph, feeds = _quantized(with_head=False)
    second = np.random.default_rng(9).standard_normal(INPUT_SHAPE).astype(np.float32)
    _assert_batch_of_two_equals_two_single_runs(_probe_model(graph), feeds["x"], second, min_compared=6)


ROWS_INPUT_SHAPE = (1, 8, 9, 33)


def rows_gemm_net() -> onnx.ModelProto:
    """Convolutions wide enough (>= 12 interior output columns) for the in-place kernel-row GEMM on a
    VNNI host: 3x3 pad 1 (60 channels: a 32-column tile with a 28-column tail), 3x3 stride 2 with
    asymmetric pads and row dilation 2 (80 channels: 16-column tiles), 1x1 stride 2 (no border), 3x3
    pad 1 (44 channels: 24-column tiles, a 20-column tail)."""
    rng = np.random.default_rng(23)

    def weight(*shape: int, scale: float = 0.3) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    w = {"wa": weight(60, 8, 3, 3), "ba": weight(60, scale=0.1), "wb": weight(80, 60, 3, 3, scale=0.1),
         "wc": weight(100, 60, 1, 1), "bc": weight(100, scale=0.1), "wd": weight(44, 60, 3, 3, scale=0.1)}
    nodes = [
        helper.make_node("Conv", ["x", "wa", "ba"], ["ca"], pads=[1, 1, 1, 1], name="conv3x3"),
        helper.make_node("Relu", ["ca"], ["ra"], name="relu"),
        helper.make_node("Conv", ["ra", "wb"], ["yb"], pads=[0, 1, 2, 2], strides=[2, 2], dilations=[2, 1],
                         name="conv3x3_s2"),
        helper.make_node("Conv", ["ra", "wc", "bc"], ["yc"], strides=[2, 2], name="conv1x1_s2"),
        helper.make_node("Conv", ["ra", "wd"], ["yd"], pads=[1, 1, 1, 1], name="conv3x3_44"),
    ]
    inits = [numpy_helper.from_array(v, k) for k, v in w.items()]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", *ROWS_INPUT_SHAPE[1:]])
    outputs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, None) for name in ("yb", "yc", "yd")]
    graph = helper.make_graph(nodes, "int8_rows_gemm", [x], outputs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def _quantized_rows() -> tuple[Graph, dict[str, np.ndarray]]:
    rng = np.random.default_rng(6)
    data = [rng.standard_normal(ROWS_INPUT_SHAPE).astype(np.float32) for _ in range(4)]
    result = slim.compress(rows_gemm_net(), None, data, slim.QuantConfig(progress=False))
    assert {"conv3x3", "conv3x3_s2", "conv1x1_s2", "conv3x3_44"} <= set(result.int8_nodes)
    return result.graph, {"x": data[0]}


def test_rows_gemm_convs_match_simulation_threads_and_portable(tmp_path: Path) -> None:
    """The kernel-row GEMM (borders through im2col, interior read in place) against the simulation,
    against itself on 1 / 2 / 4 threads, and byte for byte against the portable paths."""
    graph, feeds = _quantized_rows()
    errors = int8_mismatches(graph, feeds)
    assert {"conv3x3", "conv3x3_s2", "conv1x1_s2", "conv3x3_44"} <= set(errors)
    assert_exact(errors)
    model = _probe_model(graph)
    _assert_same_bytes_on_2_and_4_threads(model, feeds)
    _assert_equal_to_portable_paths(model, feeds, tmp_path, min_int8_outputs=4)


def test_rows_gemm_batch_of_two_equals_two_single_runs() -> None:
    """Rows-GEMM tasks index output rows across images: each image of a batch gives its own bytes."""
    graph, feeds = _quantized_rows()
    second = np.random.default_rng(10).standard_normal(ROWS_INPUT_SHAPE).astype(np.float32)
    _assert_batch_of_two_equals_two_single_runs(_probe_model(graph), feeds["x"], second, min_compared=3)
