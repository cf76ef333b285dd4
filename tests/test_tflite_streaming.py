"""Stateful (streaming) TFLite models: resource variables initialised by a CALL_ONCE subgraph, kept by
our interpreter across invokes, checked step by step against LiteRT's interpreter, and reset.

The model is what a streaming keyword spotter or voice-activity detector looks like: a causal
convolution over a ring buffer of past frames (a 4-D variable, shifted by SLICE each step) and a
recurrent fully-connected state (a 2-D variable), both read at the start of the step and assigned
at its end."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ai_edge_litert import schema_py_generated as s

from lite_converter.convert import convert_tflite
from lite_converter.ir import ConversionError
from runtime_arm import Interpreter
from tests.tflite_builder import TfliteModel, options

CHANNELS, TAPS, FILTERS, HIDDEN, CLASSES = 6, 3, 5, 7, 4
STEPS = 20


def _var_handle(m: TfliteModel, name: str) -> int:
    handle = m.resource(f"{name}_handle")
    m.op("VAR_HANDLE", [], [handle], options(s.VarHandleOptionsT(), container=b"", sharedName=name.encode()))
    return handle


def streaming_model(seed: int = 0, init_op: str | None = None, stale_read: bool = False) -> bytes:
    """Main graph: frame [1, 1, 1, C] -> logits [1, CLASSES] (and the new recurrent state); subgraph 1
    assigns the variables' first values (``init_op`` puts another op there; ``stale_read`` uses a
    read value after its variable was assigned)."""
    rng = np.random.default_rng(seed)
    m = TfliteModel()
    frame = m.tensor("frame", [1, 1, 1, CHANNELS])
    m.op("CALL_ONCE", [], [], options(s.CallOnceOptionsT(), initSubgraphIndex=1))
    ring_handle, hidden_handle = _var_handle(m, "ring"), _var_handle(m, "hidden")
    ring = m.tensor("ring", [1, TAPS - 1, 1, CHANNELS])
    m.op("READ_VARIABLE", [ring_handle], [ring])
    hidden = m.tensor("hidden", [1, HIDDEN])
    m.op("READ_VARIABLE", [hidden_handle], [hidden])
    window = m.tensor("window", [1, TAPS, 1, CHANNELS])
    m.op("CONCATENATION", [ring, frame], [window], options(s.ConcatenationOptionsT(), axis=1))
    conv_w = m.constant("conv_w", rng.standard_normal((FILTERS, TAPS, 1, CHANNELS)).astype(np.float32) * 0.4)
    conv_b = m.constant("conv_b", rng.standard_normal(FILTERS).astype(np.float32) * 0.1)
    features = m.tensor("features", [1, 1, 1, FILTERS])
    m.op("CONV_2D", [window, conv_w, conv_b], [features],
         options(s.Conv2DOptionsT(), padding=s.Padding.VALID, strideW=1, strideH=1,
                 fusedActivationFunction=s.ActivationFunctionType.RELU))
    next_ring = m.tensor("next_ring", [1, TAPS - 1, 1, CHANNELS])
    m.op("SLICE", [window, m.constant("begin", [0, 1, 0, 0], np.int32),
                   m.constant("size", [1, TAPS - 1, 1, CHANNELS], np.int32)], [next_ring])
    flat = m.tensor("flat", [1, FILTERS])
    m.op("RESHAPE", [features, m.constant("flat_shape", [1, FILTERS], np.int32)], [flat])
    joined = m.tensor("joined", [1, FILTERS + HIDDEN])
    m.op("CONCATENATION", [hidden, flat], [joined], options(s.ConcatenationOptionsT(), axis=1))
    rec_w = m.constant("rec_w", rng.standard_normal((HIDDEN, FILTERS + HIDDEN)).astype(np.float32) * 0.5)
    rec_b = m.constant("rec_b", rng.standard_normal(HIDDEN).astype(np.float32) * 0.1)
    pre_hidden = m.tensor("pre_hidden", [1, HIDDEN])
    m.op("FULLY_CONNECTED", [joined, rec_w, rec_b], [pre_hidden], options(s.FullyConnectedOptionsT()))
    next_hidden = m.tensor("next_hidden", [1, HIDDEN])
    m.op("TANH", [pre_hidden], [next_hidden])
    if stale_read:  # the value read at the start, used after the variable was assigned
        m.op("ASSIGN_VARIABLE", [hidden_handle, next_hidden], [])
        late = m.tensor("late", [1, HIDDEN])
        m.op("ADD", [hidden, next_hidden], [late], options(s.AddOptionsT()))
        next_hidden = late
    out_w = m.constant("out_w", rng.standard_normal((CLASSES, HIDDEN)).astype(np.float32))
    logits = m.tensor("logits", [1, CLASSES])
    out_b = m.constant("out_b", np.zeros(CLASSES, np.float32))
    m.op("FULLY_CONNECTED", [next_hidden, out_w, out_b], [logits], options(s.FullyConnectedOptionsT()))
    m.op("ASSIGN_VARIABLE", [ring_handle, next_ring], [])
    if not stale_read:
        m.op("ASSIGN_VARIABLE", [hidden_handle, next_hidden], [])
    m.end_subgraph([frame], [logits, next_hidden], "main")

    init_ring, init_hidden = _var_handle(m, "ring"), _var_handle(m, "hidden")
    ring_zeros = m.constant("ring_zeros", np.zeros((1, TAPS - 1, 1, CHANNELS), np.float32))
    m.op("ASSIGN_VARIABLE", [init_ring, ring_zeros], [])
    first_hidden = m.constant("hidden_init", rng.uniform(-0.5, 0.5, (1, HIDDEN)).astype(np.float32))
    if init_op is not None:  # a computed first value: not evaluated at conversion
        computed = m.tensor("hidden_computed", [1, HIDDEN])
        m.op(init_op, [first_hidden], [computed])
        first_hidden = computed
    m.op("ASSIGN_VARIABLE", [init_hidden, first_hidden], [])
    m.end_subgraph([], [], "init")
    return m.finish()


def _frames(seed: int = 1) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((1, 1, 1, CHANNELS)).astype(np.float32) for _ in range(STEPS)]


def _litert_stream(path: Path, frames: list[np.ndarray]) -> list[list[np.ndarray]]:
    from ai_edge_litert import interpreter as litert

    interpreter = litert.Interpreter(
        model_path=str(path),
        experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
    )
    interpreter.allocate_tensors()
    index = interpreter.get_input_details()[0]["index"]
    outputs = []
    for frame in frames:
        interpreter.set_tensor(index, frame)
        interpreter.invoke()
        outputs.append([interpreter.get_tensor(d["index"]).copy() for d in interpreter.get_output_details()])
    return outputs


def _close(mine: np.ndarray, ref: np.ndarray) -> float:
    """Max error relative to max(1, max|ref|): the 1e-5 bound of every fp32 TFLite import."""
    return float(np.abs(mine.astype(np.float64) - ref).max()) / max(1.0, float(np.abs(ref).max()))


def test_streaming_model_matches_litert_at_every_step_and_resets(tmp_path: Path) -> None:
    data = streaming_model()
    path = tmp_path / "streaming.tflite"
    path.write_bytes(data)
    frames = _frames()
    theirs = _litert_stream(path, frames)
    assert not np.allclose(theirs[0][1], theirs[STEPS - 1][1])  # the state really moves
    with Interpreter(model_content=convert_tflite(data)) as interpreter:
        assert interpreter.variable_count == 2
        ours = [list(interpreter.run([frame]).values()) for frame in frames]
        details = interpreter.tensor_details()
        storages = {d["name"]: d["storage"] for d in details}
        arena = [d for d in details if d["storage"] == "arena"]
        base = arena[0]["address"] - arena[0]["arena_offset"]
        for variable in (d for d in details if d["storage"] == "variable"):  # never in the arena
            end = variable["address"] + variable["bytes"]
            assert end <= base or variable["address"] >= base + interpreter.arena_bytes
        interpreter.reset_state()
        again = list(interpreter.run([frames[0]]).values())
    assert sorted(name for name, kind in storages.items() if kind == "variable") == ["variable_hidden",
                                                                                    "variable_ring"]
    for step, (mine, ref) in enumerate(zip(ours, theirs, strict=True)):
        for output, (a, b) in enumerate(zip(mine, ref, strict=True)):
            assert a.shape == b.shape
            assert _close(a, b) <= 1e-5, f"step {step} output {output}: {_close(a, b):.3g}"
    for a, b in zip(again, ours[0], strict=True):
        np.testing.assert_array_equal(a, b)  # after reset the stream starts afresh, bit for bit
    # and a fresh interpreter agrees with a reset one (the state lives in the interpreter, not the model)
    with Interpreter(model_content=convert_tflite(data)) as fresh:
        np.testing.assert_array_equal(list(fresh.run([frames[0]]).values())[0], again[0])


def test_two_interpreters_of_one_model_keep_separate_state() -> None:
    lite = convert_tflite(streaming_model())
    frames = _frames()
    with Interpreter(model_content=lite) as a, Interpreter(model_content=lite) as b:
        for frame in frames[:5]:
            a.run([frame])
        first_b = list(b.run([frames[0]]).values())[0]
        with Interpreter(model_content=lite) as c:
            np.testing.assert_array_equal(first_b, list(c.run([frames[0]]).values())[0])


def test_computed_init_value_is_refused_by_name() -> None:
    with pytest.raises(ConversionError, match=r"CALL_ONCE init subgraph 1 'init' runs TANH"):
        convert_tflite(streaming_model(init_op="TANH"))


def test_value_read_before_an_assign_and_used_after_it_is_refused() -> None:
    with pytest.raises(ConversionError, match=r"variable 'hidden' is read, then assigned"):
        convert_tflite(streaming_model(stale_read=True))


def test_variable_is_written_as_a_flagged_tensor_with_its_initial_value() -> None:
    from lite_converter.reader import read_model

    model = read_model(convert_tflite(streaming_model()))
    variables = {t.name: t for t in model.tensors if t.variable}
    assert set(variables) == {"variable_ring", "variable_hidden"}
    assert not any(t.is_constant for t in variables.values())
    np.testing.assert_array_equal(variables["variable_ring"].data, np.zeros((1, TAPS - 1, 1, CHANNELS)))


def _assign_graph(variable: bool, initial: bool) -> bytes:
    """y = x + v; v := y, with v a variable (or not) carrying an initial value (or not)."""
    from lite_converter.ir import Graph, Node
    from lite_converter.writer import serialize

    g = Graph(source_format="tflite")
    x = g.add_tensor("x", np.float32, [1, 3])
    v = g.add_tensor("v", np.float32, [1, 3])
    g.tensors[v].variable = variable
    if initial:
        g.tensors[v].data = np.ones((1, 3), np.float32)
    y = g.add_tensor("y", np.float32, [1, 3])
    g.nodes += [Node("ADD", "add", [x, v], [y], {}), Node("ASSIGN_VARIABLE", "assign", [v, y], [], {})]
    g.inputs, g.outputs = [x], [y]
    return serialize(g)


def test_accumulator_counts_invokes_and_resets() -> None:
    """v starts at 1 and gains x each invoke: the runtime alone, no importer involved."""
    with Interpreter(model_content=_assign_graph(variable=True, initial=True)) as interpreter:
        x = np.array([[1.0, -2.0, 0.5]], np.float32)
        for step in range(1, 4):
            np.testing.assert_array_equal(interpreter.run([x])["y"], 1 + step * x)
        interpreter.reset_state()
        np.testing.assert_array_equal(interpreter.run([x])["y"], 1 + x)


def test_variables_count_against_max_memory_bytes() -> None:
    from lite_converter.ir import Graph, Node
    from lite_converter.writer import serialize
    from runtime_arm.errors import LiteError

    g = Graph(source_format="tflite")
    x = g.add_tensor("x", np.float32, [1, 1])
    v, y = (g.add_tensor(n, np.float32, [256, 1024]) for n in ("v", "y"))
    g.tensors[v].variable, g.tensors[v].data = True, np.zeros((256, 1024), np.float32)  # 1 MiB of state
    g.nodes += [Node("ADD", "add", [x, v], [y], {}), Node("ASSIGN_VARIABLE", "assign", [v, y], [], {})]
    g.inputs, g.outputs = [x], [y]
    with pytest.raises(LiteError, match=r"variable 'v' of 1048576 bytes is over max_memory_bytes \(524288\)"):
        Interpreter(model_content=serialize(g), max_memory_bytes=1 << 19).allocate_tensors()


@pytest.mark.parametrize(("variable", "initial", "message"), [
    (False, True, "the first a variable tensor"),  # ASSIGN_VARIABLE of a constant
    (False, False, "reads tensor 1 'v' before any op writes it"),  # an activation nothing writes
    (True, False, "a variable needs a buffer"),
])
def test_hostile_assignments_are_refused_at_load(variable: bool, initial: bool, message: str) -> None:
    from runtime_arm.errors import LiteError

    with pytest.raises(LiteError, match=message):
        Interpreter(model_content=_assign_graph(variable, initial))


@pytest.mark.parametrize("name", ["okay_nabu.tflite", "hey_jarvis.tflite"])
def test_micro_wake_word_streams_like_litert(name: str) -> None:
    """A real streaming model from PyPI (microWakeWord, int8, 6 resource variables), 40 invokes of
    feature frames against LiteRT at every step: the uint8 probability within 1 quantization step,
    the int8 logit (FULLY_CONNECTED's output, kept as an extra output) within the bound below, then
    the first step again after a reset."""
    from ai_edge_litert import interpreter as litert

    from lite_converter.convert import convert, load_model
    from lite_converter.frontends.tflite_frontend import read_tflite, schema
    from tests.wakeword_zoo import OfflineError, fetch

    try:
        path = fetch(name)
    except OfflineError as error:
        pytest.skip(f"offline: {error}")
    model, _ = read_tflite(path)
    main = model.subgraphs[0]
    fc = next(o for o in main.operators
              if model.operatorCodes[o.opcodeIndex].builtinCode == schema().BuiltinOperator.FULLY_CONNECTED)
    logit_index = int(fc.outputs[0])
    logit = main.tensors[logit_index].name.decode()
    rng = np.random.default_rng(7)
    # feature frames as the audio frontend gives them: a slowly varying spectrum plus noise, in int8
    base = rng.integers(-100, 60, (1, 1, 40))
    frames = [np.clip(base + rng.integers(-40, 40, (1, 3, 40)), -128, 127).astype(np.int8) for _ in range(40)]
    ref = litert.Interpreter(model_path=str(path), experimental_preserve_all_tensors=True,
                             experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    ref.allocate_tensors()
    theirs = []
    for frame in frames:
        ref.set_tensor(ref.get_input_details()[0]["index"], frame)
        ref.invoke()
        theirs.append([ref.get_tensor(ref.get_output_details()[0]["index"]).copy(),
                       ref.get_tensor(logit_index).copy()])
    lite = convert(load_model(path, frontend="tflite"), keep_tensors=[logit])
    with Interpreter(model_content=lite) as ours:
        assert ours.variable_count == 6
        mine = [list(ours.run([frame]).values()) for frame in frames]
        ours.reset_state()
        again = list(ours.run([frames[0]]).values())
    assert len({int(t[1].reshape(-1)[0]) for t in theirs}) > 5  # the logit really moves with the stream
    logit_steps = []
    for step, (a, b) in enumerate(zip(mine, theirs, strict=True)):
        assert a[0].dtype == np.uint8 and a[0].shape == b[0].shape and a[1].dtype == np.int8
        probability_steps = int(np.abs(a[0].astype(int) - b[0].astype(int)).max())
        assert probability_steps <= 1, f"step {step}: probability {a[0]} vs LiteRT {b[0]}"
        logit_steps.append(int(np.abs(a[1].astype(int) - b[1].astype(int)).max()))
    # Our int8 CONV_2D output is 1 step from LiteRT's in a few values (its rounding, see
    # docs/IMPORT_INT8.md) already at step 0 with zero state; five more int8 layers grow that to
    # 2 steps on okay_nabu's logit (observed), so the bound is 3 steps and the mean under 1.
    assert max(logit_steps) <= 3 and float(np.mean(logit_steps)) < 1.0, logit_steps
    for a, b in zip(again, mine[0], strict=True):
        np.testing.assert_array_equal(a, b)


def test_state_survives_a_resize() -> None:
    """v := v + sum over rows of x, with x [n, 3] resizable: a re-allocation (new n) keeps the stream."""
    from lite_converter.ir import Graph, Node
    from lite_converter.writer import serialize

    g = Graph(source_format="tflite")
    x = g.add_tensor("x", np.float32, [-1, 3])
    v = g.add_tensor("v", np.float32, [1, 3])
    g.tensors[v].variable, g.tensors[v].data = True, np.full((1, 3), 0.5, np.float32)
    rows, y = g.add_tensor("rows", np.float32, [1, 3]), g.add_tensor("y", np.float32, [1, 3])
    g.nodes += [Node("REDUCE_SUM", "rows", [x], [rows], {"axes": [0], "keepdims": True}),
                Node("ADD", "add", [rows, v], [y], {}), Node("ASSIGN_VARIABLE", "assign", [v, y], [], {})]
    g.inputs, g.outputs = [x], [y]
    total = np.full((1, 3), 0.5)
    with Interpreter(model_content=serialize(g)) as interpreter:
        for n in (2, 4, 4, 1):
            feed = np.arange(3 * n, dtype=np.float32).reshape(n, 3)
            total = total + feed.sum(axis=0, keepdims=True)
            np.testing.assert_allclose(interpreter.run([feed])["y"], total, rtol=1e-6)
