"""Zero-sized tensors through every op family, against onnxruntime.

An empty batch, an empty sequence of tokens or a crop of zero width is a valid ONNX value, and the
runtime meets it in users' models (a detector with no boxes left, a text line with no characters).
The fuzzer found copies of zero bytes from unallocated buffers (undefined behaviour, caught by UBSan)
in the sequence ops; this sweep checks the family instead of the one case: ONNX's own node test
cases (one per op type, all of the sequence and control-flow ops), with the shapes made symbolic
and one axis of the first float input emptied (with the same axis of the other inputs that match
it). Ours must either refuse with a LiteError or produce what onnxruntime produces (shapes and
values, 1e-4 relative; where the two differ, ONNX's reference evaluator decides). The ASan/UBSan
run of make test repeats it, so a null-pointer copy fails there (it does on the SplitToSequence
cases before commit 522408b).

A full sweep over every case (about 2,900 variants) is `LITE_EMPTY_SWEEP=all pytest
tests/test_empty_tensors.py`: docs/RELIABILITY.md has its last figures.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator

import numpy as np
import onnx
import pytest

from tests.onnx_node_cases import NodeCase, _convert, claimed_cases, compare_value, input_feeds

# onnxruntime 1.32 aborts the process ("terminate called without an active exception") or hangs on a
# GRU / LSTM / RNN with zero steps, batch or input size; ours is checked there only for not crashing.
NO_ORACLE_PREFIXES = ("test_gru", "test_lstm", "test_rnn", "test_simple_rnn")

# Refusals the ONNX spec asks for where onnxruntime is lenient: (op, a fragment of our message).
SPEC_REFUSALS = (("GatherND", "indices' last dim 0 must be in"),)  # ONNX: 1 <= indices_shape[-1] <= r


def symbolic_shapes(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy whose graph inputs and outputs have symbolic dims and no intermediate value_info, so
    that the converter and onnxruntime accept inputs of any size."""
    loose = onnx.ModelProto()
    loose.CopyFrom(model)
    del loose.graph.value_info[:]
    for value in [*loose.graph.input, *loose.graph.output]:
        if not value.type.HasField("tensor_type") or not value.type.tensor_type.HasField("shape"):
            continue
        for k, dim in enumerate(value.type.tensor_type.shape.dim):
            dim.Clear()
            dim.dim_param = f"{value.name}_{k}"
    return loose


def emptied_feeds(feeds: dict[str, object]) -> Iterator[tuple[int, dict[str, object]]]:
    """(axis, feeds) for each non-empty axis of the first input, when it is a float tensor: that axis
    emptied in it and in every other numeric input whose dim at the same trailing-aligned position
    has the same size (so broadcasting partners stay consistent)."""
    arrays = [a for a in feeds.values() if isinstance(a, np.ndarray)]
    if not arrays or arrays[0].dtype.kind != "f":
        return
    first = arrays[0]
    for axis in range(first.ndim):
        size = first.shape[axis]
        if size == 0:
            continue
        back = first.ndim - axis
        out: dict[str, object] = {}
        for name, value in feeds.items():
            matches = (isinstance(value, np.ndarray) and value.ndim >= back
                       and value.shape[value.ndim - back] == size and value.dtype.kind in "fiub")
            if matches:
                index = [slice(None)] * value.ndim
                index[value.ndim - back] = slice(0, 0)
                out[name] = value[tuple(index)]
            else:
                out[name] = value
        yield axis, out


# Every case of the ops that build their values at run time (sequences, optionals, control flow); one
# case of every other op.
EVERY_CASE_PREFIXES = ("test_sequence_", "test_split_to_sequence", "test_concat_from_sequence", "test_scan",
                       "test_loop", "test_optional", "test_if")


def _sampled_cases() -> list[NodeCase]:
    cases = sorted(claimed_cases(), key=lambda c: c.name)
    if os.environ.get("LITE_EMPTY_SWEEP") == "all":
        return cases
    chosen: dict[str, NodeCase] = {}
    for case in cases:
        if case.name.startswith(EVERY_CASE_PREFIXES):
            chosen[case.name] = case
        elif "_expanded" not in case.name:
            chosen.setdefault(case.op_under_test, case)
    return list(chosen.values())


CASES = _sampled_cases()


def _onnxruntime(model: onnx.ModelProto, feeds: dict[str, object]) -> list | None:
    import onnxruntime as ort  # the oracle

    try:
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        return session.run(None, feeds)
    except Exception:  # noqa: BLE001 - onnxruntime refusing the empty input leaves ours unchecked but run
        return None


def _reference(model: onnx.ModelProto, feeds: dict[str, object]) -> list | None:
    """ONNX's reference evaluator: the judge where onnxruntime and ours differ (a mean over an empty
    axis is NaN there, as in numpy and torch; onnxruntime 1.32 returns 0)."""
    from onnx.reference import ReferenceEvaluator

    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return ReferenceEvaluator(model).run(None, feeds)
    except Exception:  # noqa: BLE001 - no reference result: onnxruntime's stands
        return None


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_an_emptied_axis_runs_like_onnxruntime(case: NodeCase):
    from runtime_arm import Interpreter, LiteError

    model = symbolic_shapes(case.model)
    names = [value.name for value in model.graph.output]
    for axis, feeds in emptied_feeds(input_feeds(case)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            data, _, _ = _convert(model, feeds)
        if data is None:
            continue  # refused by the converter: a clear error, nothing to run
        try:
            got: dict | LiteError = Interpreter(model_content=data, threads=1).run(feeds)
        except LiteError as error:
            got = error
        if case.name.startswith(NO_ORACLE_PREFIXES):
            continue
        want = _onnxruntime(model, feeds)
        if want is None:
            continue
        if isinstance(got, LiteError) and any(case.op_under_test == op and fragment in str(got)
                                              for op, fragment in SPEC_REFUSALS):
            continue
        assert not isinstance(got, LiteError), f"axis {axis}: onnxruntime runs it, ours refused: {got}"
        reference = None
        for k, (name, expected) in enumerate(zip(names, want, strict=True)):
            if not isinstance(expected, np.ndarray):
                continue
            actual = got[name]
            assert actual.shape == expected.shape, (axis, name, actual.shape, expected.shape)
            mismatch = compare_value(expected, actual, 1e-4) if expected.size else None
            if mismatch is not None:  # onnxruntime's ReduceMean of an empty axis is 0, not 0 / 0
                reference = reference or _reference(model, feeds)
                if reference is not None and compare_value(np.asarray(reference[k]), actual, 1e-4) is None:
                    continue
            assert mismatch is None, f"axis {axis}, output {name!r}: {mismatch} (and not ONNX's reference)"
