"""Untrusted models and callers' mistakes in the runtime (issue 19): the memory bound, allocation
failure as a status under a phone-like address-space limit, and blame on the right party.

The hostile corpus is rebuilt here, as a hostile user would make it: a valid one- or two-op ONNX
model converted, then one constant overwritten in the .lite bytes. ``tiny_2gib_tensor`` is a
≤ 1 KB file whose TILE output is 2 GiB (the audit's 448-byte model, which committed 4.0 GiB);
``tiny_big_arena`` keeps three 768 MiB activations alive (the 816-byte one, 11.2 GiB). The int8
CONV_2D with ``pad_left = 2^30 + 1`` used to abort the process with std::bad_alloc under a 3 GB
address-space limit.
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from runtime_arm import DEFAULT_MAX_MEMORY_BYTES, Interpreter, LiteError, Status
from tests.test_fuzz_models import Targets, every_option_field_written, mutate
from tests.test_hostile_models import set_constant, set_option

F32 = TensorProto.FLOAT
REPEATS = np.array([3, 5], np.int64)  # the converted model's TILE repeats, overwritten below
ULIMIT_V_KIB = 3_000_000  # `ulimit -v 3000000`: a phone-like address space


def tile_chain(outputs: int) -> onnx.ModelProto:
    """x [a, b] -> Tile(repeats) -> y0 -> Neg -> y1 -> Neg ... with every y a graph output (so all
    stay alive: the arena holds them side by side). Dynamic dims: no declared size gives it away."""
    nodes = [helper.make_node("Tile", ["x", "repeats"], ["y0"], name="tile")]
    nodes += [helper.make_node("Neg", [f"y{i - 1}"], [f"y{i}"], name=f"neg{i}") for i in range(1, outputs)]
    graph = helper.make_graph(
        nodes, "tiny", [helper.make_tensor_value_info("x", F32, ["a", "b"])],
        [helper.make_tensor_value_info(f"y{i}", F32, None) for i in range(outputs)],
        [numpy_helper.from_array(REPEATS, "repeats")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8)


def tiled(outputs: int, repeats: list[int]) -> bytes:
    from lite_converter.convert import convert_onnx

    data = bytearray(convert_onnx(tile_chain(outputs)))
    set_constant(data, REPEATS, repeats)
    return bytes(data)


def tiny_2gib_tensor() -> bytes:
    return tiled(2, [2**14, 2**15])  # [1, 1] -> [16384, 32768] float32: 2 GiB, then a second one


def tiny_big_arena() -> bytes:
    return tiled(3, [12288, 16384])  # three live [12288, 16384] float32 tensors of 768 MiB each


def int8_conv_huge_pad() -> bytes:
    """slim's int8 CONV_2D with pad_left = 2^30 + 1 (every option field written so it can be set)."""
    import slim

    rng = np.random.default_rng(0)
    w = (rng.standard_normal((16, 8, 3, 3)) * 0.3).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1], name="conv")], "conv",
        [helper.make_tensor_value_info("x", F32, [1, 8, 16, 16])],
        [helper.make_tensor_value_info("y", F32, None)], [numpy_helper.from_array(w, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    data = [rng.standard_normal((1, 8, 16, 16)).astype(np.float32) for _ in range(2)]
    with every_option_field_written():
        lite = bytearray(slim.compress(model, None, data, slim.QuantConfig(progress=False)).lite_bytes)
    set_option(lite, "CONV_2D", "PadLeft", 2**30 + 1)
    return bytes(lite)


def hostile_corpus() -> dict[str, bytes]:
    return {"tiny_2gib_tensor": tiny_2gib_tensor(), "tiny_big_arena": tiny_big_arena(),
            "int8_conv_huge_pad": int8_conv_huge_pad()}


# -- the memory bound ------------------------------------------------------------------------------
def test_default_bound_refuses_a_tiny_model_asking_for_gigabytes_by_tensor_name() -> None:
    data = tiny_2gib_tensor()
    assert len(data) <= 1024, len(data)
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB
    with Interpreter(model_content=data) as interpreter:
        interpreter.resize_input("x", [1, 1])
        with pytest.raises(LiteError) as raised:
            interpreter.allocate_tensors()
        assert interpreter.arena_bytes == 0
    # Refused before anything was allocated or touched: the process's peak RSS did not grow by the
    # 2 GiB asked for (nor by a tenth of it).
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before < 200 * 1024
    error = raised.value
    assert error.code == Status.OUT_OF_MEMORY
    tensor = "TILE 'tile': output tensor 'y0' of shape [16384, 32768] FLOAT32"
    assert f"{tensor} needs 2147483648 bytes" in error.message
    assert f"over max_memory_bytes ({DEFAULT_MAX_MEMORY_BYTES})" in error.message


def test_default_bound_refuses_an_arena_of_live_tensors_naming_the_largest() -> None:
    data = tiny_big_arena()
    assert len(data) <= 1024, len(data)
    with Interpreter(model_content=data) as interpreter:
        interpreter.resize_input("x", [1, 1])
        with pytest.raises(LiteError) as raised:
            interpreter.allocate_tensors()
        needed = interpreter.memory_bytes
    assert raised.value.code == Status.OUT_OF_MEMORY
    assert "largest tensor 'y0' of shape [12288, 16384] FLOAT32, 805306368 bytes" in raised.value.message
    assert needed >= 3 * 805306368  # the whole plan, reported though refused


def test_a_plan_within_the_bound_runs_and_one_over_it_is_refused() -> None:
    data = tiled(3, [256, 512])  # three live [256, 1024] float32 tensors: 3 MiB of arena
    x = np.arange(2, dtype=np.float32).reshape(1, 2) + 1
    with Interpreter(model_content=data, max_memory_bytes=2 << 20) as interpreter:
        with pytest.raises(LiteError, match="over max_memory_bytes") as raised:
            interpreter.run({"x": x})
        assert raised.value.code == Status.OUT_OF_MEMORY
    with Interpreter(model_content=data, max_memory_bytes=8 << 20) as interpreter:
        out = interpreter.run({"x": x})
        assert 3 * 256 * 1024 * 4 <= interpreter.memory_bytes <= 8 << 20
    expected = np.tile(x, (256, 512))  # numpy is the oracle of TILE and Neg
    np.testing.assert_array_equal(out["y0"], expected)
    np.testing.assert_array_equal(out["y2"], expected)  # Neg twice


def test_max_memory_bytes_arguments_are_checked() -> None:
    data = tiled(1, [2, 2])
    for bad in (0, -1, 2**64, 1.5, "1G"):
        with pytest.raises(LiteError) as raised:
            Interpreter(model_content=data, max_memory_bytes=bad)  # type: ignore[arg-type]
        assert raised.value.code == Status.INVALID_ARGUMENT and "max_memory_bytes" in raised.value.message


def _corpus_runner_script() -> str:
    """Runs under `ulimit -v`: every file with the default bound, then with no bound at all (so the
    system's refusal, not ours, must come back as a status). Prints one JSON line per run."""
    return textwrap.dedent("""
        import json, sys
        from runtime_arm import Interpreter, LiteError
        import numpy as np
        for path in sys.argv[1:]:
            data = open(path, "rb").read()
            for bound in (None, 2**64 - 1):
                result = {"file": path, "bound": bound}
                try:
                    kwargs = {} if bound is None else {"max_memory_bytes": bound}
                    with Interpreter(model_content=data, **kwargs) as it:
                        for i, name in enumerate(it.input_names):
                            shape = it.get_input_details()[i]["shape"]
                            if (shape < 0).any():
                                it.resize_input(name, [1 if d < 0 else int(d) for d in shape])
                        it.allocate_tensors()
                        it.invoke()
                        result["status"] = "OK"
                except LiteError as error:
                    result["status"] = error.code.name
                    result["message"] = error.message
                print(json.dumps(result), flush=True)
    """)


def _run_limited(files: list[Path], tmp_path: Path) -> list[dict[str, object]]:
    script = tmp_path / "run_corpus.py"
    script.write_text(_corpus_runner_script())

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (ULIMIT_V_KIB * 1024, ULIMIT_V_KIB * 1024))

    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONPATH=str(Path.cwd()))
    result = subprocess.run([sys.executable, str(script), *map(str, files)], capture_output=True, text=True,
                            timeout=600, preexec_fn=limit, env=env, check=False)
    assert result.returncode == 0, f"exit {result.returncode} (signal = abort):\n{result.stderr[-4000:]}"
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == 2 * len(files), result.stderr[-4000:]
    return lines


