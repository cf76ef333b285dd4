"""LSTM, GRU, RNN against onnxruntime over the attribute space, the fast path against the reference.

Random weights and data, one node per model. With the weights as initializers the runtime takes the
fast path (packed GEMMs); with the weights as graph inputs it runs the reference kernel: both are
compared with onnxruntime, and with each other. onnxruntime refuses ``layout = 1``: those cases are
checked against onnxruntime on the layout-0 model with transposed inputs and outputs.

Tolerance: 1e-5 * max(1, max|expected|) per output: the sums run in float32 in both runtimes, in
different orders, and tanh / sigmoid differ by a few ulp; a wrong gate, bias or state is off by
orders of magnitude more.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

from lite_converter.convert import convert_onnx
from lite_converter.ir import ConversionError
from runtime_arm import Interpreter, LiteError

TOLERANCE = 1e-5
GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}
INPUT_NAMES = ["X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"]
STATE_INPUTS = ("sequence_lens", "initial_h", "initial_c")


@dataclasses.dataclass
class Case:
    """One recurrent node: its attributes, which optional inputs it has, and its sizes."""

    op: str
    direction: str = "forward"
    layout: int = 0
    seq: int = 5
    batch: int = 3
    input_size: int = 4
    hidden: int = 6
    seq_lens: list[int] | None = None
    initial_h: bool = False
    initial_c: bool = False
    peepholes: bool = False
    bias: bool = True
    outputs: tuple[str, ...] = ()
    attrs: dict = dataclasses.field(default_factory=dict)
    seed: int = 0

    @property
    def dirs(self) -> int:
        return 2 if self.direction == "bidirectional" else 1

    def all_outputs(self) -> tuple[str, ...]:
        return self.outputs or (("Y", "Y_h", "Y_c") if self.op == "LSTM" else ("Y", "Y_h"))


def _values(case: Case, layout: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(case.seed)
    g, h, d = GATES[case.op], case.hidden, case.dirs

    def normal(*shape: int, scale: float = 0.5) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    steps, batch = (case.seq, case.batch) if layout == 0 else (case.batch, case.seq)
    # Weights of standard deviation 1/sqrt(hidden): 1.7x torch's default init (uniform in +-1/sqrt(hidden)).
    # Much larger recurrent weights make the recurrence chaotic, and float32 rounding differences
    # between any two implementations then grow without bound over the steps.
    scale = 1.0 / np.sqrt(h)
    values = {"X": normal(steps, batch, case.input_size, scale=1.0),
              "W": normal(d, g * h, case.input_size, scale=scale), "R": normal(d, g * h, h, scale=scale)}
    if case.bias:
        values["B"] = normal(d, 2 * g * h, scale=scale)
    if case.seq_lens is not None:
        values["sequence_lens"] = np.array(case.seq_lens, np.int32)
    state = (d, case.batch, h) if layout == 0 else (case.batch, d, h)
    if case.initial_h:
        values["initial_h"] = normal(*state, scale=1.0)
    if case.initial_c:
        values["initial_c"] = normal(*state, scale=1.0)
    if case.peepholes:
        values["P"] = normal(d, 3 * h, scale=scale)
    return values


def build(case: Case, weights_as_inputs: bool = False, layout: int | None = None,
          values: dict[str, np.ndarray] | None = None) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """The one-node model and its feeds (X and the state inputs are always graph inputs)."""
    layout = case.layout if layout is None else layout
    values = _values(case, layout) if values is None else values
    names = INPUT_NAMES[:8] if case.op == "LSTM" else INPUT_NAMES[:6]
    node_inputs = [n if n in values else "" for n in names]
    while not node_inputs[-1]:
        node_inputs.pop()
    feeds = {n: v for n, v in values.items() if n == "X" or n in STATE_INPUTS or weights_as_inputs}
    inits = [numpy_helper.from_array(v, n) for n, v in values.items() if n not in feeds]
    wanted = case.all_outputs()
    outputs = [o if o in wanted else "" for o in ("Y", "Y_h", "Y_c")[: 3 if case.op == "LSTM" else 2]]
    while not outputs[-1]:
        outputs.pop()
    attrs = dict(case.attrs, hidden_size=case.hidden, direction=case.direction)
    if layout:
        attrs["layout"] = layout
    node = helper.make_node(case.op, node_inputs, outputs, name=f"{case.op.lower()}_node", **attrs)
    graph = helper.make_graph(
        [node], "recurrent",
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
         for n, v in feeds.items()],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs if o], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 9
    return model, feeds


def run_onnxruntime(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    session = onnxruntime.InferenceSession(model.SerializeToString(), options,
                                           providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, feeds), strict=True))


def expected(case: Case) -> dict[str, np.ndarray]:
    """onnxruntime's outputs; for layout 1 from the layout-0 model on transposed data."""
    if case.layout == 0:
        return run_onnxruntime(*build(case))
    values = {n: (np.swapaxes(v, 0, 1).copy() if n == "X" or n in STATE_INPUTS[1:] else v)
              for n, v in _values(case, 1).items()}
    out = run_onnxruntime(*build(case, layout=0, values=values))
    return {n: np.transpose(v, (2, 0, 1, 3)) if n == "Y" else np.swapaxes(v, 0, 1) for n, v in out.items()}


