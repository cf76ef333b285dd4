"""QUANTIZE / DEQUANTIZE at the int8 borders against onnxruntime's QuantizeLinear / DequantizeLinear.

onnxruntime shares no code with the runtime or with lite_converter.int8 (the simulation), and the ONNX
operators define the same arithmetic: ``saturate(round_half_even(x / scale) + zero_point)`` and
``(q - zero_point) * scale`` in float32. Inputs: exact ties (x / scale lands on k + 0.5 in float32:
the rounding rule alone decides), their float32 neighbours, signed zeros, subnormals, values far
outside the range, +-inf and random values; for DEQUANTIZE every int8 byte. Compared byte for byte
(float32 bit patterns for DEQUANTIZE), on the runtime's vector kernels (selected from the CPU's
features) and on its portable C kernels (LITE_CPU_FEATURES_MASK=0 in a fresh process).

onnxruntime runs with graph optimizations off (commit 45b3131: on an AVX2 host without VNNI its fused
int8 kernels saturate; the plain operators are the ONNX meaning).

NaN: the ONNX operators leave it undefined for int8; onnxruntime 1.32 gives -128 (its clamp's min/max
drop the NaN), ours gives the zero point, i.e. the real value 0 (docs/QUANTIZATION.md), in the runtime
and in the simulation alike. The test holds us to ours and states theirs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from lite_converter import int8
from lite_converter.ir import Graph, Node, QuantParams
from lite_converter.writer import serialize
from runtime_arm import Interpreter

ROOT = Path(__file__).resolve().parents[1]
# (scale, zero point): powers of two (every grid tie is exact), scales with few exact ties, extremes
SCALES = [(0.25, 3), (1.0, 0), (2.0 ** -7, -128), (0.0123, 17), (0.1, 127), (3.7e-5, -5), (41.5, 0),
          (6 / 255, -128)]


def border_inputs(scale: float, zero_point: int) -> tuple[np.ndarray, int]:
    """float32 inputs around every grid point and halfway point of [-300, 300] steps, +-3 ulps each, and
    the special values; and how many of them are exact float32 ties (x / scale == k + 0.5)."""
    s = np.float32(scale)
    halves = (np.arange(-300, 300, 0.5) - zero_point).astype(np.float64) * float(s)
    x = halves.astype(np.float32)
    for _ in range(3):
        x = np.concatenate([x, np.nextafter(x, np.float32(np.inf)), np.nextafter(x, np.float32(-np.inf))])
    x = np.unique(x)
    specials = np.array([0.0, -0.0, 1e-45, -1e-45, 1e-40, -1e-40, np.inf, -np.inf, 1e30, -1e30,
                         np.finfo(np.float32).max, -np.finfo(np.float32).max], np.float32)
    rng = np.random.default_rng(int(scale * 1e6) % 2 ** 32)
    x = np.concatenate([x, specials, rng.normal(0, 150 * scale, 5000).astype(np.float32)])
    with np.errstate(over="ignore", invalid="ignore"):
        quotient = x / s
        ties = int(np.sum(np.isfinite(quotient) & (quotient - np.floor(quotient) == np.float32(0.5))))
    return x, ties


def onnxruntime_borders(x: np.ndarray, q_all: np.ndarray, scale: float, zero_point: int
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(QuantizeLinear(x), DequantizeLinear(QuantizeLinear(x)), DequantizeLinear(q_all)) in onnxruntime."""
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"]),
             helper.make_node("DequantizeLinear", ["b", "s", "z"], ["yb"])]
    graph = helper.make_graph(
        nodes, "borders",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("b", TensorProto.INT8, None)],
        [helper.make_tensor_value_info(name, dtype, None)
         for name, dtype in (("q", TensorProto.INT8), ("y", TensorProto.FLOAT), ("yb", TensorProto.FLOAT))],
        [numpy_helper.from_array(np.array(scale, np.float32), "s"),
         numpy_helper.from_array(np.array(zero_point, np.int8), "z")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)], ir_version=9)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    q, y, yb = session.run(None, {"x": x, "b": q_all})
    return q, y, yb


def border_model(count: int, scale: float, zero_point: int) -> bytes:
    """x float32 [count] -> QUANTIZE -> q -> DEQUANTIZE -> y, and b int8 [256] -> DEQUANTIZE -> yb."""
    def quant() -> QuantParams:
        return QuantParams(np.array([scale], np.float32), np.array([zero_point], np.int64))

    graph = Graph()
    for name, dtype, shape in (("x", np.float32, [count]), ("q", np.int8, [count]),
                               ("y", np.float32, [count]), ("b", np.int8, [256]), ("yb", np.float32, [256])):
        graph.add_tensor(name, dtype, shape)
    graph.tensors["q"].quant, graph.tensors["b"].quant = quant(), quant()
    graph.nodes = [Node("QUANTIZE", "quantize", ["x"], ["q"]), Node("DEQUANTIZE", "dequantize", ["q"], ["y"]),
                   Node("DEQUANTIZE", "dequantize_bytes", ["b"], ["yb"])]
    graph.inputs, graph.outputs = ["x", "b"], ["q", "y", "yb"]
    return serialize(graph)


_PORTABLE_RUN = """
import sys
import numpy as np
from runtime_arm import Interpreter
for path in sys.argv[1:]:
    with Interpreter(model_content=open(path + ".lite", "rb").read()) as interpreter:
        out = interpreter.run({"x": np.load(path + ".x.npy"), "b": np.arange(-128, 128, dtype=np.int8)})
    for name, value in out.items():
        np.save(f"{path}.{name}.npy", np.asarray(value))
"""