def test_hostile_corpus_never_aborts_under_a_3gb_address_space(tmp_path: Path) -> None:
    """The audit's models, and every hostile-value case of tests/test_hostile_models.py."""
    from tests.test_hostile_models import CASES

    files = []
    for name, data in hostile_corpus().items():
        files.append(tmp_path / f"{name}.lite")
        files[-1].write_bytes(data)
    for case in CASES:
        files.append(tmp_path / f"case_{case.name}.lite")
        files[-1].write_bytes(bytes(case.build()))
    outcomes = _run_limited(files, tmp_path)
    assert not [r for r in outcomes if r["status"] == "INTERNAL"], outcomes
    results = {(Path(str(r["file"])).stem, r["bound"]): r for r in outcomes}
    for name in ("tiny_2gib_tensor", "tiny_big_arena"):
        assert results[(name, None)]["status"] == "OUT_OF_MEMORY", results[(name, None)]
        assert "over max_memory_bytes" in str(results[(name, None)]["message"])
        # No bound: the 3 GB limit makes the system refuse; still a status, never an abort.
        assert results[(name, 2**64 - 1)]["status"] in ("OUT_OF_MEMORY", "OK"), results[(name, 2**64 - 1)]
    for bound in (None, 2**64 - 1):
        pad = results[("int8_conv_huge_pad", bound)]
        assert pad["status"] == "SHAPE_ERROR" and "exceeds 2^31 elements" in str(pad["message"]), pad


