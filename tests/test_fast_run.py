"""Interpreter.run's C extension (runtime_arm/python_ext/fast_run.c) against the ctypes path and
onnxruntime: several inputs and outputs, int8 / int64 / bool tensors, dynamic shapes resized from
call to call, and every input it does not take (wrong dtype or count, lists, non-contiguous or
read-only arrays, 0-d) giving the ctypes path's results and errors. Sequence models keep the
Python path; the extension refuses a sequence input through the C API's own error.

Results must be identical between the two paths (the same C API calls on the same interpreter), and
within 1e-6 of onnxruntime for the float outputs (one Add / Mul / reduction each), exact otherwise.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from lite_converter.convert import convert_onnx
from runtime_arm import Interpreter, LiteError, Status
from runtime_arm.fast_run import make_runner

F32, I8, I64, BOOL = TensorProto.FLOAT, TensorProto.INT8, TensorProto.INT64, TensorProto.BOOL
_node = helper.make_node


def _model(nodes: list, inputs: list, outputs: list, initializers: list = ()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "fast_run", inputs, outputs, list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _several_inputs_outputs() -> onnx.ModelProto:
    """x, y: float [n, 3] (n dynamic); q: int8 [2, 4]; k: int64 [3]. Outputs of four dtypes:
    float sums and products, q as float, x truncated to int8, k doubled, x > y as bool."""
    two = helper.make_tensor("two", I64, [], [2])
    nodes = [_node("Add", ["x", "y"], ["sum"]), _node("Mul", ["x", "y"], ["product"]),
             _node("ReduceMax", ["x"], ["peak"], keepdims=0),
             _node("Cast", ["q"], ["widened"], to=F32), _node("Cast", ["x"], ["truncated"], to=I8),
             _node("Mul", ["k", "two"], ["doubled"]), _node("Greater", ["x", "y"], ["greater"])]
    inputs = [helper.make_tensor_value_info(name, dtype, shape) for name, dtype, shape in
              [("x", F32, ["n", 3]), ("y", F32, ["n", 3]), ("q", I8, [2, 4]), ("k", I64, [3])]]
    outputs = [helper.make_tensor_value_info(name, dtype, None) for name, dtype in
               [("sum", F32), ("product", F32), ("peak", F32), ("widened", F32), ("truncated", I8),
                ("doubled", I64), ("greater", BOOL)]]
    return _model(nodes, inputs, outputs, [two])


@pytest.fixture(scope="module")
def several() -> tuple[onnx.ModelProto, bytes]:
    model = _several_inputs_outputs()
    return model, convert_onnx(model)


def _feeds(rows: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"x": rng.uniform(-4, 4, (rows, 3)).astype(np.float32),
            "y": rng.uniform(-4, 4, (rows, 3)).astype(np.float32),
            "q": rng.integers(-128, 128, (2, 4)).astype(np.int8),
            "k": rng.integers(-2**40, 2**40, 3).astype(np.int64)}


def _ctypes_run(interpreter: Interpreter, inputs: object) -> dict[str, np.ndarray]:
    """The same interpreter's run() with the extension set aside: the ctypes path."""
    runner, interpreter._runner = interpreter._runner, None
    try:
        return interpreter.run(inputs)
    finally:
        interpreter._runner = runner


