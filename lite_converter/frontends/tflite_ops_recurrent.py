"""TFLite sequence RNNs -> the .lite recurrent ops (ONNX semantics, RecurrentOptions).

UNIDIRECTIONAL_SEQUENCE_LSTM, BIDIRECTIONAL_SEQUENCE_LSTM and UNIDIRECTIONAL_SEQUENCE_RNN keep their
hidden (and cell) state in TFLite *variable tensors*: LiteRT starts from their stored value (zeros
when the file stores none) and leaves the last step's state there, so the next invoke continues the
sequence until the interpreter resets its variables. The import gives each state a .lite variable
(tflite_variables.py's machinery): the op reads it as initial_h / initial_c and ASSIGN_VARIABLE
writes y_h / y_c back, which is the same behaviour, and ``reset_state()`` is LiteRT's
``reset_all_variables()``. A state that is an ordinary tensor (a graph input) is only read.

The gates are regrouped from TFLite's order (input, forget, cell, output) to ONNX's (input, output,
forget, cell), the TFLite per-gate tensors concatenated into ONNX's W, R, B and P. TFLite's fused
activation is the cell and hidden activation (ONNX g and h); the gates stay sigmoids. What ONNX's
LSTM has no equal for is refused by name: CIFG (no input gate), projection, layer normalisation,
cell / projection clipping, quantized (hybrid) weights, diagonal recurrent weights.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from lite_converter.frontends.tflite_ops import enum_names
from lite_converter.lite_fb.RecurrentActivation import RecurrentActivation

if TYPE_CHECKING:
    from lite_converter.frontends.tflite_frontend import TfliteGraphBuilder

# TFLite fused activation (ActivationFunctionType name) -> the recurrent activation computing it.
_CELL_ACTIVATION = {"TANH": RecurrentActivation.TANH, "RELU": RecurrentActivation.RELU,
                    "SIGMOID": RecurrentActivation.SIGMOID}
_ONNX_LSTM_GATES = (0, 3, 1, 2)  # ONNX i, o, f, c as positions in TFLite's i, f, c, o


def _fused_name(b: TfliteGraphBuilder, options: Any) -> str:  # noqa: ANN401
    code = int(getattr(options, "fusedActivationFunction", 0) or 0)
    return enum_names(b.s.ActivationFunctionType).get(code, str(code))


def _constants(b: TfliteGraphBuilder, names: list[str], where: str, what: str) -> list[np.ndarray] | None:
    """fp32 values of constant tensors; None (with a problem noted) when one is computed or not fp32."""
    values = []
    for name in names:
        value = b.graph.constant(name)
        if value is None or value.dtype != np.float32:
            kind = "computed" if value is None else f"{value.dtype}"
            b.problems.append(f"{where}: {what} '{name}' is {kind}; only fp32 constant weights are imported "
                              "(a hybrid int8 sequence op is not)")
            return None
        values.append(value)
    return values


def _state(b: TfliteGraphBuilder, index: int, shape: list[int], label: str) -> tuple[str, bool]:
    """(the tensor holding the initial state in the op's layout, whether it is a variable to assign)."""
    tensor = b.subgraph.tensors[index]
    source = b.name(index)
    initial = b.graph.tensors[source].data
    if tensor.isVariable:
        value = np.zeros(shape, np.float32) if initial is None else initial.astype(np.float32).reshape(shape)
        name = b.graph.unique_name(f"{source or label}_state")
        variable = b.graph.tensor(name)
        variable.dtype, variable.shape = np.dtype(np.float32), list(shape)
        variable.data, variable.variable = value, True
        b.graph.tensors[name] = variable
        return name, True
    if initial is not None:
        return b.graph.add_constant(f"{source}_initial", initial.astype(np.float32).reshape(shape)), False
    reshaped = b.graph.add_tensor(f"{source}_initial", np.float32, shape)
    _reshape(b, f"{source}_to_state", source, shape, reshaped)
    return reshaped, False


def _reshape(b: TfliteGraphBuilder, name: str, x: str, shape: list[int], out: str) -> None:
    target = b.graph.add_constant(f"{name}_shape", np.array(shape, np.int64))
    b.add_node("RESHAPE", name, [x, target], [out], allowzero=False)


def _slice(b: TfliteGraphBuilder, name: str, x: str, begin: list[int], size: list[int], out: str) -> None:
    g = b.graph
    ends = [s + n for s, n in zip(begin, size, strict=True)]
    operands = [g.add_constant(f"{name}_{k}", np.array(v, np.int64))
                for k, v in (("starts", begin), ("ends", ends), ("axes", list(range(len(begin)))),
                             ("steps", [1] * len(begin)))]
    b.add_node("SLICE", name, [x, *operands], [out])


class _Sequence:
    """Shapes of one sequence op: x [batch, time, input] (or time major [time, batch, input])."""

    def __init__(self, b: TfliteGraphBuilder, x: str, options: Any) -> None:  # noqa: ANN401
        self.time_major = bool(getattr(options, "timeMajor", False))
        shape = [int(d) for d in b.graph.tensors[x].shape or []]
        if len(shape) != 3 or min(shape) < 1:
            raise ValueError(f"the input has shape {shape}; a static [batch, time, input] is imported")
        self.time, self.batch = (shape[0], shape[1]) if self.time_major else (shape[1], shape[0])

    def state_shape(self, directions: int, hidden: int) -> list[int]:
        """ONNX's state layout: [dirs, batch, hidden], or [batch, dirs, hidden] batch major."""
        return [directions, self.batch, hidden] if self.time_major else [self.batch, directions, hidden]

    def y_shape(self, directions: int, hidden: int) -> list[int]:
        return ([self.time, directions, self.batch, hidden] if self.time_major
                else [self.batch, self.time, directions, hidden])


def _emit(b: TfliteGraphBuilder, op_type: str, seq: _Sequence, inputs: list[str], out: str, directions: int,
          hidden: int, activations: list[int], states: list[tuple[str, bool]], merge: bool = True) -> str:
    """The recurrent node, its TFLite-shaped output (``out``) and the state assignments; returns y."""
    y = b.graph.add_tensor(f"{out}_onnx_y", np.float32, seq.y_shape(directions, hidden))
    state_outputs = [b.graph.add_tensor(f"{out}_{kind}", np.float32, seq.state_shape(directions, hidden))
                     for kind in ("y_h", "y_c")[:len(states)]]
    b.add_node(op_type, out, inputs, [y, *state_outputs], direction=2 if directions == 2 else 0,
               hidden_size=hidden, activations=activations, activation_alpha=[0.0] * len(activations),
               activation_beta=[0.0] * len(activations), clip=0.0, input_forget=False,
               linear_before_reset=False, batch_major=not seq.time_major)
    for (state, is_variable), value in zip(states, state_outputs, strict=True):
        if is_variable:
            b.add_node("ASSIGN_VARIABLE", f"{state}_assign", [state, value], [])
    if merge:
        source = y
        if seq.time_major and directions == 2:  # [time, dirs, batch, hidden] -> [time, batch, dirs, hidden]
            source = b.graph.add_tensor(f"{out}_time_batch", np.float32, [seq.time, seq.batch, 2, hidden])
            b.add_node("TRANSPOSE", f"{out}_transpose", [y], [source], perm=[0, 2, 1, 3])
        _reshape(b, f"{out}_reshape", source, list(b.graph.tensors[out].shape or []), out)
    return y


def _lstm_direction(b: TfliteGraphBuilder, inputs: list[str], where: str) -> tuple[np.ndarray, ...] | None:
    """ONNX (W [4H, I], R [4H, H], B [8H], P [3H]) of one direction's 18 TFLite inputs (weights 1-8,
    peepholes 9-11, biases 12-15, projection 16-17 of the unidirectional numbering, 0-based from 1)."""
    weights, peepholes, biases, projection = inputs[0:8], inputs[8:11], inputs[11:15], inputs[15:17]
    if not weights[0]:
        b.problems.append(f"{where}: CIFG (no input gate) is not imported")
        return None
    if any(projection):
        b.problems.append(f"{where}: a projection layer is not imported")
        return None
    w = _constants(b, weights + [n for n in biases if n], where, "weight")
    if w is None:
        return None
    hidden = w[4].shape[0]
    bias = w[8:] if len(w) == 12 else [np.zeros(hidden, np.float32)] * 4
    if len(w) not in (8, 12):
        b.problems.append(f"{where}: only some gate biases are given")
        return None
    gate_w = [w[i] for i in _ONNX_LSTM_GATES]
    gate_r = [w[4 + i] for i in _ONNX_LSTM_GATES]
    gate_b = [bias[i] for i in _ONNX_LSTM_GATES]
    p = np.zeros(3 * hidden, np.float32)
    if any(peepholes):
        given = _constants(b, [n for n in peepholes if n], where, "peephole")
        if given is None or len(given) != 3:
            if given is not None:
                b.problems.append(f"{where}: only some peepholes are given")
            return None
        p = np.concatenate([given[0], given[2], given[1]])  # TFLite i, f, o -> ONNX i, o, f
    return (np.concatenate(gate_w), np.concatenate(gate_r),
            np.concatenate([*gate_b, np.zeros(4 * hidden, np.float32)]), p)


def _lstm_options_problems(b: TfliteGraphBuilder, options: Any, where: str) -> list[int] | None:  # noqa: ANN401
    if options is None:
        b.problems.append(f"{where}: the op has no options")
        return None
    problems = []
    clips = (float(getattr(options, field, 0.0) or 0.0) for field in ("cellClip", "projClip"))
    if any(clip > 0 for clip in clips):
        problems.append("cell / projection clipping is not imported")
    if getattr(options, "diagonalRecurrentTensors", False):
        problems.append("diagonal recurrent weights are not imported")
    act = _fused_name(b, options)
    if act not in _CELL_ACTIVATION:
        problems.append(f"cell activation {act} is not imported (TANH, RELU, SIGMOID are)")
    b.problems += [f"{where}: {p}" for p in problems]
    return None if problems else [RecurrentActivation.SIGMOID, _CELL_ACTIVATION[act], _CELL_ACTIVATION[act]]


def _unidirectional_lstm(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    where = f"op writing '{outputs[0]}'"
    activations = _lstm_options_problems(b, op.builtinOptions, where)
    if len(inputs) > 20 and any(inputs[20:24]):
        b.problems.append(f"{where}: layer normalisation is not imported")
        return
    if activations is None or len(inputs) < 20:
        return
    direction = _lstm_direction(b, inputs[1:18], where)
    if direction is None:
        return
    w, r, bias, p = direction
    hidden = r.shape[1]
    seq = _Sequence(b, inputs[0], op.builtinOptions)
    raw = [int(i) for i in op.inputs]
    states = [_state(b, raw[18], seq.state_shape(1, hidden), "h"),
              _state(b, raw[19], seq.state_shape(1, hidden), "c")]
    g = b.graph
    name = outputs[0]
    node_inputs = [inputs[0], g.add_constant(f"{name}_w", w[None]), g.add_constant(f"{name}_r", r[None]),
                   g.add_constant(f"{name}_b", bias[None]), "", states[0][0], states[1][0],
                   g.add_constant(f"{outputs[0]}_p", p[None])]
    _emit(b, "LSTM", seq, node_inputs, outputs[0], 1, hidden, activations, states)


def _bidirectional_lstm(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    where = f"op writing '{outputs[0]}'"
    options = op.builtinOptions
    activations = _lstm_options_problems(b, options, where)
    if len(inputs) < 48:
        b.problems.append(f"{where}: {len(inputs)} inputs; BIDIRECTIONAL_SEQUENCE_LSTM has 48")
        return
    if any(inputs[39:48]):
        b.problems.append(f"{where}: auxiliary inputs are not imported")
        return
    if activations is None:
        return
    forward = _lstm_direction(b, inputs[1:18], where)
    backward = _lstm_direction(b, inputs[18:35], where)
    if forward is None or backward is None:
        return
    hidden = forward[1].shape[1]
    seq = _Sequence(b, inputs[0], options)
    raw = [int(i) for i in op.inputs]
    merge = bool(getattr(options, "mergeOutputs", False))
    # the fw and bw states are separate TFLite variables; ONNX stacks them along the dirs axis
    half = seq.state_shape(1, hidden)
    states = [_state(b, raw[k], half, label)
              for k, label in ((35, "fw_h"), (36, "fw_c"), (37, "bw_h"), (38, "bw_c"))]
    g = b.graph
    stacked = []
    dirs_axis = 0 if seq.time_major else 1
    for kind, pair in (("h", (states[0], states[2])), ("c", (states[1], states[3]))):
        both = g.add_tensor(f"{outputs[0]}_initial_{kind}", np.float32, seq.state_shape(2, hidden))
        b.add_node("CONCAT", f"{outputs[0]}_stack_{kind}", [pair[0][0], pair[1][0]], [both], axis=dirs_axis)
        stacked.append(both)
    node_inputs = [inputs[0]] + [g.add_constant(f"{outputs[0]}_{k}", np.stack([forward[i], backward[i]]))
                                 for i, k in enumerate("wrbp")]
    node_inputs = node_inputs[:4] + ["", stacked[0], stacked[1], node_inputs[4]]
    y = b.graph.add_tensor(f"{outputs[0]}_onnx_y", np.float32, seq.y_shape(2, hidden))
    state_out = [g.add_tensor(f"{outputs[0]}_{k}", np.float32, seq.state_shape(2, hidden))
                 for k in ("y_h", "y_c")]
    b.add_node("LSTM", outputs[0], node_inputs, [y, *state_out], direction=2, hidden_size=hidden,
               activations=activations * 2, activation_alpha=[0.0] * 6, activation_beta=[0.0] * 6, clip=0.0,
               input_forget=False, linear_before_reset=False, batch_major=not seq.time_major)
    for kind, out_state, pair in (("h", state_out[0], (states[0], states[2])),
                                  ("c", state_out[1], (states[1], states[3]))):
        for direction, (state, is_variable) in enumerate(pair):
            if not is_variable:
                continue
            part = g.add_tensor(f"{state}_next", np.float32, half)
            begin = [0, 0, 0]
            begin[dirs_axis] = direction
            _slice(b, f"{state}_{kind}_slice", out_state, begin, half, part)
            b.add_node("ASSIGN_VARIABLE", f"{state}_assign", [state, part], [])
    _bidirectional_outputs(b, seq, y, outputs, hidden, merge)


def _bidirectional_outputs(b: TfliteGraphBuilder, seq: _Sequence, y: str, outputs: list[str], hidden: int,
                           merge: bool) -> None:
    """TFLite's fw / bw outputs ([batch, time, hidden] each, or one [.., 2 * hidden] merged) from ONNX's y."""
    g = b.graph
    # y: [time, 2, batch, hidden] time major, else [batch, time, 2, hidden]
    source = y
    if seq.time_major:
        source = g.add_tensor(f"{outputs[0]}_time_batch", np.float32, [seq.time, seq.batch, 2, hidden])
        b.add_node("TRANSPOSE", f"{outputs[0]}_transpose", [y], [source], perm=[0, 2, 1, 3])
    lead = [seq.time, seq.batch] if seq.time_major else [seq.batch, seq.time]
    if merge:
        _reshape(b, f"{outputs[0]}_reshape", source, [*lead, 2 * hidden], outputs[0])
        return
    for direction, out in enumerate(outputs[:2]):
        part = g.add_tensor(f"{out}_part", np.float32, [*lead, 1, hidden])
        _slice(b, f"{out}_slice", source, [0, 0, direction, 0], [*lead, 1, hidden], part)
        _reshape(b, f"{out}_reshape", part, [*lead, hidden], out)


def _unidirectional_rnn(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    where = f"op writing '{outputs[0]}'"
    options = op.builtinOptions
    act = _fused_name(b, options) if options is not None else "NONE"
    if act not in _CELL_ACTIVATION:
        b.problems.append(f"{where}: activation {act} is not imported (TANH, RELU, SIGMOID are)")
        return
    if len(inputs) < 5:
        b.problems.append(f"{where}: {len(inputs)} inputs; UNIDIRECTIONAL_SEQUENCE_RNN has 5")
        return
    values = _constants(b, [n for n in inputs[1:4] if n], where, "weight")
    if values is None:
        return
    w, r = values[0], values[1]
    hidden = r.shape[0]
    bias = values[2] if len(values) == 3 else np.zeros(hidden, np.float32)
    seq = _Sequence(b, inputs[0], options)
    state = _state(b, int(op.inputs[4]), seq.state_shape(1, hidden), "h")
    g = b.graph
    name = outputs[0]
    full_bias = np.concatenate([bias, np.zeros(hidden, np.float32)])  # ONNX's Wb then Rb
    node_inputs = [inputs[0], g.add_constant(f"{name}_w", w[None]), g.add_constant(f"{name}_r", r[None]),
                   g.add_constant(f"{name}_b", full_bias[None]),
                   "", state[0]]
    _emit(b, "RNN", seq, node_inputs, outputs[0], 1, hidden, [_CELL_ACTIVATION[act]], [state])


CONVERTERS = {
    "UNIDIRECTIONAL_SEQUENCE_LSTM": _unidirectional_lstm,
    "BIDIRECTIONAL_SEQUENCE_LSTM": _bidirectional_lstm,
    "UNIDIRECTIONAL_SEQUENCE_RNN": _unidirectional_rnn,
}
