"""Coverage-guided fuzzing of the converter's readers with libFuzzer (through atheris): the input
is a model file's bytes; reading and converting it must give a .lite model or ConversionError,
never another exception (a traceback for the user), a hang (-timeout) or a memory blow-up
(-rss_limit_mb / -malloc_limit_mb). ``make fuzz`` runs it; docs/RELIABILITY.md has the figures.

    python -m tests.fuzz.fuzz_readers onnx|tflite|paddle CORPUS_DIR [libFuzzer flags...]
"""

from __future__ import annotations

import os
import shutil
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
from tests.fuzz.corpus_guard import refuse_regression_corpus  # noqa: E402

with atheris.instrument_imports(include=["lite_converter"]):
    from lite_converter.convert import convert_onnx, convert_paddle, convert_tflite
    from lite_converter.ir import ConversionError

_PADDLE_PREFIX = "lite-fuzz-paddle-"
_paddle_dir: Path | None = None


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        pass
    return True


def paddle_directory() -> Path:
    """This process's folder for the program file, named by its pid. libFuzzer ends the process with
    exit() or a signal, so neither atexit nor a finally clause removes it: each run removes the
    folders of processes that are gone instead (a folder per call would halve the executions)."""
    global _paddle_dir
    if _paddle_dir is None:
        root = Path(tempfile.gettempdir())
        for stale in root.glob(_PADDLE_PREFIX + "*"):
            pid = stale.name.removeprefix(_PADDLE_PREFIX)
            if pid.isdigit() and not _process_alive(int(pid)):
                shutil.rmtree(stale, ignore_errors=True)
        _paddle_dir = root / f"{_PADDLE_PREFIX}{os.getpid()}"
        _paddle_dir.mkdir(mode=0o700, exist_ok=True)
    return _paddle_dir


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
    directory = paddle_directory()
    (directory / "inference.pdmodel").write_bytes(data)
    try:
        convert_paddle(directory)
    except ConversionError:
        pass


TARGETS: dict[str, Callable[[bytes], None]] = {"onnx": onnx_target, "tflite": tflite_target,
                                                "paddle": paddle_target}


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in TARGETS:
        sys.exit(f"usage: {sys.argv[0]} {'|'.join(TARGETS)} [CORPUS_DIR] [libFuzzer flags]")
    refuse_regression_corpus(sys.argv[2:])
    target = TARGETS[sys.argv[1]]
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    atheris.Setup([sys.argv[0], *sys.argv[2:]], target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
