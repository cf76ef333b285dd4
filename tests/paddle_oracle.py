"""Paddle itself, as the oracle of the Paddle frontend tests: run in a subprocess with paddlepaddle.

The converter must never need Paddle, and importing it into the pytest process would mix its
threads, flags and protobuf classes into every other test, so the tests call this module as a
script instead, once per batch of work:

    python -m tests.paddle_oracle infer JOBS.json    run Paddle inference for each job
    python -m tests.paddle_oracle export FORMAT DIR  export every case of tests/paddle_op_cases.py
                                                     (FORMAT: legacy or pir) and run each once

A job is {"model": dir, "inputs": npz, "output": npz, "optimized": bool}. Inference runs on the
CPU, one thread, oneDNN off (PP-OCR det is wrong with it on here); ``optimized`` False turns
Paddle's analysis passes off (the program as saved), True leaves them on, so the two together give
Paddle's own spread.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from pathlib import Path

import numpy as np

from lite_converter.app.paddle_inference import paddle_inference


def paddle_available() -> bool:
    """True when paddlepaddle is installed in this Python (checked without importing it)."""
    import importlib.util

    return importlib.util.find_spec("paddle") is not None


def program_file(model_dir: Path) -> Path:
    json_file = model_dir / "inference.json"
    return json_file if json_file.is_file() else model_dir / "inference.pdmodel"


def run_inference(
    model_dir: Path, inputs: dict[str, np.ndarray], optimized: bool = False
) -> dict[str, np.ndarray]:
    """Paddle inference's outputs, by output name (lite_converter/app/paddle_inference.py, which
    `lite check` runs too)."""
    params = model_dir / "inference.pdiparams"
    return paddle_inference(str(program_file(model_dir)), str(params) if params.is_file() else "", inputs,
                            optimized)


def _infer(jobs_path: str) -> None:
    for job in json.loads(Path(jobs_path).read_text()):
        inputs = dict(np.load(job["inputs"]))
        outputs = run_inference(Path(job["model"]), inputs, bool(job.get("optimized", False)))
        np.savez(job["output"], **outputs)


def _export(fmt: str, directory: str) -> None:
    import paddle

    from tests.paddle_op_cases import CASES, QUANT_CASES

    paddle.set_device("cpu")
    root = Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    report = {}
    for case in CASES + QUANT_CASES:
        target = root / case.name
        try:
            if not case.exports(fmt):
                report[case.name] = "not exportable"
                continue
            inputs = case.inputs()
            case.export(fmt, target / "inference")
            np.savez(target / "inputs.npz", **inputs)
        except Exception:  # noqa: BLE001 - the test of that case reports it
            report[case.name] = "export failed:\n" + traceback.format_exc(limit=3)
            continue
        try:
            np.savez(target / "reference.npz", **run_inference(target, inputs))
            report[case.name] = "ok"
        except Exception:  # noqa: BLE001 - the test of that case reports it
            report[case.name] = "exported, but Paddle inference failed:\n" + traceback.format_exc(limit=3)
    (root / "report.json").write_text(json.dumps(report, indent=1))


def main(argv: list[str]) -> int:
    if argv[:1] == ["infer"] and len(argv) == 2:
        _infer(argv[1])
    elif argv[:1] == ["export"] and len(argv) == 3 and argv[1] in ("legacy", "pir"):
        _export(argv[1], argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "export" and sys.argv[2] == "legacy":
        os.environ["FLAGS_enable_pir_api"] = "0"  # before paddle is imported: ProgramDesc export
    sys.exit(main(sys.argv[1:]))
