"""Paddle inference as the oracle of a converted Paddle model, run in a subprocess.

Paddle is imported only in a child process (`python -m lite_converter.app.paddle_inference ...`,
which imports nothing of the converter): its threads, flags and protobuf classes stay out of the
caller, and the converter never needs it. ``optimized`` False runs the program as saved (the
reference), True with Paddle's analysis passes, the two together giving Paddle's own spread (the
rule of onnx_oracle.py).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from lite_converter.app import paddle_inference
from lite_converter.app.onnx_oracle import OracleUnavailable
from lite_converter.frontends.paddle import find_model_files


def paddle_outputs(model: Path, feeds: Mapping[str, np.ndarray], optimized: bool) -> dict[str, np.ndarray]:
    """Paddle inference's outputs by name for ``model`` (a folder or a program file)."""
    if importlib.util.find_spec("paddle") is None:
        raise OracleUnavailable("Paddle (the oracle) is missing: pip install paddlepaddle")
    files = find_model_files(model)
    with tempfile.TemporaryDirectory(prefix="lite-check-paddle-") as work:
        inputs, outputs = Path(work) / "in.npz", Path(work) / "out.npz"
        np.savez(inputs, **dict(feeds))
        command = [sys.executable, "-m", paddle_inference.__name__, str(files.program),
                   str(files.params) if files.params is not None and files.params.is_file() else "",
                   str(inputs), str(outputs), "1" if optimized else "0"]
        result = subprocess.run(command, capture_output=True, text=True, timeout=600)
        if result.returncode != 0:
            last = (result.stderr.strip().splitlines() or ["(no message)"])[-1]
            raise OracleUnavailable(f"Paddle inference cannot run the model: {last}")
        with np.load(outputs, allow_pickle=False) as loaded:
            return {name: loaded[name] for name in loaded.files}
