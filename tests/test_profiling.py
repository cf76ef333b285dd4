"""Per-op profiling through the C API (lite_interpreter_set_profiling / profile_entry) via the binding."""

from __future__ import annotations

import numpy as np
import pytest

from lite_converter.reader import read_model
from runtime_arm import Interpreter, LiteError


def feeds(h: int = 16, w: int = 16) -> dict[str, np.ndarray]:
    return {"x": np.random.default_rng(0).standard_normal((1, 3, h, w)).astype(np.float32)}


def test_entries_name_the_model_ops_in_order(small_conv_lite):
    model = read_model(small_conv_lite)
    with Interpreter(model_content=small_conv_lite) as it:
        rows = it.profile()
    assert [row["index"] for row in rows] == list(range(len(model.operators)))
    assert [row["node"] for row in rows] == [op.name for op in model.operators]
    assert [row["op"] for row in rows] == [op.opcode for op in model.operators]
    assert "CONV_2D" in {row["op"] for row in rows}
    assert all(row["calls"] == 0 and row["seconds"] == 0.0 for row in rows)  # never enabled


def test_calls_count_invokes_and_time_accumulates(small_conv_lite):
    with Interpreter(model_content=small_conv_lite) as it:
        it.run(feeds())  # before enabling: not counted
        it.set_profiling(True)
        for _ in range(5):
            it.run(feeds())
        rows = it.profile()
        assert all(row["calls"] == 5 for row in rows)
        assert all(row["seconds"] > 0 for row in rows if row["op"] == "CONV_2D")
        conv_seconds = sum(row["seconds"] for row in rows if row["op"] == "CONV_2D")

        it.run(feeds(32, 32))  # a resize re-plans memory; the counters go on
        after = it.profile()
        assert all(row["calls"] == 6 for row in after)
        assert sum(row["seconds"] for row in after if row["op"] == "CONV_2D") > conv_seconds

        it.set_profiling(False)  # stopping keeps the counters, adds nothing
        it.run(feeds())
        assert [row["calls"] for row in it.profile()] == [6] * len(rows)

        it.set_profiling(True)  # re-enabling starts from zero
        assert all(row["calls"] == 0 for row in it.profile())
        it.run(feeds())
        assert all(row["calls"] == 1 for row in it.profile())


def test_ops_done_at_prepare_are_never_called(shape_subgraph_onnx):
    from lite_converter.convert import convert_onnx

    with Interpreter(model_content=convert_onnx(shape_subgraph_onnx)) as it:
        it.set_profiling(True)
        for _ in range(3):
            it.run({"x": np.ones((2, 3, 8, 8), np.float32)})
        calls = {row["op"]: row["calls"] for row in it.profile()}
    assert calls["CONV_2D"] == 3
    assert set(calls.values()) <= {0, 3}


def test_closed_interpreter_refuses(small_conv_lite):
    it = Interpreter(model_content=small_conv_lite)
    it.close()
    with pytest.raises(LiteError):
        it.profile()
