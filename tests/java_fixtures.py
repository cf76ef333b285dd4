"""Test data for the Java binding's JUnit tests (`make android-test`), written into one folder.

The Java tests compare against values computed here by independent means, never by the Java code:

* small ONNX models built with onnx.helper and converted to .lite (the API tests compute their
  expected values in Java from the inputs: sums, products, comparisons);
* a full-integer .tflite (tests/tflite_int8_net.py: int8 input and outputs with their scales),
  converted, with LiteRT's outputs for one input (the int8 oracle of tests/test_import_int8.py);
* a streaming .tflite with resource variables (tests/test_tflite_streaming.py), converted, with
  LiteRT's outputs at every step of one stream;
* the demo app's assets (android_demo/tools/make_assets.py: the PaddleOCR models converted to fp32
  .lite and compressed to int8 by slim.compress, the dictionary), with onnxruntime's outputs of cls
  and rec for one rendered line and of det for one rendered page;
* pages rendered by the Python demo (lite_converter.app.demo.render_page; some turned by a few degrees,
  some upside down) as PNG files, and what the Python OCR pipeline (tests/ocr_pipeline_reference.py)
  reads on each: boxes, text, score (ocr_expected.tsv).

Usage: python tests/java_fixtures.py OUTPUT_DIR
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from the repository root
    sys.path.insert(0, str(ROOT))

from lite_converter.app import zoo  # noqa: E402
from lite_converter.app.demo import render_line, render_page  # noqa: E402
from lite_converter.convert import convert_onnx  # noqa: E402
from tests import ocr_pipeline_reference as reference  # noqa: E402

PAGE_SIZES = ((480, 600), (360, 500), (520, 640), (400, 400), (600, 450), (300, 700))
PAGES, TILTED_PAGES, UPSIDE_DOWN_PAGES = 14, 4, 4
TILT_DEGREES = (-6.0, -3.0, 3.0, 7.0)
PAGE_SEED, LINE_SEED = 100, 200
DET_PAGE_SIZE = (160, 256)  # det's onnxruntime reference: a small page keeps the ASan run short


def write_raw(path: Path, array: np.ndarray) -> None:
    """Little-endian raw values; the shape and dtype go in the file name's companion .shape file."""
    np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tofile(path)
    path.with_suffix(".shape").write_text(" ".join(str(d) for d in array.shape) + "\n")


def small_models(out: Path) -> None:
    """two_io.lite: a, b float32 [N, 3] -> sum, product.
    int64_ops.lite: x int64 [N] -> tripled (int64), positive (bool)."""
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, ["N", 3])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, ["N", 3])
    graph = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["sum"]), helper.make_node("Mul", ["a", "b"], ["product"])],
        "two_io", [a, b],
        [helper.make_tensor_value_info("sum", TensorProto.FLOAT, ["N", 3]),
         helper.make_tensor_value_info("product", TensorProto.FLOAT, ["N", 3])])
    _convert(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), out / "two_io.lite")

    x = helper.make_tensor_value_info("x", TensorProto.INT64, ["N"])
    three = helper.make_tensor("three", TensorProto.INT64, [], [3])
    zero = helper.make_tensor("zero", TensorProto.INT64, [], [0])
    graph = helper.make_graph(
        [helper.make_node("Mul", ["x", "three"], ["tripled"]),
         helper.make_node("Greater", ["x", "zero"], ["positive"])],
        "int64_ops", [x],
        [helper.make_tensor_value_info("tripled", TensorProto.INT64, ["N"]),
         helper.make_tensor_value_info("positive", TensorProto.BOOL, ["N"])],
        initializer=[three, zero])
    _convert(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), out / "int64_ops.lite")


def _convert(model: onnx.ModelProto, target: Path) -> None:
    source = target.with_suffix(".onnx")
    onnx.save(model, source)
    convert_onnx(source, output_path=target)
    source.unlink()


def int8_net(out: Path) -> None:
    """The full-integer .tflite, converted; LiteRT's outputs on one random int8 input."""
    from ai_edge_litert.interpreter import Interpreter as LiteRT

    from lite_converter.convert import convert_tflite
    from tests.tflite_int8_net import tflite_int8_net

    data = tflite_int8_net(seed=3)
    tflite = out / "int8_net.tflite"
    tflite.write_bytes(data)
    convert_tflite(tflite, output_path=out / "int8_net.lite")
    litert = LiteRT(model_content=data)
    litert.allocate_tensors()
    detail = litert.get_input_details()[0]
    x = np.random.default_rng(5).integers(-128, 128, detail["shape"]).astype(np.int8)
    litert.set_tensor(detail["index"], x)
    litert.invoke()
    write_raw(out / "int8_net_input.bin", x)
    for output in litert.get_output_details():
        write_raw(out / f"int8_net_expected_{output['name']}.bin", litert.get_tensor(output["index"]))
    tflite.unlink()


