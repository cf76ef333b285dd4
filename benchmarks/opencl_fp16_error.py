"""Where fp16 storage's error comes from on PP-OCRv4 det / rec (docs/OPENCL.md, Precision).

On a rendered page (det, 160x256) or text line (rec, 48x320), against onnxruntime (fp32):

1. the model's own sensitivity: onnxruntime with nothing changed but its input rounded to half (the
   smallest perturbation half storage can make), and with relative noise of 1e-4 .. 1e-3 on it;
2. the OpenCL backend at fp32 and fp16: every activation that survives conversion is made a graph
   output, and its error is printed op by op (max |diff| / max(1, max|ref|), and RMS / RMS).

    .venv/bin/python benchmarks/opencl_fp16_error.py --model det [--implementation pocl]

``--implementation`` takes the names of tests/opencl_env.py (intel needs LD_LIBRARY_PATH=.venv/lib).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.opencl_env import implementation_env  # noqa: E402


def _image(model: str) -> np.ndarray:
    from tests import ocr_render

    rng = np.random.default_rng(7)  # the inputs of tests/test_opencl_backend.py's PP-OCRv4 cases
    if model == "rec":
        line, _ = ocr_render.render_line(rng)
        return ocr_render.rec_input([line])
    page, _ = ocr_render.render_page(rng, 160, 256)
    return ocr_render.det_input(page)


def _error(actual: np.ndarray, expected: np.ndarray) -> float:
    return float(np.abs(actual.astype(np.float64) - expected).max() / max(1.0, float(np.abs(expected).max())))


def sensitivity(session: object, name: str, image: np.ndarray) -> None:
    """Part 1: how far the fp32 model moves when only its input is perturbed."""
    reference = session.run(None, {name: image})[0]
    rounded = image.astype(np.float16).astype(np.float32)
    moved = _error(session.run(None, {name: rounded})[0], reference)
    print(f"onnxruntime fp32, input rounded to half: output error {moved:.4f}")
    rng = np.random.default_rng(1)
    for relative in (1e-4, 3e-4, 1e-3):
        noisy = image * (1 + relative * rng.standard_normal(image.shape)).astype(np.float32)
        print(f"onnxruntime fp32, input x (1 + {relative:g} N(0,1)): output error "
              f"{_error(session.run(None, {name: noisy})[0], reference):.4f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="det", choices=["det", "rec"])
    parser.add_argument("--implementation", default="pocl")
    args = parser.parse_args()
    os.environ.update(implementation_env(args.implementation))

    import onnx
    import onnxruntime

    from lite_converter.app import zoo
    from lite_converter.convert import convert_onnx
    from runtime_arm import Interpreter

    path = zoo.fetch(args.model)
    image = _image(args.model)
    model = onnx.load(str(path))
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    name, output = session.get_inputs()[0].name, session.get_outputs()[0].name
    sensitivity(session, name, image)

    content = convert_onnx(model)
    cpu = Interpreter(model_content=content, backend="cpu")
    cpu.run({name: image})
    activations = [d["name"] for d in cpu.tensor_details() if d["storage"] != "constant"]
    producers = {o: node for node in model.graph.node for o in node.output}
    traced = [a for a in activations if a in producers and a != output]
    for a in traced:
        model.graph.output.append(onnx.helper.make_empty_tensor_value_info(a))
    probe = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    reference = dict(zip([o.name for o in probe.get_outputs()], probe.run(None, {name: image}), strict=True))
    traced_content = convert_onnx(model)
    ours = {}
    for precision in ("fp32", "fp16"):
        interpreter = Interpreter(model_content=traced_content, backend="opencl", precision=precision)
        ours[precision] = interpreter.run({name: image})
    print(f"\n{args.model} on {interpreter.backend_info[:90]}")
    print(f"{'tensor':34} {'op':18} {'max|ref|':>9} {'fp32 err':>9} {'fp16 err':>9} {'fp16 rms/rms':>12}")
    for a in [*traced, output]:
        expected = reference[a].astype(np.float64)
        rms = np.sqrt(np.mean((ours["fp16"][a] - expected) ** 2)) / max(1e-30, np.sqrt(np.mean(expected**2)))
        errors = f"{_error(ours['fp32'][a], expected):9.2g} {_error(ours['fp16'][a], expected):9.2g}"
        print(f"{a[-34:]:34} {producers[a].op_type:18} {np.abs(expected).max():9.3g} {errors} {rms:12.2g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
