"""One convolution layer, ours against onnxruntime, 1 thread, interleaved: is a kernel at peak?

A corpus model's per-op profile names the slow layer; this builds that layer alone as an ONNX model
(random weights, bias, optional HardSwish) and times it on both sides, one call each in turn, so a
shared machine's load hits both alike. Ours is the CONV_2D op's own time from the per-op profile;
onnxruntime's is its whole ``run`` call (it has no cheaper per-op clock), so the reference side
includes its call overhead (a few µs). Minima are the figures to compare on a loaded host.

    .venv/bin/python -m benchmarks.conv_layer_speed 7,7,512,512,5,5,1,1,2,2,512 56,56,32,64,1,1,1,1,0,0,1,hs

Each layer is H,W,CI,CO,KH,KW,SH,SW,PH,PW[,GROUP][,hs]; LITE_CPU_FEATURES_MASK=1 forces our AVX2 kernels.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

from lite_converter.convert import convert
from runtime_arm import Interpreter


def conv_model(spec: str) -> tuple[onnx.ModelProto, list[int], bool]:
    """The layer of a spec string as an ONNX model, its integer fields and whether HardSwish follows."""
    parts = spec.split(",")
    hard_swish = parts[-1] == "hs"
    v = [int(p) for p in parts if p != "hs"]
    h, w, ci, co, kh, kw, sh, sw, ph, pw = v[:10]
    group = v[10] if len(v) > 10 else 1
    rng = np.random.default_rng(0)
    weight = (rng.standard_normal((co, ci // group, kh, kw)) * 0.1).astype(np.float32)
    bias = rng.standard_normal(co).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "W", "B"], ["c"], kernel_shape=[kh, kw], strides=[sh, sw],
                              pads=[ph, pw, ph, pw], group=group)]
    nodes.append(helper.make_node("HardSwish" if hard_swish else "Identity", ["c"], ["y"]))
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, ci, h, w])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph(nodes, "layer", [x], [y],
                              [numpy_helper.from_array(weight, "W"), numpy_helper.from_array(bias, "B")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), v, hard_swish


def conv_seconds(interpreter: Interpreter) -> float:
    """Total CONV_2D time in the interpreter's profile so far."""
    return sum(row["seconds"] for row in interpreter.profile() if row["op"] == "CONV_2D")


def bench(spec: str, iterations: int) -> str:
    """One result line: our conv's and onnxruntime's minimum and median, and the largest difference."""
    model, v, _ = conv_model(spec)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "layer.onnx"
        onnx.save(model, path)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        interpreter = Interpreter(model_content=convert(path), threads=1)
    x = np.random.default_rng(1).standard_normal((1, v[2], v[0], v[1])).astype(np.float32)
    interpreter.set_profiling(True)
    ours, ref = [], []
    for _ in range(iterations):
        before = conv_seconds(interpreter)
        interpreter.run([x])
        ours.append(conv_seconds(interpreter) - before)
        start = time.perf_counter()
        session.run(None, {"x": x})
        ref.append(time.perf_counter() - start)
    error = float(np.abs(next(iter(interpreter.run([x]).values())) - session.run(None, {"x": x})[0]).max())
    h, w, ci, co, kh, kw, sh, sw, ph, pw = v[:10]
    group = v[10] if len(v) > 10 else 1
    macs = ((h + 2 * ph - kh) // sh + 1) * ((w + 2 * pw - kw) // sw + 1) * co * kh * kw * (ci // group)
    return (f"{spec:34s} ours conv min {min(ours) * 1e6:8.1f} us ({macs / min(ours) / 1e9:5.1f} GMAC/s) "
            f"median {statistics.median(ours) * 1e6:8.1f} | onnxruntime call min {min(ref) * 1e6:8.1f} "
            f"median {statistics.median(ref) * 1e6:8.1f} | max error {error:.1e}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("layers", nargs="+", help="H,W,CI,CO,KH,KW,SH,SW,PH,PW[,GROUP][,hs]")
    parser.add_argument("--iterations", type=int, default=300)
    args = parser.parse_args(argv)
    for spec in args.layers:
        print(bench(spec, args.iterations), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
