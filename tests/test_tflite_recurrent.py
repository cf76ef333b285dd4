"""TFLite sequence RNNs (UNIDIRECTIONAL_SEQUENCE_LSTM / _RNN, BIDIRECTIONAL_SEQUENCE_LSTM) against
LiteRT's interpreter. Their states are TFLite variable tensors, so LiteRT continues the sequence
across invokes: each case runs three invokes with different inputs (the state carried over) and
compares every one, then resets our interpreter and checks the first output again."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ai_edge_litert import schema_py_generated as s

from lite_converter.convert import convert_tflite
from lite_converter.ir import ConversionError
from runtime_arm import Interpreter
from tests.tflite_builder import TfliteModel, options

BATCH, TIME, INPUT, HIDDEN = 2, 5, 3, 4
INVOKES = 3
_ACT = s.ActivationFunctionType


def _state(m: TfliteModel, name: str, shape: list[int]) -> int:
    index = m.tensor(name, shape)
    m.tensors[index].isVariable = True
    return index


def _lstm_direction(m: TfliteModel, rng: np.random.Generator, prefix: str, peepholes: bool) -> list[int]:
    """TFLite's 17 per-direction inputs after x: 4 input weights, 4 recurrent weights, 3 peepholes,
    4 biases, projection weights and bias (absent)."""
    def const(name: str, shape: tuple[int, ...]) -> int:
        return m.constant(f"{prefix}_{name}", rng.uniform(-0.6, 0.6, shape).astype(np.float32))

    gates = "ifco"
    inputs = [const(f"w_{g}", (HIDDEN, INPUT)) for g in gates]
    inputs += [const(f"r_{g}", (HIDDEN, HIDDEN)) for g in gates]
    inputs += [const(f"p_{g}", (HIDDEN,)) for g in "ifo"] if peepholes else [-1, -1, -1]
    inputs += [const(f"b_{g}", (HIDDEN,)) for g in gates]
    return [*inputs, -1, -1]


def _shape(time_major: bool, width: int = INPUT) -> list[int]:
    return [TIME, BATCH, width] if time_major else [BATCH, TIME, width]


def unidirectional_lstm(time_major: bool = False, peepholes: bool = True, act: int = _ACT.TANH,
                        cell_clip: float = 0.0, layer_norm: bool = False) -> bytes:
    rng = np.random.default_rng(3)
    m = TfliteModel()
    x = m.tensor("x", _shape(time_major))
    inputs = [x, *_lstm_direction(m, rng, "lstm", peepholes)]
    inputs += [_state(m, "h_state", [BATCH, HIDDEN]), _state(m, "c_state", [BATCH, HIDDEN])]
    inputs += [m.constant(f"ln_{g}", np.ones(HIDDEN, np.float32)) for g in "ifco"] if layer_norm else [-1] * 4
    y = m.tensor("y", _shape(time_major, HIDDEN))
    m.op("UNIDIRECTIONAL_SEQUENCE_LSTM", inputs, [y],
         options(s.UnidirectionalSequenceLSTMOptionsT(), fusedActivationFunction=act, cellClip=cell_clip,
                 projClip=0.0, timeMajor=time_major))
    return m.finish([x], [y])


def bidirectional_lstm(time_major: bool, merge: bool) -> bytes:
    rng = np.random.default_rng(4)
    m = TfliteModel()
    x = m.tensor("x", _shape(time_major))
    inputs = [x, *_lstm_direction(m, rng, "fw", True), *_lstm_direction(m, rng, "bw", False)]
    inputs += [_state(m, name, [BATCH, HIDDEN]) for name in ("fw_h", "fw_c", "bw_h", "bw_c")]
    inputs += [-1] * 9  # auxiliary input and its weights
    outputs = [m.tensor("y", _shape(time_major, 2 * HIDDEN if merge else HIDDEN))]
    if not merge:
        outputs.append(m.tensor("y_bw", _shape(time_major, HIDDEN)))
    m.op("BIDIRECTIONAL_SEQUENCE_LSTM", inputs, outputs,
         options(s.BidirectionalSequenceLSTMOptionsT(), fusedActivationFunction=_ACT.TANH, cellClip=0.0,
                 projClip=0.0, mergeOutputs=merge, timeMajor=time_major))
    return m.finish([x], outputs)


def unidirectional_rnn(time_major: bool, act: int) -> bytes:
    rng = np.random.default_rng(5)
    m = TfliteModel()
    x = m.tensor("x", _shape(time_major))
    w = m.constant("w", rng.uniform(-0.7, 0.7, (HIDDEN, INPUT)).astype(np.float32))
    r = m.constant("r", rng.uniform(-0.5, 0.5, (HIDDEN, HIDDEN)).astype(np.float32))
    bias = m.constant("bias", rng.uniform(-0.2, 0.2, HIDDEN).astype(np.float32))
    y = m.tensor("y", _shape(time_major, HIDDEN))
    m.op("UNIDIRECTIONAL_SEQUENCE_RNN", [x, w, r, bias, _state(m, "h_state", [BATCH, HIDDEN])], [y],
         options(s.SequenceRNNOptionsT(), timeMajor=time_major, fusedActivationFunction=act))
    return m.finish([x], [y])


def _check_against_litert(data: bytes, tmp_path: Path, time_major: bool, oracle: bytes | None = None) -> None:
    """``oracle``: the model LiteRT runs instead of ``data``, whose outputs concatenated along the
    last axis are ``data``'s one output."""
    from ai_edge_litert import interpreter as litert

    path = tmp_path / "model.tflite"
    path.write_bytes(data if oracle is None else oracle)
    rng = np.random.default_rng(11)
    feeds = [rng.standard_normal(_shape(time_major)).astype(np.float32) for _ in range(INVOKES)]
    ref = litert.Interpreter(model_path=str(path),
                             experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    ref.allocate_tensors()
    theirs = []
    for feed in feeds:
        ref.set_tensor(ref.get_input_details()[0]["index"], feed)
        ref.invoke()
        outputs = [ref.get_tensor(d["index"]).copy() for d in ref.get_output_details()]
        theirs.append(outputs if oracle is None else [np.concatenate(outputs, axis=-1)])
    assert not np.allclose(theirs[0][0], theirs[1][0])
    with Interpreter(model_content=convert_tflite(data)) as ours:
        for step, feed in enumerate(feeds):
            mine = list(ours.run([feed]).values())
            for a, b in zip(mine, theirs[step], strict=True):
                assert a.shape == b.shape
                error = float(np.abs(a.astype(np.float64) - b).max()) / max(1.0, float(np.abs(b).max()))
                assert error <= 1e-5, f"invoke {step}: {error:.3g}"
        ours.reset_state()
        again = list(ours.run([feeds[0]]).values())
    for a, b in zip(again, theirs[0], strict=True):
        assert float(np.abs(a - b).max()) <= 1e-5


@pytest.mark.parametrize("time_major", [False, True])
@pytest.mark.parametrize("peepholes", [False, True])
def test_unidirectional_lstm_matches_litert_across_invokes(tmp_path: Path, time_major: bool,
                                                           peepholes: bool) -> None:
    _check_against_litert(unidirectional_lstm(time_major, peepholes), tmp_path, time_major)


def test_unidirectional_lstm_relu_cell(tmp_path: Path) -> None:
    _check_against_litert(unidirectional_lstm(act=_ACT.RELU), tmp_path, False)


@pytest.mark.parametrize(("time_major", "merge"),
                         [(False, True), (False, False), (True, True), (True, False)])
def test_bidirectional_lstm_matches_litert_across_invokes(tmp_path: Path, time_major: bool,
                                                          merge: bool) -> None:
    # LiteRT 2.3.0's batch-major merged output reads memory it never wrote (fresh interpreters of
    # one model disagree by up to 0.75): there the oracle is its separate outputs, concatenated
    oracle = bidirectional_lstm(time_major, False) if merge and not time_major else None
    _check_against_litert(bidirectional_lstm(time_major, merge), tmp_path, time_major, oracle)


@pytest.mark.parametrize(("time_major", "act"), [(False, _ACT.TANH), (True, _ACT.RELU)])
def test_unidirectional_rnn_matches_litert_across_invokes(tmp_path: Path, time_major: bool, act: int) -> None:
    _check_against_litert(unidirectional_rnn(time_major, act), tmp_path, time_major)


def test_unsupported_lstm_variants_are_refused_by_name() -> None:
    with pytest.raises(ConversionError, match="cell / projection clipping"):
        convert_tflite(unidirectional_lstm(cell_clip=3.0))
    with pytest.raises(ConversionError, match="layer normalisation"):
        convert_tflite(unidirectional_lstm(layer_norm=True))