def _assert_identical(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> None:
    assert list(got) == list(want)
    for name in want:
        assert got[name].dtype == want[name].dtype and got[name].shape == want[name].shape, name
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


def test_extension_is_built_and_used(several):
    """`make install` and `make asan` build it beside liblite_runtime.so: no build of this project
    should silently fall back to ctypes."""
    interpreter = Interpreter(model_content=several[1])
    assert interpreter._runner is not None
    module = sys.modules[type(interpreter._runner).__module__]
    # beside the library the binding loaded (LITE_RUNTIME_LIBRARY: the ASan build's pair)
    assert Path(module.__file__).parent == Path(interpreter._lib._name).parent


def test_several_inputs_outputs_dtypes_and_resizes_match_ctypes_and_onnxruntime(several):
    model, data = several
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    fast, slow = Interpreter(model_content=data), Interpreter(model_content=data)
    for seed, rows in enumerate([5, 1, 17, 5, 0]):
        feeds = _feeds(rows, seed)
        got = fast.run(feeds)
        _assert_identical(got, _ctypes_run(slow, feeds))
        for name, want in zip([o.name for o in session.get_outputs()], session.run(None, feeds), strict=True):
            assert got[name].dtype == want.dtype and got[name].shape == want.shape, name
            np.testing.assert_allclose(got[name], want, rtol=1e-6, atol=1e-6, err_msg=name)
        # the binding's cached input shape follows the extension's resize
        assert tuple(fast.get_input_details()[0]["shape"]) == (rows, 3)
        fast.set_tensor("x", feeds["x"])  # set_tensor checks against that shape


def test_every_container_of_inputs_gives_the_same_outputs(several):
    interpreter = Interpreter(model_content=several[1])
    feeds = _feeds(4, 7)
    want = _ctypes_run(interpreter, feeds)
    values = list(feeds.values())
    reordered = {k: feeds[k] for k in reversed(feeds)}
    for inputs in (feeds, values, tuple(values), reordered):
        _assert_identical(interpreter.run(inputs), want)
        taken = interpreter._runner.run(inputs, interpreter._input_shapes)
        assert (taken is None) == (inputs is reordered)  # names out of order: the Python path sorts them


def test_inputs_the_extension_leaves_to_python_run_alike(several):
    """Non-contiguous, read-only, list-valued and subclass inputs: the same outputs as ctypes."""
    interpreter = Interpreter(model_content=several[1])
    feeds = _feeds(6, 11)
    want = _ctypes_run(interpreter, feeds)
    frozen = {k: np.frombuffer(v.tobytes(), v.dtype).reshape(v.shape) for k, v in feeds.items()}
    assert not frozen["x"].flags.writeable
    strided = dict(feeds, x=np.asfortranarray(feeds["x"]), y=np.repeat(feeds["y"], 2, axis=1)[:, ::2])
    assert not strided["x"].flags.c_contiguous and not strided["y"].flags.c_contiguous
    listed = dict(feeds, k=feeds["k"].tolist(), q=feeds["q"].tolist())
    listed["k"] = np.asarray(listed["k"], np.int64)  # a Python list of int8 values would be int64

    class Tagged(np.ndarray):
        pass

    tagged = {k: v.view(Tagged) for k, v in feeds.items()}
    for inputs in (frozen, strided, tagged):
        _assert_identical(interpreter.run(inputs), want)
        taken = interpreter._runner.run(inputs, interpreter._input_shapes)
        assert (taken is None) == (inputs is strided)  # read-only buffers are read in place
    with pytest.raises(LiteError, match="expects int8, got int64"):
        interpreter.run(listed)


def test_zero_d_input_and_single_array_argument():
    model = _model([_node("Mul", ["s", "s"], ["squared"])], [helper.make_tensor_value_info("s", F32, [])],
                   [helper.make_tensor_value_info("squared", F32, [])])
    interpreter = Interpreter(model_content=convert_onnx(model))
    assert interpreter._runner is not None
    for inputs in (np.array(3.0, np.float32), [np.array(3.0, np.float32)], {"s": np.array(3.0, np.float32)}):
        out = interpreter.run(inputs)
        assert out["squared"].shape == () and out["squared"] == 9.0


@pytest.mark.parametrize("case", ["dtype", "count", "names", "static_dim", "rank"])
def test_errors_are_the_ctypes_paths(several, case):
    """Each bad call raises the same LiteError (status and message) on both paths."""
    feeds = _feeds(3, 2)
    bad = {"dtype": dict(feeds, x=feeds["x"].astype(np.float64)),
           "count": list(feeds.values())[:3],
           "names": dict(feeds, z=feeds["x"]),
           "static_dim": dict(feeds, q=np.zeros((2, 5), np.int8)),
           "rank": dict(feeds, x=feeds["x"][None])}[case]
    errors = []
    for path in ("fast", "ctypes"):
        interpreter = Interpreter(model_content=several[1])
        with pytest.raises(LiteError) as error:
            interpreter.run(bad) if path == "fast" else _ctypes_run(interpreter, bad)
        errors.append((error.value.code, str(error.value)))
        _assert_identical(interpreter.run(feeds), _ctypes_run(interpreter, feeds))  # still usable
    assert errors[0] == errors[1]
    assert errors[0][0] == Status.INVALID_ARGUMENT


def test_closed_interpreter_and_detached_runner_raise(several):
    interpreter = Interpreter(model_content=several[1])
    runner = interpreter._runner
    interpreter.close()
    with pytest.raises(LiteError, match="the interpreter is closed"):
        runner.run(_feeds(2, 0), [None] * 4)
    with pytest.raises(LiteError, match="the interpreter is closed"):
        interpreter.run(_feeds(2, 0))


def test_hostile_values_do_not_crash(several):
    """A dtype whose comparison empties the caller's dict, a shape cache that is not a list, many
    inputs of a huge rank: the extension holds its own references and checks each size."""
    interpreter = Interpreter(model_content=several[1])
    feeds = _feeds(3, 5)
    want = _ctypes_run(interpreter, feeds)
    victim = dict(feeds)

    class Clearing(np.ndarray):
        @property
        def dtype(self):
            victim.clear()
            return np.dtype(np.float32)

    victim["y"] = feeds["y"].view(Clearing)
    out = interpreter._runner.run(victim, "not a list")
    _assert_identical(out, want)
    assert interpreter._runner.run(np.zeros((1,) * 32, np.float32), None) is None  # one input: not this model
    deep = dict(feeds, x=np.zeros((1,) * 9 + (3,), np.float32))
    assert interpreter._runner.run(deep, None) is None  # rank 10 > LITE_MAX_RANK: Python path's error
    with pytest.raises(LiteError, match="rank 10 exceeds 8"):
        interpreter.run(deep)
    with pytest.raises(TypeError):
        interpreter._runner.run(feeds)
    with pytest.raises(ValueError):
        type(interpreter._runner)((), 1, (), (), (), np.ndarray, np.empty, LiteError)


def test_sequence_models_keep_the_python_path_and_the_extension_refuses_them():
    element = helper.make_tensor_type_proto(F32, None)
    sequence = helper.make_value_info("s", helper.make_sequence_type_proto(element))
    model = _model([_node("SequenceLength", ["s"], ["n"])], [sequence],
                   [helper.make_tensor_value_info("n", I64, [])])
    interpreter = Interpreter(model_content=convert_onnx(model))
    assert interpreter._runner is None
    assert int(interpreter.run({"s": [np.ones(3, np.float32), np.ones(2, np.float32)]})["n"]) == 2
    runner = make_runner(interpreter._lib, interpreter._it.value, interpreter.input_names,
                         interpreter.output_names)
    with pytest.raises(LiteError, match="optional; set it with lite_interpreter_set_input_sequence"):
        runner.run([np.ones(3, np.float32)], None)
    runner.detach()
