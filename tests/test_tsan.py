"""ThreadSanitizer over the runtime's thread contract (issue 19): several interpreters on one shared
model, each with 2 worker threads, invoked at the same time (runtime_arm/tests/concurrent_interpreters.cc
built by ``make tsan``). Any data race is a TSan report (halt_on_error: the exit status says it);
every interpreter's outputs must equal one single-threaded reference run byte for byte."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import onnx
import pytest

from tests.test_int8_kernels import INPUT_SHAPE, fast_path_net


def _models(small_conv_onnx: onnx.ModelProto) -> dict[str, bytes]:
    import numpy as np

    import slim
    from lite_converter.convert import convert_onnx

    rng = np.random.default_rng(3)
    data = [rng.standard_normal(INPUT_SHAPE).astype(np.float32) for _ in range(2)]
    int8 = slim.compress(fast_path_net(with_head=False), None, data, slim.QuantConfig(progress=False))
    return {"fp32_conv": convert_onnx(small_conv_onnx), "int8_fast_paths": int8.lite_bytes}


@pytest.mark.parametrize("interpreters", [3])
def test_shared_model_concurrent_interpreters_have_no_races(tmp_path: Path, tsan_build: Path,
                                                             small_conv_onnx: onnx.ModelProto,
                                                             interpreters: int) -> None:
    driver = tsan_build / "runtime_arm" / "concurrent_interpreters"
    env = dict(os.environ, TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1")
    for name, data in _models(small_conv_onnx).items():
        path = tmp_path / f"{name}.lite"
        path.write_bytes(data)
        command = [str(driver), str(path), "--interpreters", str(interpreters), "--threads", "2",
                   "--rounds", "3", "--dynamic-dim", "29"]
        result = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env, check=False)
        assert "ThreadSanitizer" not in result.stderr, result.stderr[-6000:]
        assert result.returncode == 0, (name, result.stdout, result.stderr[-4000:])
        lines = result.stdout.splitlines()
        expected = [f"interpreter {i}: 0 of 3 rounds differ from the reference" for i in range(interpreters)]
        assert lines == expected