def streaming_net(out: Path) -> None:
    """streaming.lite (2 variables) and LiteRT's outputs at each step of one stream of frames."""
    from lite_converter.convert import convert_tflite
    from tests.test_tflite_streaming import _frames, _litert_stream, streaming_model

    data = streaming_model()
    tflite = out / "streaming.tflite"
    tflite.write_bytes(data)
    convert_tflite(tflite, output_path=out / "streaming.lite")
    frames = _frames()
    for step, (frame, outputs) in enumerate(zip(frames, _litert_stream(tflite, frames), strict=True)):
        write_raw(out / f"streaming_input_{step}.bin", frame)
        for index, output in enumerate(outputs):
            write_raw(out / f"streaming_expected_{step}_{index}.bin", output)
    tflite.unlink()


def paddleocr_models(out: Path) -> list[str]:
    """The app's assets (fp32 and int8 det / cls / rec, ppocr_keys.txt); onnxruntime's cls and rec
    outputs on one line, det's on one page."""
    import onnxruntime

    sys.path.insert(0, str(ROOT / "android_demo" / "tools"))
    import make_assets

    make_assets.main([str(out)])
    characters = (out / "ppocr_keys.txt").read_text(encoding="utf-8").split("\n")[:-1]
    paths = zoo.fetch_all(["cls", "rec"])
    line, text = render_line(48, 320, np.random.default_rng(LINE_SEED))
    for key, width in (("cls", 192), ("rec", 320)):
        batch = reference.line_input(line, width, width)
        session = onnxruntime.InferenceSession(str(paths[key]), providers=["CPUExecutionProvider"])
        expected = session.run(None, {session.get_inputs()[0].name: batch})[0]
        write_raw(out / f"{key}_input.bin", batch)
        write_raw(out / f"{key}_expected_onnxruntime.bin", expected)
    (out / "rec_line_text.txt").write_text(text + "\n", encoding="utf-8")
    page, _ = render_page(*DET_PAGE_SIZE, np.random.default_rng(PAGE_SEED + 1))
    batch = reference.det_input(page)
    det = onnxruntime.InferenceSession(str(zoo.fetch_all(["det"])["det"]), providers=["CPUExecutionProvider"])
    write_raw(out / "det_input.bin", batch)
    write_raw(out / "det_expected_onnxruntime.bin", det.run(None, {det.get_inputs()[0].name: batch})[0])
    return characters


def ocr_pages(out: Path, characters: list[str]) -> None:
    """Rendered pages and what the Python pipeline reads on each (ocr_expected.tsv)."""
    from PIL import Image

    pipeline = reference.OcrPipeline(str(out / "det.lite"), str(out / "cls.lite"), str(out / "rec.lite"),
                                     characters)
    rows = ["# image\tline\tx0 y0 x1 y1 x2 y2 x3 y3\trotated_180\tscore\ttext (\\t \\n \\\\ escaped)"]
    rng = np.random.default_rng(PAGE_SEED)
    for index in range(PAGES + TILTED_PAGES + UPSIDE_DOWN_PAGES):
        height, width = PAGE_SIZES[index % len(PAGE_SIZES)]
        pixels, _ = render_page(height, width, rng)
        image = Image.fromarray(pixels)
        if PAGES <= index < PAGES + TILTED_PAGES:
            angle = TILT_DEGREES[index - PAGES]
            image = image.rotate(angle, resample=Image.BICUBIC, expand=True, fillcolor="white")
        elif index >= PAGES + TILTED_PAGES:
            image = image.rotate(180)
        name = f"page_{index:02d}.png"
        image.save(out / name)
        found = pipeline(np.asarray(image.convert("RGB")))
        rows.append(f"{name}\t-1\t{len(found)}")
        for number, line in enumerate(found):
            corners = " ".join(f"{x} {y}" for x, y in line.box)
            text = line.text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
            rows.append(f"{name}\t{number}\t{corners}\t{int(line.rotated_180)}\t{line.score!r}\t{text}")
    pipeline.close()
    (out / "ocr_expected.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path)
    args = parser.parse_args(argv)
    args.output.mkdir(parents=True, exist_ok=True)
    print(f"writing the Java tests' fixtures into {args.output}", flush=True)
    small_models(args.output)
    int8_net(args.output)
    streaming_net(args.output)
    characters = paddleocr_models(args.output)
    ocr_pages(args.output, characters)
    return 0


if __name__ == "__main__":
    sys.exit(main())
