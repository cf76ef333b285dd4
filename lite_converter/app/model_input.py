"""Which model a `lite` command was given: a .lite file, or a source model that it converts in memory.

`lite inspect` and `lite run` take an .onnx, .tflite or Paddle model as well as a .lite: the source is
converted in memory (nothing is written) and the command goes on with the .lite bytes. The format is
told by the file's identifier (LITE, TFL3), then by convert.source_format (suffix, protobuf start,
Paddle layout), so a renamed file is still recognised and an unknown one gets a clear error.
"""

from __future__ import annotations

from pathlib import Path

from lite_converter.app.cli_common import UserError
from lite_converter.convert import InputShapes, convert, load_model, source_format
from lite_converter.frontends.paddle import is_paddle_model
from lite_converter.reader import FILE_IDENTIFIER

FORMAT_NAMES = {"onnx": "ONNX", "tflite": "TFLite", "paddle": "Paddle", "lite": ".lite"}


def model_format(path: Path) -> str:
    """"lite", "tflite", "onnx" or "paddle"; ConversionError for a file in no format we read. A .lite
    name is a .lite (a broken one is refused by the reader, which says what is wrong with it). A path
    that is neither a file nor a folder (a FIFO, a device) is refused before anything reads it."""
    if path.exists() and not path.is_dir() and not path.is_file():  # reading a FIFO blocks forever
        raise UserError(f"{path} is not a regular file")
    if path.suffix.lower() == ".lite":
        return "lite"
    if path.is_file():
        with path.open("rb") as file:
            if file.read(8)[4:8] == FILE_IDENTIFIER:
                return "lite"
    return source_format(path)


def lite_bytes(path: Path, input_shapes: InputShapes | None = None) -> tuple[bytes, str]:
    """(.lite bytes, source format) of ``path``: a .lite file read, any other model converted in memory
    (``input_shapes`` fix ONNX / Paddle input dims and a .tflite's dynamic ones there)."""
    kind = model_format(path)
    if not path.is_file() and not is_paddle_model(path):
        raise UserError(f"no such file: {path}")
    if kind == "lite":
        return path.read_bytes(), kind
    return convert(load_model(path, input_shapes or None, frontend=kind)), kind