def run_lite(model: onnx.ModelProto, feeds: dict[str, np.ndarray], threads: int = 1) -> dict[str, np.ndarray]:
    return Interpreter(model_content=convert_onnx(model), threads=threads).run(feeds)


def assert_close(actual: dict[str, np.ndarray], reference: dict[str, np.ndarray],
                 tolerance: float = TOLERANCE) -> None:
    assert sorted(actual) == sorted(reference)
    for name, ref in reference.items():
        got = actual[name]
        assert got.dtype == ref.dtype and got.shape == ref.shape, (name, got.shape, ref.shape)
        bound = tolerance * max(1.0, float(np.abs(ref).max(initial=0.0)))
        worst = float(np.abs(got.astype(np.float64) - ref).max(initial=0.0))
        assert worst <= bound, f"{name}: max |diff| {worst:.3g} > {bound:.3g}"


def check(case: Case) -> None:
    """Fast path and reference path against onnxruntime, and against each other."""
    reference = expected(case)
    fast = run_lite(*build(case))
    plain = run_lite(*build(case, weights_as_inputs=True))
    assert_close(fast, reference)
    assert_close(plain, reference)
    assert_close(fast, plain)


DIRECTIONS = ["forward", "reverse", "bidirectional"]
STATES = [
    pytest.param({}, id="no_state"),
    pytest.param({"seq_lens": [5, 2, 4], "initial_h": True, "initial_c": True}, id="lens_and_state"),
    pytest.param({"seq_lens": [3, 0, 5], "initial_h": True, "initial_c": True}, id="empty_sequence"),
]


