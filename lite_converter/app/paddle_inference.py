"""Paddle inference in this process, for a child process: `lite check`'s (paddle_oracle.py runs
`python -m lite_converter.app.paddle_inference PROGRAM PARAMS IN.npz OUT.npz OPTIMIZED`) and the
Paddle frontend tests' oracle (tests/paddle_oracle.py). It imports nothing of the converter, whose
protobuf classes must not meet Paddle's. CPU, one thread, oneDNN off (PP-OCR det is wrong with it on
here).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

import numpy as np


def paddle_inference(program: str, params: str, feeds: Mapping[str, np.ndarray],
                     optimized: bool) -> dict[str, np.ndarray]:
    """Paddle inference's outputs by name (``optimized``: with Paddle's analysis passes)."""
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
