"""The arena plan of real converted models, checked against lifetimes computed here from the file.

Lifetimes come from lite_converter.reader (independent of the runtime's planner): a tensor lives
from the step of its producer to its last consumer; graph inputs and outputs for the whole run;
reshape-like ops may share their input's memory (then the pair's lifetimes merge). No two tensors
live at the same step may overlap in the arena. The outputs must still match onnxruntime.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from lite_converter import reader
from lite_converter.app import zoo
from lite_converter.convert import convert_onnx
from runtime_arm import Interpreter
from tests.datasets import text_lines
from tests.datasets.splits import EVALUATION_SEED
from tests.det_page import check_det_against_onnxruntime, det_page

ALIAS_OPS = {"RESHAPE", "FLATTEN", "SQUEEZE", "UNSQUEEZE", "IDENTITY"}


def check_plan(data: bytes, it: Interpreter) -> None:
    model = reader.read_model(data)
    details = it.tensor_details()
    end = len(model.operators) + 1
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for i in model.inputs:
        first[i], last[i] = 0, end
    for step, op in enumerate(model.operators, start=1):
        for o in op.outputs:
            first[o] = last[o] = step
        for i in op.inputs:
            if i >= 0:
                last[i] = max(last.get(i, step), step)
    for o in model.outputs:
        last[o] = end

    # Alias groups: an alias op's output at its input's address shares the input's memory.
    group = {t: t for t in range(len(details))}

    def root(t: int) -> int:
        while group[t] != t:
            t = group[t]
        return t

    for op in model.operators:
        if op.opcode in ALIAS_OPS and op.inputs and op.inputs[0] >= 0:
            src, dst = op.inputs[0], op.outputs[0]
            if details[dst]["address"] == details[src]["address"] and details[dst]["storage"] == "arena":
                group[root(dst)] = root(src)
    span: dict[int, tuple[int, int]] = {}
    for t in first:
        r = root(t)
        lo, hi = span.get(r, (first[t], last[t]))
        span[r] = (min(lo, first[t]), max(hi, last[t]))

    arena = [d for d in details if d["storage"] == "arena"]
    assert arena, "nothing in the arena"
    total = sum((d["bytes"] + 63) // 64 * 64 for d in arena)
    assert max(d["arena_offset"] + d["bytes"] for d in arena) <= it.arena_bytes <= total
    for a_index, a in enumerate(arena):
        assert a["arena_offset"] % 64 == 0
        for b in arena[a_index + 1:]:
            ra, rb = root(a["index"]), root(b["index"])
            if ra == rb or a["bytes"] == 0 or b["bytes"] == 0:
                continue
            (a_lo, a_hi), (b_lo, b_hi) = span[ra], span[rb]
            if a_lo <= b_hi and b_lo <= a_hi:
                disjoint = (a["arena_offset"] + a["bytes"] <= b["arena_offset"]
                            or b["arena_offset"] + b["bytes"] <= a["arena_offset"])
                assert disjoint, f"{a['name']} and {b['name']} overlap while both are live"


def run_and_compare(model: onnx.ModelProto | str, data: bytes, x: np.ndarray) -> Interpreter:
    it = Interpreter(model_content=data)
    ours = it.run({"x": x})
    source = model.SerializeToString() if isinstance(model, onnx.ModelProto) else model
    session = ort.InferenceSession(source, providers=["CPUExecutionProvider"])
    for out, ref in zip(session.get_outputs(), session.run(None, {"x": x}), strict=True):
        got = ours[out.name]
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4 * max(1.0, float(np.abs(ref).max())))
    return it


@pytest.mark.parametrize("shape", [(1, 3, 16, 16), (1, 3, 5, 9)])
def test_small_nets_plan(small_conv_onnx, shape_subgraph_onnx, shape):
    for model in (small_conv_onnx, shape_subgraph_onnx):
        data = convert_onnx(model)
        x = np.random.default_rng(3).uniform(-1, 1, size=shape).astype(np.float32)
        check_plan(data, run_and_compare(model, data, x))


@pytest.mark.parametrize("key", ["rec", "det"])
def test_paddleocr_plan(key):
    """The plan of the real models, on rendered text: a reused region that a later op overwrote too
    early shows in the outputs, and det's map must carry text for that to show (on noise it is ~1e-6)."""
    path = zoo.fetch(key)  # from the cache, or downloaded: a failure to fetch fails the test
    data = convert_onnx(path)
    if key == "det":
        x = det_page()
        it = Interpreter(model_content=data)
        (ours,) = it.run({"x": x}).values()
        check_det_against_onnxruntime(ours, path, x, "det")
    else:
        crops, _ = text_lines.render_lines(EVALUATION_SEED, 1, chinese_fraction=0.0)
        it = run_and_compare(str(path), data, text_lines.rec_input(crops))
    check_plan(data, it)
    # Memory is reused: the arena is well below the sum of all activations.
    total = sum(d["bytes"] for d in it.tensor_details() if d["storage"] == "arena")
    assert it.arena_bytes < 0.5 * total