@pytest.mark.parametrize("op", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("layout", [0, 1])
@pytest.mark.parametrize("state", STATES)
def test_directions_layouts_states(op, direction, layout, state):
    if op != "LSTM":
        state = {k: v for k, v in state.items() if k != "initial_c"}
    check(Case(op, direction=direction, layout=layout, seed=hash((op, direction, layout)) % 1000, **state))


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("attrs, peepholes", [
    pytest.param({}, True, id="peepholes"),
    pytest.param({"input_forget": 1}, False, id="input_forget"),
    pytest.param({"input_forget": 1, "clip": 0.7}, True, id="input_forget_clip_peepholes"),
    pytest.param({"clip": 0.5}, False, id="clip"),
])
def test_lstm_options(direction, attrs, peepholes):
    check(Case("LSTM", direction=direction, peepholes=peepholes, initial_h=True, initial_c=True,
               seq_lens=[4, 5, 1], attrs=attrs, seed=7))


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("attrs", [
    pytest.param({"linear_before_reset": 1}, id="linear_before_reset"),
    pytest.param({"linear_before_reset": 1, "clip": 0.4}, id="linear_before_reset_clip"),
    pytest.param({"clip": 0.4}, id="clip"),
])
def test_gru_options(direction, attrs):
    check(Case("GRU", direction=direction, initial_h=True, seq_lens=[5, 3, 2], attrs=attrs, seed=11))


# Every gate function ONNX lists, with non-default alpha / beta where it takes them.
FUNCTIONS = [
    ("Sigmoid", [], []), ("Tanh", [], []), ("Relu", [], []), ("HardSigmoid", [0.3], [0.4]),
    ("Affine", [0.7], [0.2]), ("LeakyRelu", [0.05], []), ("ThresholdedRelu", [0.3], []),
    ("ScaledTanh", [1.3], [0.6]), ("Elu", [0.8], []), ("Softsign", [], []), ("Softplus", [], []),
]


@pytest.mark.parametrize("name, alpha, beta", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_rnn_each_activation(name, alpha, beta):
    attrs = {"activations": [name]}
    if alpha:
        attrs["activation_alpha"] = alpha
    if beta:
        attrs["activation_beta"] = beta
    check(Case("RNN", attrs=attrs, initial_h=True, seed=3))


@pytest.mark.parametrize("name", ["LeakyRelu", "HardSigmoid", "Elu"])
def test_default_alpha_beta(name):
    """Without activation_alpha / beta, each function takes its ONNX operator's defaults (onnxruntime
    agrees for these; for Affine, ThresholdedRelu and ScaledTanh it uses 0 instead: docs/OPS.md)."""
    check(Case("RNN", attrs={"activations": [name]}, initial_h=True, seed=4))


@pytest.mark.parametrize("op, activations, alpha, beta", [
    # alpha / beta are consumed by the functions that take them, in order (Sigmoid takes none)
    ("LSTM", ["Sigmoid", "LeakyRelu", "ScaledTanh"], [0.2, 0.9], [0.7]),
    ("LSTM", ["HardSigmoid", "Tanh", "Affine"], [0.25, 0.6], [0.3, 0.1]),
    ("GRU", ["HardSigmoid", "Elu"], [0.3, 0.5], [0.45]),
    ("GRU", ["Sigmoid", "Softsign"], [], []),
])
def test_gate_function_lists(op, activations, alpha, beta):
    attrs = {"activations": activations}
    if alpha:
        attrs["activation_alpha"] = alpha
    if beta:
        attrs["activation_beta"] = beta
    check(Case(op, attrs=attrs, initial_h=True, seed=5))


@pytest.mark.parametrize("op", ["LSTM", "GRU", "RNN"])
def test_bidirectional_with_per_direction_functions(op):
    per_direction = {"LSTM": ["Sigmoid", "Tanh", "Tanh", "HardSigmoid", "Softsign", "Relu"],
                     "GRU": ["Sigmoid", "Tanh", "HardSigmoid", "Softsign"], "RNN": ["Tanh", "Relu"]}[op]
    check(Case(op, direction="bidirectional", attrs={"activations": per_direction}, initial_h=True, seed=9))


@pytest.mark.parametrize("op, outputs", [
    ("LSTM", ("Y_h",)), ("LSTM", ("Y_c",)), ("LSTM", ("Y",)), ("GRU", ("Y_h",)), ("RNN", ("Y",)),
])
def test_omitted_outputs(op, outputs):
    check(Case(op, outputs=outputs, direction="bidirectional", seed=13))


@pytest.mark.parametrize("op", ["LSTM", "GRU", "RNN"])
def test_without_bias_batch_one_hidden_wider_than_tiles(op):
    check(Case(op, bias=False, batch=1, hidden=37, input_size=19, seq=9, direction="bidirectional", seed=17))


@pytest.mark.parametrize("op, attrs", [
    ("LSTM", {}), ("GRU", {}), ("GRU", {"linear_before_reset": 1}), ("RNN", {}),
])
def test_batch_of_five_threads_give_identical_results(op, attrs):
    """Batch 5: the per-step recurrence runs as a GEMM (not row by row), split across threads."""
    case = Case(op, direction="bidirectional", seq=16, batch=5, input_size=24, hidden=40, initial_h=True,
                seq_lens=[16, 9, 1, 16, 12], attrs=attrs, seed=19)
    check(case)
    model, feeds = build(case)
    data = convert_onnx(model)
    one = Interpreter(model_content=data, threads=1).run(feeds)
    for threads in (2, 3):
        many = Interpreter(model_content=data, threads=threads).run(feeds)
        for name in one:
            np.testing.assert_array_equal(many[name], one[name])


@pytest.mark.parametrize("op", ["LSTM", "GRU", "RNN"])
def test_dynamic_sequence_length_resizes(op):
    case = Case(op, direction="bidirectional", seq=6, batch=2, initial_h=True, seed=23)
    model, feeds = build(case)
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "time"
    interpreter = Interpreter(model_content=convert_onnx(model), threads=1)
    values = _values(case, 0)
    rng = np.random.default_rng(31)
    for seq in (6, 11, 1, 6):
        values["X"] = rng.standard_normal((seq, case.batch, case.input_size)).astype(np.float32)
        model_n, feeds_n = build(dataclasses.replace(case, seq=seq), values=values)
        assert_close(interpreter.run(feeds_n), run_onnxruntime(model_n, feeds_n))


def test_unknown_activation_is_refused_with_the_node_name():
    model, _ = build(Case("RNN", attrs={"activations": ["Gelu"]}))
    with pytest.raises(ConversionError, match=r"rnn_node.*Gelu"):
        convert_onnx(model)


@pytest.mark.parametrize("lens", [[6, 1, 2], [-1, 1, 2]])
def test_sequence_length_outside_the_sequence_is_an_error(lens):
    for weights_as_inputs in (False, True):
        model, feeds = build(Case("GRU", seq_lens=[1, 1, 1], seed=29), weights_as_inputs=weights_as_inputs)
        feeds["sequence_lens"] = np.array(lens, np.int32)
        with pytest.raises(LiteError, match="sequence_lens"):
            run_lite(model, feeds)


@pytest.mark.parametrize("op", ["LSTM", "GRU", "RNN"])
def test_float16_model_computes_in_float32(op):
    """float16 weights and data are promoted to float32 around the op (promote_float32.py); the
    outputs come back as float16, within its resolution (1e-3) of onnxruntime's."""
    case = Case(op, direction="bidirectional", initial_h=True, seq_lens=[5, 2, 3], seed=37)
    values = {n: v.astype(np.float16) if v.dtype == np.float32 else v for n, v in _values(case, 0).items()}
    model, feeds = build(case, values=values)
    for output in model.graph.output:
        output.type.tensor_type.elem_type = TensorProto.FLOAT16
    reference = run_onnxruntime(model, feeds)
    ours = run_lite(model, feeds)
    assert {n: v.dtype for n, v in ours.items()} == {n: np.dtype(np.float16) for n in reference}
    assert_close({n: v.astype(np.float64) for n, v in ours.items()},
                 {n: v.astype(np.float64) for n, v in reference.items()}, tolerance=1e-3)
