"""A 1x1 convolution and the depthwise convolution reading its output, run as one pass over row bands
(runtime_arm/src/ops/conv2d_pointwise_depthwise.cc: the depthwise op absorbs the 1x1 when the tensor
between them is larger than L2 and nothing else reads it).

Oracles: onnxruntime on the ONNX model (tolerance 1e-4 * max(1, max|expected|), as in test_ops_nn), and
the same model run unfused: with the intermediate tensor also a graph output the core may not absorb
the 1x1, and the final output must then be the same bytes. Cases cross band, chunk and image
boundaries: strides 1 and 2, 3x3 and 5x5 windows, dilation, asymmetric pads, odd sizes, batch 2,
activations fused into both convolutions, 1, 2 and 4 threads.
"""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from test_ops_nn import _randn, assert_close, make_model, run_onnxruntime

from lite_converter.convert import convert_onnx
from runtime_arm import Interpreter

# (N, Cin, H, W, C, depthwise kernel, depthwise attrs, 1x1 activation, depthwise activation); the
# intermediate N x C x H x W floats is above 1 MiB in every case
CASES = {
    "mobilenet_expand_s2": (1, 16, 75, 77, 96, 3, dict(strides=[2, 2], pads=[1, 1, 1, 1]), "Relu6", "Relu6"),
    "s1_pad1_batch2": (2, 24, 41, 43, 144, 3, dict(pads=[1, 1, 1, 1]), "Relu6", None),
    "5x5_s2_asym_pads": (1, 32, 64, 37, 120, 5, dict(strides=[2, 2], pads=[2, 1, 1, 2]), None, "Relu"),
    "3x3_dilation2": (1, 8, 50, 52, 112, 3, dict(dilations=[2, 2], pads=[2, 2, 2, 2]), "Relu", None),
    "no_pads_s1": (1, 12, 59, 31, 160, 3, {}, "HardSwish", "HardSwish"),
}


def _activation(kind: str | None, source: str, output: str) -> list[onnx.NodeProto]:
    if kind is None:
        return []
    if kind == "Relu6":
        return [helper.make_node("Clip", [source, "zero", "six"], [output])]
    return [helper.make_node(kind, [source], [output])]


def _model(case: str, expose_intermediate: bool,
           size: tuple[int, int, int] | None = None) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    n, cin, h, w, c, k, attrs, pw_act, dw_act = CASES[case]
    n, h, w = size or (n, h, w)
    feeds = {"x": _randn(n, cin, h, w, seed=1)}
    constants = {"pw_w": _randn(c, cin, 1, 1, seed=2) * np.float32(0.3), "pw_b": _randn(c, seed=3),
                 "dw_w": _randn(c, 1, k, k, seed=4) * np.float32(0.3), "dw_b": _randn(c, seed=5),
                 "zero": np.array(0.0, np.float32), "six": np.array(6.0, np.float32)}
    mid = "mid" if pw_act is not None else "pw"
    nodes = [helper.make_node("Conv", ["x", "pw_w", "pw_b"], ["pw"], kernel_shape=[1, 1])]
    nodes += _activation(pw_act, "pw", "mid")
    dw_out = "dw" if dw_act is not None else "y"
    nodes.append(helper.make_node("Conv", [mid, "dw_w", "dw_b"], [dw_out], kernel_shape=[k, k], group=c,
                                  **attrs))
    nodes += _activation(dw_act, "dw", "y")
    outputs = {"y": TensorProto.FLOAT}
    if expose_intermediate:
        outputs[mid] = TensorProto.FLOAT
    return make_model(nodes, feeds, outputs, constants), feeds


@pytest.mark.parametrize("case", list(CASES))
def test_fused_pair_matches_onnxruntime_and_the_unfused_ops(case: str):
    model, feeds = _model(case, expose_intermediate=False)
    unfused_model, _ = _model(case, expose_intermediate=True)
    expected = run_onnxruntime(model, feeds)["y"]
    data = convert_onnx(model)
    runs = {t: Interpreter(model_content=data, threads=t).run(feeds)["y"] for t in (1, 2, 4)}
    assert_close(case, runs[1], expected)
    unfused = Interpreter(model_content=convert_onnx(unfused_model), threads=1).run(feeds)["y"]
    assert np.array_equal(runs[1], unfused), (
        f"{case}: fused differs from unfused by {float(np.max(np.abs(runs[1] - unfused))):.3g}")
    for threads in (2, 4):
        assert np.array_equal(runs[threads], runs[1]), f"{case}: {threads} threads differ from 1 thread"


def test_fused_pair_gives_the_intermediate_no_memory_and_skips_the_1x1():
    model, feeds = _model("mobilenet_expand_s2", expose_intermediate=False)
    unfused_model, _ = _model("mobilenet_expand_s2", expose_intermediate=True)
    n, _, h, w, c, *_ = CASES["mobilenet_expand_s2"]
    intermediate_bytes = n * h * w * c * 4
    with Interpreter(model_content=convert_onnx(model)) as fused, \
            Interpreter(model_content=convert_onnx(unfused_model)) as unfused:
        for it in (fused, unfused):
            it.set_profiling(True)
            it.run(feeds)
        # the unfused plan holds the intermediate; the fused one never allocates it
        assert unfused.arena_bytes - fused.arena_bytes >= intermediate_bytes
        convs = [row for row in fused.profile() if row["op"] == "CONV_2D"]
        pointwise, depthwise = convs  # in execution order
        assert (pointwise["calls"], depthwise["calls"]) == (0, 1)  # the 1x1 ran inside the depthwise op
        assert pointwise["computed_by"] == depthwise["index"] == depthwise["computed_by"]
        assert all(row["computed_by"] == row["index"] for row in unfused.profile() if row["op"] == "CONV_2D")


def test_bench_profile_names_the_fused_pair(tmp_path):
    from lite_converter.app.bench import BenchConfig, benchmark
    from lite_converter.app.bench_report import profile_text

    model, _ = _model("mobilenet_expand_s2", expose_intermediate=False)
    path = tmp_path / "pair.onnx"
    onnx.save(model, path)
    result = benchmark(BenchConfig(path, runs=2, warmup=0, profile=True))
    fused = [row for row in result.profile if row.includes]
    assert len(fused) == 1 and fused[0].op == "CONV_2D"
    assert " + " in profile_text(result)


def test_resize_re_decides_the_fusion():
    """A smaller input makes the intermediate fit L2: the ops run separately, results still right."""
    model, feeds = _model("s1_pad1_batch2", expose_intermediate=False)
    small_model, small = _model("s1_pad1_batch2", expose_intermediate=False, size=(1, 9, 11))
    for dim, name in zip(model.graph.input[0].type.tensor_type.shape.dim, ("n", None, "h", "w"), strict=True):
        if name is not None:
            dim.dim_param = name  # only dynamic dims may be resized
    data = convert_onnx(model)
    with Interpreter(model_content=data) as it:
        big_out = it.run(feeds)["y"]
        small_out = it.run(small)["y"]
        again = it.run(feeds)["y"]
    assert np.array_equal(big_out, again)
    assert_close("small", small_out, run_onnxruntime(small_model, small)["y"])
