"""Coverage-guided fuzzing of the converter's readers with libFuzzer (through atheris): the input
is a model file's bytes; reading and converting it must give a .lite model or ConversionError,
never another exception (a traceback for the user), a hang (-timeout) or a memory blow-up
(-rss_limit_mb / -malloc_limit_mb). ``make fuzz`` runs it; docs/RELIABILITY.md has the figures.

    python -m tests.fuzz.fuzz_readers onnx|tflite|paddle CORPUS_DIR [libFuzzer flags...]
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import atheris
import onnx
from google.protobuf.message import DecodeError

# An editable install imports lite_converter through its own finder, which atheris cannot
# instrument (no coverage: libFuzzer then finds nothing): import it from the source tree instead.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in type(f).__module__.lower()
                    and "scikit" not in type(f).__module__.lower()]
with atheris.instrument_imports(include=["lite_converter"]):
    from lite_converter.convert import convert_onnx, convert_paddle, convert_tflite
    from lite_converter.ir import ConversionError

_PADDLE_DIR = Path(tempfile.mkdtemp(prefix="lite-fuzz-paddle-"))


def onnx_target(data: bytes) -> None:
    """A ModelProto parsed from the bytes (protobuf's own refusals are not ours), then converted."""
    try:
        proto = onnx.ModelProto.FromString(data)
    except (DecodeError, RuntimeError, ValueError):
        return
    try:
        convert_onnx(proto)
    except ConversionError:
        pass


def tflite_target(data: bytes) -> None:
    try:
        convert_tflite(data)
    except ConversionError:
        pass


def paddle_target(data: bytes) -> None:
    """The bytes as a ProgramDesc (inference.pdmodel) of a model without parameters."""
    program = _PADDLE_DIR / "inference.pdmodel"
    program.write_bytes(data)
    try:
        convert_paddle(_PADDLE_DIR)
    except ConversionError:
        pass


TARGETS: dict[str, Callable[[bytes], None]] = {"onnx": onnx_target, "tflite": tflite_target,
                                                "paddle": paddle_target}


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in TARGETS:
        sys.exit(f"usage: {sys.argv[0]} {'|'.join(TARGETS)} [CORPUS_DIR] [libFuzzer flags]")
    target = TARGETS[sys.argv[1]]
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    atheris.Setup([sys.argv[0], *sys.argv[2:]], target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