def test_mutants_never_abort_under_a_3gb_address_space(tmp_path: Path,
                                                        small_conv_onnx: onnx.ModelProto) -> None:
    from lite_converter.convert import convert_onnx
    from tests.test_fuzz_models import shape_ops_net

    files = []
    with every_option_field_written():
        seeds = {"conv": convert_onnx(small_conv_onnx), "ops": convert_onnx(shape_ops_net()),
                 "tile": tiled(3, [4, 4])}
    for name, seed in seeds.items():
        targets, rng = Targets(seed), random.Random(f"ulimit-{name}")
        for i in range(60):
            mutant, how = mutate(seed, targets, rng, structure_only=False)
            files.append(tmp_path / f"{name}_{i:03d}_{how}.lite")
            files[-1].write_bytes(mutant)
    outcomes = [r["status"] for r in _run_limited(files, tmp_path)]
    assert len(outcomes) == 2 * len(files)
    assert "INTERNAL" not in outcomes


# -- blame: the caller's mistakes are INVALID_ARGUMENT, named ------------------------------------
def test_resize_input_checks_rank_and_static_dims(small_conv_lite: bytes) -> None:
    with Interpreter(model_content=small_conv_lite) as interpreter:
        with pytest.raises(LiteError) as raised:
            interpreter.resize_input("x", [1, 3, 8])
        assert raised.value.code == Status.INVALID_ARGUMENT
        assert raised.value.message == "input 'x' has rank 4 in the model, got 3 (shape [1, 3, 8])"
        with pytest.raises(LiteError) as raised:
            interpreter.resize_input("x", [1, 5, 8, 8])
        assert raised.value.code == Status.INVALID_ARGUMENT
        assert "input 'x' has the static dim 1 = 3 in the model, got 5" in raised.value.message
        interpreter.resize_input("x", [1, 3, 8, 9])  # the dynamic dims take any size
        interpreter.allocate_tensors()


def test_run_with_a_wrong_rank_blames_the_caller(small_conv_lite: bytes) -> None:
    with Interpreter(model_content=small_conv_lite) as interpreter, pytest.raises(LiteError) as raised:
        interpreter.run({"x": np.zeros((3, 8, 8), np.float32)})
    assert raised.value.code == Status.INVALID_ARGUMENT
    assert "has rank 4 in the model, got 3" in raised.value.message


def test_out_of_range_integers_are_refused_not_wrapped(small_conv_lite: bytes) -> None:
    for threads in (2**32 + 2, -(2**31) - 1, 2**63):
        with pytest.raises(LiteError) as raised:
            Interpreter(model_content=small_conv_lite, threads=threads)
        assert raised.value.code == Status.INVALID_ARGUMENT and "threads" in raised.value.message
    with Interpreter(model_content=small_conv_lite) as interpreter:
        with pytest.raises(LiteError, match="input index 4294967296 is out of range"):
            interpreter.resize_input(2**32, [1, 3, 8, 8])
        with pytest.raises(LiteError, match=r"dim 18446744073709551616 is out of range"):
            interpreter.resize_input("x", [1, 3, 2**64, 8])


def test_paths_with_nul_bytes_are_refused(tmp_path: Path, small_conv_lite: bytes) -> None:
    real = tmp_path / "m.lite"
    real.write_bytes(small_conv_lite)
    with pytest.raises(LiteError) as raised:
        Interpreter(f"{real}\0.ignored")
    assert raised.value.code == Status.INVALID_ARGUMENT and "contains a NUL byte" in raised.value.message


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "model.lite"
    os.mkfifo(fifo)
    script = f"from runtime_arm import Interpreter, LiteError\ntry:\n Interpreter({str(fifo)!r})\n" \
             "except LiteError as e:\n print(e.code.name, e.message)\n"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30,
                            check=False, env=dict(os.environ, PYTHONPATH=str(Path.cwd())))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"IO_ERROR '{fifo}' is not a regular file"


def test_recursive_subgraphs_refused_before_anything_runs():
    """A body that runs itself through IF ops (a stack overflow at invoke if it ran) is refused at load
    with the verifier's message."""
    from tests.test_control_flow import _recursive_model

    with pytest.raises(LiteError) as error:
        Interpreter(model_content=_recursive_model())
    assert error.value.code == Status.INVALID_MODEL
    assert "runs itself through control-flow ops" in error.value.message
