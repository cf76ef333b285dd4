"""`lite check --layers` over the corpus: every model's outputs *and every intermediate tensor* against
its reference (onnxruntime for .onnx, LiteRT's builtin kernels for .tflite), on the corpus inputs
(those the corpus pins, silero-vad's sample rate, pinned with --input-value).

The corpus run (run.py) holds each model's outputs to a bound; this holds every tensor that survives
the conversion to its own bound (lite_converter/app/layer_check.py, litert_oracle.py), so a fault
that the outputs hide, or a wrong tensor the outputs never read, shows.

    python -m benchmarks.model_zoo.check_layers [--only KEY,...]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
from pathlib import Path

import numpy as np

from benchmarks.model_zoo.corpus import BY_KEY, CORPUS, ZooEntry
from benchmarks.model_zoo.fetch import fetch
from benchmarks.model_zoo.inputs import make_input
from lite_converter.app.cli import main as lite_main


def input_names(path: Path) -> list[str]:
    """The model's graph inputs, in order (ONNX: initializers listed as inputs left out)."""
    if path.suffix == ".onnx":
        import onnx

        graph = onnx.load(str(path), load_external_data=False).graph
        constants = {tensor.name for tensor in graph.initializer}
        return [value.name for value in graph.input if value.name not in constants]
    from ai_edge_litert import interpreter as litert

    return [detail["name"] for detail in litert.Interpreter(model_path=str(path)).get_input_details()]


def check(entry: ZooEntry, path: Path, workdir: Path) -> tuple[int, list[str]]:
    """`lite check MODEL --layers` on the corpus inputs: (exit status, its output lines)."""
    feeds = [make_input(spec) for spec in entry.inputs]
    pinned = dict(entry.input_values)
    names = input_names(path)
    inputs = workdir / f"{entry.key}.npz"
    fed = {name: feed for name, feed in zip(names, feeds, strict=True) if name not in pinned}
    np.savez(inputs, **fed)
    shapes = [arg for name, feed in fed.items()
              for arg in ("--input-shape", f"{name}={','.join(map(str, feed.shape))}")]
    shapes += [arg for name, value in pinned.items() for arg in ("--input-value", f"{name}={value}")]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        status = lite_main(["check", str(path), "--inputs", str(inputs), "--layers", *shapes])
    return status, out.getvalue().splitlines()


def row(entry: ZooEntry, status: int, lines: list[str]) -> str:
    layers = next((line for line in lines if line.startswith("layers:")), "")
    at = next((i for i, line in enumerate(lines) if ": error: " in line), None)
    if at is not None:  # a refusal lists what it refuses on the lines after "...:"
        error = " ".join(line.strip() for line in lines[at:at + 2]).split(": error: ", 1)[1]
        verdict = "not checked: " + error[:140]
    else:
        verdict = "ok" if status == 0 else "DIFFERS"
    compared = layers.split(" compared")[0].removeprefix("layers: ") if layers else ""
    worst = ""
    if "worst relative error" in layers:
        worst = layers.split("worst relative error ")[1].split(" at ")[0]
    carried = next((line.strip().split(" tensor(s)")[0] for line in lines if "carry their inputs'" in line),
                   "0" if layers else "")
    return f"| {entry.key} | {entry.format} | {compared} | {worst} | {carried} | {verdict} |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="comma-separated corpus keys (default: all)")
    args = parser.parse_args(argv)
    keys = [k for k in args.only.split(",") if k] or [e.key for e in CORPUS]
    unknown = [k for k in keys if k not in BY_KEY]
    if unknown:
        parser.error(f"unknown keys {unknown}")
    paths = fetch(keys, progress=True)
    rows = ["| model | format | tensors compared | worst relative error | over 1e-4, carried | verdict |",
            "| --- | --- | --- | --- | --- | --- |"]
    failed = 0
    with tempfile.TemporaryDirectory() as workdir:
        for key in keys:
            print(f"{key} ...", file=sys.stderr, flush=True)
            status, lines = check(BY_KEY[key], paths[key], Path(workdir))
            failed += status != 0 and not any(": error: " in line for line in lines)
            rows.append(row(BY_KEY[key], status, lines))
    print("\n".join(rows))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
