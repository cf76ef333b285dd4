"""Paddle inference as the oracle of a converted Paddle model, run in a subprocess.

Paddle is imported only in a child process (`python -m lite_converter.app.paddle_oracle PROGRAM
PARAMS IN.npz OUT.npz OPTIMIZED`): its threads, flags and protobuf classes stay out of the caller,
and the converter never needs it. CPU, one thread, oneDNN off; ``optimized`` False runs the program
as saved (the reference), True with Paddle's analysis passes, the two together giving Paddle's own
spread (the rule of onnx_oracle.py).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

import numpy as np


def paddle_outputs(model: Path, feeds: Mapping[str, np.ndarray], optimized: bool) -> dict[str, np.ndarray]:
    """Paddle inference's outputs by name for ``model`` (a folder or a program file)."""
    # Imported here: the child processes import this module next to paddle, whose protobuf classes
    # must not meet the converter's.
    from lite_converter.app.onnx_oracle import OracleUnavailable
    from lite_converter.frontends.paddle import find_model_files

    if importlib.util.find_spec("paddle") is None:
        raise OracleUnavailable("Paddle (the oracle) is missing: pip install paddlepaddle")
    files = find_model_files(model)
    with tempfile.TemporaryDirectory(prefix="lite-check-paddle-") as work:
        inputs, outputs = Path(work) / "in.npz", Path(work) / "out.npz"
        np.savez(inputs, **dict(feeds))
        command = [sys.executable, "-m", __name__, str(files.program),
                   str(files.params) if files.params is not None and files.params.is_file() else "",
                   str(inputs), str(outputs), "1" if optimized else "0"]
        result = subprocess.run(command, capture_output=True, text=True, timeout=600)
        if result.returncode != 0:
            last = (result.stderr.strip().splitlines() or ["(no message)"])[-1]
            raise OracleUnavailable(f"Paddle inference cannot run the model: {last}")
        with np.load(outputs, allow_pickle=False) as loaded:
            return {name: loaded[name] for name in loaded.files}


def paddle_inference(program: str, params: str, feeds: Mapping[str, np.ndarray],
                     optimized: bool) -> dict[str, np.ndarray]:
    """Paddle inference's outputs by name, in this process (it imports paddle: call it from a child
    process, as paddle_outputs and tests/paddle_oracle.py do)."""
    import paddle.inference as paddle_infer

    config = paddle_infer.Config(program, params)
    config.disable_gpu()
    config.disable_mkldnn()
    config.switch_ir_optim(optimized)
    config.set_cpu_math_library_num_threads(1)
    config.disable_glog_info()
    predictor = paddle_infer.create_predictor(config)
    for name in predictor.get_input_names():
        predictor.get_input_handle(name).copy_from_cpu(np.ascontiguousarray(feeds[name]))
    predictor.run()
    return {name: predictor.get_output_handle(name).copy_to_cpu() for name in predictor.get_output_names()}


def _run(program: str, params: str, inputs: str, outputs: str, optimized: str) -> None:
    with np.load(inputs, allow_pickle=False) as loaded:
        feeds = {name: loaded[name] for name in loaded.files}
    np.savez(outputs, **paddle_inference(program, params, feeds, optimized == "1"))


if __name__ == "__main__":
    _run(*sys.argv[1:6])
