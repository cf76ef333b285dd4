"""fp32 binary ops of a whole tensor and one value per channel (PRELU's slopes as MediaPipe's hand recrop
and iris models apply them to 8-64 channel maps, a per-channel scale or shift, either operand order):
the runtime runs them on tiles of whole rows with the per-channel values repeated (ops/binary.cc,
per_channel_rows) instead of one vector call per pixel. Outputs against LiteRT's builtin kernels for
channel counts below, at and above the tile's limit, on one thread and on two."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert", reason="needs the tflite extra (ai-edge-litert)")
from ai_edge_litert import schema_py_generated as s  # noqa: E402

from lite_converter.convert import convert_tflite  # noqa: E402
from runtime_arm import Interpreter  # noqa: E402
from tests.tflite_builder import TfliteModel, options, run_litert  # noqa: E402

OPTIONS = {"ADD": s.AddOptionsT, "SUB": s.SubOptionsT, "MUL": s.MulOptionsT, "DIV": s.DivOptionsT,
           "PRELU": None}


def _model(op: str, channels: int, vector_first: bool, vector_shape: str) -> bytes:
    m = TfliteModel()
    shape = [1, 23, 17, channels]
    x = m.tensor("x", shape)
    rng = np.random.default_rng(channels)
    signs = rng.choice([-1.0, 1.0], channels).astype(np.float32)
    values = rng.uniform(0.25, 2.0, channels).astype(np.float32) * signs
    vector = m.constant("vector", values.reshape({"c": (channels,), "hwc": (1, 1, channels),
                                                  "nhwc": (1, 1, 1, channels)}[vector_shape]))
    y = m.tensor("y", shape)
    opts = OPTIONS[op]
    m.op(op, [vector, x] if vector_first else [x, vector], [y], options(opts()) if opts is not None else None)
    return m.finish([x], [y])


CASES = [("PRELU", False), ("ADD", False), ("MUL", True), ("SUB", True), ("SUB", False), ("DIV", True),
         ("DIV", False)]


@pytest.mark.parametrize("channels", [3, 8, 28, 128, 200])
@pytest.mark.parametrize(("op", "vector_first"), CASES)
def test_per_channel_operand_matches_litert(op: str, vector_first: bool, channels: int,
                                            tmp_path: Path) -> None:
    data = _model(op, channels, vector_first, "hwc" if op == "PRELU" else "c")
    path = tmp_path / "model.tflite"
    path.write_bytes(data)
    x = np.random.default_rng(1).standard_normal((1, 23, 17, channels)).astype(np.float32) * 4
    (theirs,) = run_litert(path, [x])
    converted = convert_tflite(data)
    for threads in (1, 2):
        with Interpreter(model_content=converted, threads=threads) as interpreter:
            (ours,) = interpreter.run([x]).values()
        # One IEEE operation per value, as LiteRT's builtin kernels compute it (DIV included).
        np.testing.assert_array_equal(ours, theirs, err_msg=f"{op} {threads} thread(s)")


@pytest.mark.parametrize("vector_shape", ["c", "nhwc"])
def test_prelu_slope_shapes(vector_shape: str, tmp_path: Path) -> None:
    data = _model("PRELU", 24, False, vector_shape)
    path = tmp_path / "model.tflite"
    path.write_bytes(data)
    x = np.random.default_rng(2).standard_normal((1, 23, 17, 24)).astype(np.float32)
    (theirs,) = run_litert(path, [x])
    with Interpreter(model_content=convert_tflite(data)) as interpreter:
        (ours,) = interpreter.run([x]).values()
    np.testing.assert_array_equal(ours, theirs)
