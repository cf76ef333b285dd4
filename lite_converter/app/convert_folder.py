"""`lite convert DIR/`: every model in a folder, one after the other, then a summary table.

A model that fails is reported (its full message under the table) and the others go on; the exit
status is 1 when any failed. The folder's models are its .onnx and .tflite files (and files with the
TFL3 identifier), and its subfolders that hold a Paddle inference model. Each .lite goes beside its
model, or into ``-o DIR``; two models with one stem (a.onnx, a.tflite) get a.onnx.lite and a.tflite.lite.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path

from lite_converter.app.inspect_format import human_bytes, table_lines
from lite_converter.frontends.paddle import is_paddle_model
from lite_converter.frontends.tflite_frontend import TFLITE_IDENTIFIER
from lite_converter.reader import read_model

MODEL_SUFFIXES = (".onnx", ".tflite")
# (source, output) -> (.lite bytes, format name, source bytes); raises on failure.
ConvertOne = Callable[[Path, Path], tuple[bytes, str, int]]


@dataclasses.dataclass
class FolderResult:
    """One model's line of the summary."""

    source: Path
    output: Path
    kind: str = "?"
    seconds: float = 0.0
    ops: int | None = None
    sizes: tuple[int, int] | None = None
    error: str | None = None


def folder_models(directory: Path) -> list[Path]:
    """The models of ``directory`` (not recursive), sorted by name."""
    models = []
    for entry in sorted(directory.iterdir()):
        if entry.is_dir():
            if is_paddle_model(entry):
                models.append(entry)
        elif entry.suffix.lower() in MODEL_SUFFIXES or _has_tflite_identifier(entry):
            models.append(entry)
    return models


def _has_tflite_identifier(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            return file.read(8)[4:8] == TFLITE_IDENTIFIER
    except OSError:
        return False


def output_paths(models: list[Path], output_dir: Path | None) -> list[Path]:
    """Where each model's .lite goes (see the module docstring)."""
    stems = [m.name if m.is_dir() else m.stem for m in models]
    result = []
    for model, stem in zip(models, stems, strict=True):
        name = f"{model.name}.lite" if stems.count(stem) > 1 else f"{stem}.lite"
        if model.is_dir():
            result.append((output_dir / name) if output_dir else model / "inference.lite")
        else:
            result.append((output_dir or model.parent) / name)
    return result


def convert_folder(directory: Path, output_dir: Path | None, convert_one: ConvertOne,
                   errors: tuple[type[BaseException], ...]) -> int:
    """Converts every model of ``directory``, prints progress and the summary; the exit status.
    ``errors``: the exceptions that are a user-facing refusal (others print as internal errors)."""
    models = folder_models(directory)
    if not models:
        print(f"no .onnx, .tflite or Paddle models in {directory}")
        return 1
    if output_dir is not None:
        output_dir.mkdir(parents=True, exist_ok=True)
    results = []
    for index, (model, output) in enumerate(zip(models, output_paths(models, output_dir), strict=True)):
        result = FolderResult(model, output)
        start = time.perf_counter()
        try:
            data, result.kind, source_bytes = convert_one(model, output)
            result.ops = len(read_model(data).operators)
            result.sizes = (source_bytes, len(data))
        except errors as error:
            result.error = str(error)
        except Exception as error:  # noqa: BLE001 - a bug of ours must not stop the other models
            result.error = f"internal error: {type(error).__name__}: {error}"
        result.seconds = time.perf_counter() - start
        results.append(result)
        state = "ok" if result.error is None else "FAILED"
        print(f"[{index + 1}/{len(models)}] {model.name}: {state} ({result.seconds:.1f} s)", flush=True)
    print(summary_text(directory, results))
    return 1 if any(r.error is not None for r in results) else 0


def summary_text(directory: Path, results: list[FolderResult]) -> str:
    rows = [["model", "format", "result", "ops", "size", "time", "output"]]
    for r in results:
        size = f"{human_bytes(r.sizes[0])} -> {human_bytes(r.sizes[1])}" if r.sizes else "-"
        rows.append([r.source.name, r.kind, "ok" if r.error is None else "FAILED",
                     "-" if r.ops is None else str(r.ops), size, f"{r.seconds:.1f} s",
                     str(r.output) if r.error is None else "-"])
    failed = [r for r in results if r.error is not None]
    lines = table_lines(rows, indent="")
    lines.append(f"converted {len(results) - len(failed)} of {len(results)} models in {directory}"
                 + (f"; {len(failed)} failed:" if failed else ""))
    for r in failed:
        message = "\n    ".join(r.error.splitlines()) if r.error else ""
        lines.append(f"  {r.source.name}: {message}")
    return "\n".join(lines)