def _portable_runs(tmp_path: Path, cases: list[tuple[bytes, np.ndarray]]) -> list[dict[str, np.ndarray]]:
    """Each (model, x) run in one fresh process with every CPU feature masked off (portable kernels)."""
    paths = []
    for i, (model, x) in enumerate(cases):
        path = tmp_path / f"case{i}"
        path.with_suffix(".lite").write_bytes(model)
        np.save(f"{path}.x.npy", x)
        paths.append(str(path))
    env = {**os.environ, "LITE_CPU_FEATURES_MASK": "0"}
    subprocess.run([sys.executable, "-c", _PORTABLE_RUN, *paths], env=env, check=True, cwd=ROOT)
    return [{name: np.load(f"{path}.{name}.npy") for name in ("q", "y", "yb")} for path in paths]


def _bits(values: np.ndarray) -> np.ndarray:
    return np.asarray(values, np.float32).view(np.uint32)


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    """Per scale: the inputs, onnxruntime's results and the runtime's (vector kernels)."""
    out = []
    q_all = int8.ALL_INT8.copy()
    for scale, zero_point in SCALES:
        x, ties = border_inputs(scale, zero_point)
        q, y, yb = onnxruntime_borders(x, q_all, scale, zero_point)
        model = border_model(x.size, scale, zero_point)
        with Interpreter(model_content=model) as interpreter:
            ours = {k: np.array(v) for k, v in interpreter.run({"x": x, "b": q_all}).items()}
        out.append({"scale": scale, "zero_point": zero_point, "x": x, "ties": ties, "model": model,
                    "ort": {"q": q, "y": y, "yb": yb}, "runtime": ours})
    return out


def test_inputs_hold_exact_ties(cases: list[dict]) -> None:
    """The rounding rule is tested, not assumed: every scale gives >= 600 exact float32 ties."""
    ties = {(c["scale"], c["zero_point"]): c["ties"] for c in cases}
    assert min(ties.values()) >= 600, ties


def _assert_equal_to_onnxruntime(ours: dict[str, np.ndarray], case: dict, label: str) -> None:
    theirs, x = case["ort"], case["x"]
    wrong = np.flatnonzero(ours["q"] != theirs["q"])[:5]
    assert wrong.size == 0, (f"{label} scale {case['scale']} zp {case['zero_point']}: QUANTIZE differs from "
                             f"QuantizeLinear at x = {x[wrong].tolist()}: ours {ours['q'][wrong].tolist()}, "
                             f"onnxruntime {theirs['q'][wrong].tolist()}")
    for name in ("y", "yb"):  # DEQUANTIZE of the quantized inputs, of every byte
        np.testing.assert_array_equal(_bits(ours[name]), _bits(theirs[name]), err_msg=f"{label} {name}")


def test_runtime_vector_kernels_equal_onnxruntime(cases: list[dict]) -> None:
    for case in cases:
        _assert_equal_to_onnxruntime(case["runtime"], case, "runtime")


def test_runtime_portable_kernels_equal_onnxruntime(cases: list[dict], tmp_path: Path) -> None:
    portable = _portable_runs(tmp_path, [(c["model"], c["x"]) for c in cases])
    for case, ours in zip(cases, portable, strict=True):
        _assert_equal_to_onnxruntime(ours, case, "portable")


def test_simulation_equals_onnxruntime(cases: list[dict]) -> None:
    """lite_converter.int8 (what slim's simulation and the converter compute) against onnxruntime."""
    for case in cases:
        scale, zero_point = case["scale"], case["zero_point"]
        with np.errstate(over="ignore"):  # x / scale of 3e38 / 3.7e-5 is inf, saturated
            q = int8.quantize(case["x"], scale, zero_point)
        ours = {"q": q, "y": int8.dequantize(q, scale, zero_point),
                "yb": int8.dequantize(int8.ALL_INT8, scale, zero_point)}
        _assert_equal_to_onnxruntime(ours, case, "simulation")


@pytest.mark.parametrize(("scale", "zero_point"), [(0.25, 3), (0.0123, -128), (41.5, 127)])
def test_nan_is_the_zero_point_in_the_runtime_and_the_simulation(scale: float, zero_point: int,
                                                                 tmp_path: Path) -> None:
    """NaN -> the zero point (real 0) in both runtime kernels and the simulation; onnxruntime: -128."""
    x = np.array([np.nan, -np.nan, np.float32(np.nan) * 0, 1.0, np.nan] * 13, np.float32)  # vector + tail
    nan = np.isnan(x)
    model = border_model(x.size, scale, zero_point)
    with Interpreter(model_content=model) as interpreter:
        vector = np.array(interpreter.run({"x": x, "b": int8.ALL_INT8})["q"])
    (portable,) = _portable_runs(tmp_path, [(model, x)])
    simulated = int8.quantize(x, scale, zero_point)
    for label, q in (("vector", vector), ("portable", portable["q"]), ("simulation", simulated)):
        assert np.all(q[nan] == zero_point), (label, q[nan].tolist())
        np.testing.assert_array_equal(q[~nan], simulated[~nan], err_msg=label)
    theirs, _, _ = onnxruntime_borders(x, int8.ALL_INT8, scale, zero_point)
    assert np.array_equal(theirs[~nan], simulated[~nan])
    assert set(theirs[nan].tolist()) <= {-128, zero_point}, theirs[nan].tolist()  # -128 in onnxruntime 1.32
