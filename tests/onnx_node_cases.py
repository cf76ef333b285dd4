"""ONNX's own node test cases, run through our converter and runtime: the per-op conformance oracle.

The onnx wheel no longer ships the ``.pb`` test data, but it still carries the Python code that
generates it: ``onnx.backend.test.case.node.collect_testcases()`` builds every case in memory (a
one-node model, or the node's function body for ``*_expanded`` cases, plus input and expected output
arrays computed by ONNX's reference code). Those expected outputs are the independent oracle here.

A case is *claimed* when every op type in its graph is one the converter says it supports. A claimed
case is then

* ``unsupported`` when the converter refuses it with a ConversionError that ``check_supported``
  confirms (an attribute combination or dtype we deliberately do not handle): not counted;
* ``pass`` when every output has the expected dtype and shape and matches: floats within
  ``1e-4 * max(1, max|expected|)`` (1e-3 for float16 outputs; NaN and infinities in the same
  places), integers and bools exactly;
* ``fail`` otherwise, with the error or the largest difference as the detail.

A case refused only because a shape input (Reshape's shape, Reduce axes, ...) is a graph input is run
again with those inputs frozen to the case's values (see ``run_case``), since the .lite contract needs
shape inputs before running; docs/CONFORMANCE.md lists those cases.

Known failures are listed, with a reason, in docs/CONFORMANCE.md, which this module writes::

    .venv/bin/python -m tests.onnx_node_cases --write-doc docs/CONFORMANCE.md

The pytest module reads that list back and marks those cases as strict expected failures.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import functools
import re
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

FLOAT_TOLERANCE = 1e-4
DOC_PATH = Path(__file__).resolve().parent.parent / "docs" / "CONFORMANCE.md"
KNOWN_BEGIN = "<!-- known-failures:begin -->"
KNOWN_END = "<!-- known-failures:end -->"

# Cases whose tolerance differs from FLOAT_TOLERANCE, each with the reason (shown in CONFORMANCE.md).
TOLERANCE_OVERRIDES: dict[str, tuple[float, str]] = {}

# Output dtypes whose own resolution is coarser than FLOAT_TOLERANCE: (tolerance, reason).
DTYPE_TOLERANCES: dict[str, tuple[float, str]] = {
    "float16": (1e-3, "float16 has an 11-bit significand: one unit in the last place is 4.9e-4 between "
                "0.5 and 1, so 1e-4 would demand more than the format holds; rounding a float32 result "
                "and ONNX's reference (which rounds intermediate results) may differ by one ulp"),
}

# Substring of the support check's message for a shape input computed from graph input data.
DATA_DEPENDENT_SHAPE_INPUT = "graph input data"

# Human explanations for known failures, by case-name regex; the observed error is always added.
FAILURE_EXPLANATIONS: dict[str, str] = {
    r"^test_resize_downsample_scales_(linear|cubic)_align_corners$": (
        "ONNX's reference evaluates align_corners with the unrounded output length input*scale "
        "(4*0.6 = 2.4), onnxruntime with the integer output size (2); our runtime follows onnxruntime, "
        "the project's fp32 oracle, and matches it exactly on this case"
    ),
    r"^test_top_k_uint64$": (
        "the support check accepts TopK on uint64 but the TOP_K kernel handles float32/int32/int64 only: "
        "the check should refuse it (or the kernel gain uint64)"
    ),
}

# A case's input or output: a tensor, a sequence (list of tensors) or an empty optional (None).
Value = np.ndarray | list[np.ndarray] | None

_EXPANDED_SUFFIX = re.compile(r"_expanded(_ver\d+)?$")


@dataclasses.dataclass(frozen=True)
class NodeCase:
    """One ONNX node test case: the model, its inputs and expected outputs, and the op it tests."""

    name: str
    op_under_test: str
    op_types: frozenset[str]
    model: onnx.ModelProto
    inputs: tuple[Value, ...]
    expected: tuple[Value, ...]

    @property
    def expanded(self) -> bool:
        """True for the function-body variant of a case (``*_expanded``), which tests other ops."""
        return bool(_EXPANDED_SUFFIX.search(self.name))


@dataclasses.dataclass(frozen=True)
class CaseResult:
    """The outcome of one case: "pass", "fail" or "unsupported", and why."""

    name: str
    op_under_test: str
    status: str
    detail: str = ""
    seconds: float = 0.0
    frozen_inputs: tuple[str, ...] = ()


def _qualified_op_type(node: onnx.NodeProto) -> str:
    return node.op_type if node.domain in ("", "ai.onnx") else f"{node.domain}::{node.op_type}"


def _value_kind(type_proto: onnx.TypeProto) -> str:
    """"tensor", "sequence" (of tensors), "optional" (of either), or "" for what .lite has no kind for."""
    field = type_proto.WhichOneof("value")
    if field == "sequence_type":
        return "sequence" if _value_kind(type_proto.sequence_type.elem_type) == "tensor" else ""
    if field == "optional_type":
        return "optional" if _value_kind(type_proto.optional_type.elem_type) in ("tensor", "sequence") else ""
    return "tensor" if field == "tensor_type" else ""


def _is_supported_io(values: list[onnx.ValueInfoProto]) -> bool:
    """Tensors, sequences of tensors and optionals of those (maps and nested sequences left out)."""
    return all(_value_kind(value.type) for value in values)


def _is_array(value: object) -> bool:
    """An array or numpy scalar (ConvInteger's zero point, DynamicQuantizeLinear's scale: 0-d tensors)."""
    return isinstance(value, np.ndarray | np.generic)


def _only_values(values: object) -> bool:
    """Arrays, lists of arrays (sequences) or None (an empty optional)."""
    return isinstance(values, list | tuple) and all(
        v is None or _is_array(v) or (isinstance(v, list) and all(_is_array(e) for e in v)) for v in values)


def _as_value(value: object) -> object:
    if value is None or isinstance(value, list):
        return None if value is None else [np.asarray(e) for e in value]
    return np.asarray(value)


@functools.cache
def collect_node_cases() -> tuple[NodeCase, ...]:
    """Every ONNX node test case whose inputs and outputs are tensors, sequences or optionals (no maps)."""
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the generators divide by zero on purpose (inf/nan cases)
        raw = collect_testcases(None)
    single_op = {case.name: _qualified_op_type(case.model.graph.node[0])
                 for case in raw if len(case.model.graph.node) == 1}
    cases = []
    for case in raw:
        graph = case.model.graph
        if not case.data_sets or not _is_supported_io([*graph.input, *graph.output]):
            continue
        inputs, expected = case.data_sets[0]
        if not (_only_values(inputs) and _only_values(expected)):
            continue
        base = _EXPANDED_SUFFIX.sub("", case.name)
        op_types = frozenset(_qualified_op_type(node) for node in graph.node)
        op = single_op.get(case.name) or single_op.get(base) or "+".join(sorted(op_types))
        cases.append(NodeCase(case.name, op, op_types, case.model, tuple(_as_value(v) for v in inputs),
                              tuple(_as_value(v) for v in expected)))
    return tuple(cases)


def supported_op_types() -> frozenset[str]:
    """The ONNX op types the converter claims to support (from lite_converter.passes.support)."""
    from lite_converter.passes import support

    return frozenset(support.supported_op_types())


def claimed_cases() -> list[NodeCase]:
    """The cases whose every op type is claimed as supported by the converter."""
    supported = supported_op_types()
    return [case for case in collect_node_cases() if case.op_types <= supported]


# -- running one case ------------------------------------------------------------------------------
def input_feeds(case: NodeCase) -> dict[str, Value]:
    """The case inputs keyed by graph input name (node tests have no initializers among inputs)."""
    initializers = {init.name for init in case.model.graph.initializer}
    names = [value.name for value in case.model.graph.input if value.name not in initializers]
    return dict(zip(names, case.inputs, strict=True))


def compare_value(expected: Value, actual: object, tolerance: float) -> str | None:
    """compare_output for any value: a sequence element by element, an empty optional as None."""
    if expected is None or actual is None:
        if expected is None and actual is None:
            return None
        return f"{actual!r:.60} where {expected!r:.60} was expected"
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"a sequence of {len(expected)} was expected, got {type(actual).__name__} " \
                   f"of {len(actual) if isinstance(actual, list) else 'no'} elements"
        for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
            mismatch = compare_output(want, got, tolerance)
            if mismatch:
                return f"element {index}: {mismatch}"
        return None
    return compare_output(expected, actual, tolerance)


def compare_output(expected: np.ndarray, actual: np.ndarray, tolerance: float) -> str | None:
    """None when ``actual`` matches ``expected``, else a short description of the first mismatch."""
    expected = np.asarray(expected)
    actual = np.asarray(actual)
    if actual.dtype != expected.dtype:
        return f"dtype {actual.dtype} != expected {expected.dtype}"
    if actual.shape != expected.shape:
        return f"shape {list(actual.shape)} != expected {list(expected.shape)}"
    if expected.dtype.kind in "fc":
        ours = actual.astype(np.float64)
        ref = expected.astype(np.float64)
        if not np.array_equal(np.isnan(ours), np.isnan(ref)):
            return "NaN in different places"
        infinite = np.isinf(ref)
        if not np.array_equal(ours[infinite], ref[infinite]) or np.isinf(ours[~infinite]).any():
            return "infinities in different places"
        finite = np.isfinite(ref)
        if not finite.any():
            return None
        bound = tolerance * max(1.0, float(np.abs(ref[finite]).max()))
        diff = np.abs(ours[finite] - ref[finite])
        worst = float(diff.max())
        if worst > bound:
            outside = int((diff > bound).sum())
            return f"max |diff| {worst:.3g} > {bound:.3g} ({outside} of {diff.size} elements)"
        return None
    if not np.array_equal(actual, expected):
        mismatched = int((actual != expected).sum()) if actual.shape == expected.shape else actual.size
        return f"{mismatched} of {expected.size} elements differ"
    return None


def tolerance_for(case_name: str, dtype: np.dtype) -> float:
    """The float tolerance of one output: a per-case override, else per-dtype, else FLOAT_TOLERANCE."""
    if case_name in TOLERANCE_OVERRIDES:
        return TOLERANCE_OVERRIDES[case_name][0]
    return DTYPE_TOLERANCES.get(np.dtype(dtype).name, (FLOAT_TOLERANCE, ""))[0]


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"[:300]


def _refused_by_support_check(model: onnx.ModelProto, input_shapes: dict[str, list[int]]) -> str | None:
    """The support check's message when it rejects the model, else None (a claimed op went wrong)."""
    from lite_converter.frontends.onnx_frontend import load_onnx
    from lite_converter.ir import ConversionError
    from lite_converter.passes.support import check_supported

    try:
        check_supported(load_onnx(model, input_shapes))
    except ConversionError as error:
        problems = [line.strip(" -") for line in str(error).splitlines()[1:]] or [str(error)]
        return "; ".join(problems)
    return None


def _convert(model: onnx.ModelProto, feeds: dict[str, Value]) -> tuple[bytes | None, str, str]:
    """(.lite bytes, "", "") on success, else (None, "unsupported" or "fail", why)."""
    from lite_converter.convert import convert_onnx
    from lite_converter.ir import ConversionError

    sequences = {value.name for value in model.graph.input if _value_kind(value.type) == "sequence"}
    input_shapes = {name: list(array.shape) for name, array in feeds.items()
                    if isinstance(array, np.ndarray) and name not in sequences}
    try:
        return convert_onnx(model, input_shapes=input_shapes), "", ""
    except ConversionError as error:
        refusal = _refused_by_support_check(model, input_shapes)
        if refusal is not None:
            return None, "unsupported", refusal
        return None, "fail", f"convert: {_first_line(error)}"
    except Exception as error:  # noqa: BLE001 - any converter crash is a failure of the case
        return None, "fail", f"convert crashed: {_first_line(error)}"


def shape_input_sources(model: onnx.ModelProto, message: str) -> set[str]:
    """Graph inputs whose *data* feeds the tensors a support-check message names (in quotes).

    Node tests often pass what is a constant in real models (Reshape's shape, Reduce axes, Resize
    scales, TopK's k) as a graph input; the .lite contract needs such shape inputs before running.
    The walk stops at Shape and Size, which read only their input's shape, so the data input itself
    is not frozen by a shape computed from it.
    """
    graph = model.graph
    inputs = {value.name for value in graph.input}
    producers = {output: node for node in graph.node for output in node.output}
    pending = [name for name in re.findall(r"'([^']*)'", message) if name in inputs or name in producers]
    sources: set[str] = set()
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in inputs:
            sources.add(name)
        elif name in producers and producers[name].op_type not in ("Shape", "Size"):
            pending.extend(inp for inp in producers[name].input if inp)
    return sources


def freeze_inputs(model: onnx.ModelProto, values: dict[str, np.ndarray]) -> onnx.ModelProto:
    """A copy of the model where the given graph inputs are initializers holding the case's values."""
    frozen = onnx.ModelProto()
    frozen.CopyFrom(model)
    kept = [value for value in frozen.graph.input if value.name not in values]
    del frozen.graph.input[:]
    frozen.graph.input.extend(kept)
    frozen.graph.initializer.extend(
        numpy_helper.from_array(array, name) for name, array in values.items()
    )
    return frozen


def run_case(case: NodeCase) -> CaseResult:
    """Converts the case's model in-process, runs it with one interpreter, compares the outputs.

    When the support check refuses the case only because a shape input (see shape_input_sources)
    is a graph input, the case is run again with those inputs frozen to the case's values, as long
    as at least one real input remains; the result records which inputs were frozen.
    """
    from runtime_arm import Interpreter

    start = time.perf_counter()
    feeds = input_feeds(case)
    frozen: tuple[str, ...] = ()

    def result(status: str, detail: str = "") -> CaseResult:
        return CaseResult(case.name, case.op_under_test, status, detail[:400], time.perf_counter() - start,
                          frozen)

    data, status, detail = _convert(case.model, feeds)
    if status == "unsupported" and DATA_DEPENDENT_SHAPE_INPUT in detail:
        sources = shape_input_sources(case.model, detail)
        if sources and sources < set(feeds):
            frozen = tuple(sorted(sources))
            frozen_model = freeze_inputs(case.model, {name: feeds[name] for name in frozen})
            feeds = {name: array for name, array in feeds.items() if name not in sources}
            data, status, detail = _convert(frozen_model, feeds)
    if data is None:
        return result(status, detail)
    try:
        outputs = Interpreter(model_content=data, threads=1).run(feeds)
    except Exception as error:  # noqa: BLE001 - runtime errors are failures of the case
        return result("fail", f"run: {_first_line(error)}")
    names = [value.name for value in case.model.graph.output]
    for name, expected in zip(names, case.expected, strict=True):
        if name not in outputs:
            return result("fail", f"output {name!r} missing (got {sorted(outputs)})")
        mismatch = compare_value(expected, outputs[name], tolerance_for(case.name, _dtype_of(expected)))
        if mismatch:
            return result("fail", f"output {name!r}: {mismatch}")
    return result("pass")


def _dtype_of(value: Value) -> np.dtype:
    """The element dtype of a value (float32 for an empty one: only the tolerance depends on it)."""
    if isinstance(value, list):
        return value[0].dtype if value else np.dtype(np.float32)
    return np.dtype(np.float32) if value is None else value.dtype


@functools.cache
def run_case_cached(name: str) -> CaseResult:
    """run_case, once per case and process (the parametrized tests and the aggregate share it)."""
    return run_case(next(case for case in collect_node_cases() if case.name == name))


# -- the known-failures list in docs/CONFORMANCE.md -------------------------------------------------
def read_known_failures(doc: Path = DOC_PATH) -> dict[str, str]:
    """Case name -> documented reason, from the machine-readable table in CONFORMANCE.md."""
    if not doc.is_file():
        return {}
    text = doc.read_text(encoding="utf-8")
    if KNOWN_BEGIN not in text or KNOWN_END not in text:
        return {}
    section = text.split(KNOWN_BEGIN, 1)[1].split(KNOWN_END, 1)[0]
    known = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        if len(cells) >= 3 and cells[0].startswith("`test_"):
            known[cells[0].strip("`")] = cells[2].replace("\\|", "|")
    return known


def _explanation(name: str) -> str:
    for pattern, text in FAILURE_EXPLANATIONS.items():
        if re.search(pattern, name):
            return text
    return ""


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_doc(results: list[CaseResult], claimed: frozenset[str], total_cases: int) -> str:
    """The text of CONFORMANCE.md: summary, per-op counts, known failures, tolerance exceptions."""
    counted = [r for r in results if r.status != "unsupported"]
    passed = sum(r.status == "pass" for r in counted)
    failures = [r for r in results if r.status == "fail"]
    rate = 100.0 * passed / len(counted) if counted else 0.0
    per_op: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for r in results:
        per_op[r.op_under_test][r.status] += 1
    lines = [
        "# Conformance with ONNX's node tests",
        "",
        "Generated by `.venv/bin/python -m tests.onnx_node_cases --write-doc docs/CONFORMANCE.md`;",
        "do not edit by hand (explanations for failures live in `FAILURE_EXPLANATIONS` in",
        "`tests/onnx_node_cases.py`). `tests/test_onnx_node_conformance.py` runs the same cases: each",
        "case listed under *Known failures* is a strict expected failure there, any other failure fails",
        "the test, and at least 95% of the counted cases must pass.",
        "",
        f"- ONNX {onnx.__version__}: {total_cases} node test cases whose inputs and outputs are tensors, "
        "sequences of tensors or optionals (a sequence output must match element by element).",
        f"- {len(results)} cases use only op types the converter claims "
        f"({len(claimed)} op types); {len(results) - len(counted)} of them are refused by the support "
        "check (an attribute or dtype we do not handle) and not counted.",
        f"- **{passed} of {len(counted)} counted cases pass ({rate:.1f}%)**, {len(failures)} fail.",
        "",
        "Oracle: the expected outputs that ONNX's reference code computes for each case. A case passes",
        f"when every output has the expected dtype and shape and floats are within "
        f"`{FLOAT_TOLERANCE:g} * max(1, max|expected|)`",
        "(NaN and infinities in the same places); integers and bools must be equal.",
        "`*_expanded` cases run the op's function body, i.e. they test the ops it expands to.",
        "",
        "## Per op",
        "",
        "| op under test | cases | pass | fail | refused |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for op in sorted(per_op):
        counts = per_op[op]
        total = sum(counts.values())
        lines.append(f"| {op} | {total} | {counts['pass']} | {counts['fail']} | {counts['unsupported']} |")
    lines += [
        "",
        "## Known failures",
        "",
        "The test reads this table: a case listed here is expected to fail (strictly: when it starts",
        "passing, regenerate this file).",
        "",
        KNOWN_BEGIN,
        "| case | op under test | reason |",
        "| --- | --- | --- |",
    ]
    for r in sorted(failures, key=lambda r: (r.op_under_test, r.name)):
        explanation = _explanation(r.name)
        reason = f"{explanation} (observed: {r.detail})" if explanation else r.detail
        lines.append(f"| `{r.name}` | {r.op_under_test} | {_cell(reason)} |")
    lines += [KNOWN_END, "", "## Tolerance exceptions", "",
              "| applies to | tolerance (times max(1, max\\|expected\\|)) | why |", "| --- | --- | --- |"]
    for dtype, (tol, why) in sorted(DTYPE_TOLERANCES.items()):
        lines.append(f"| every {dtype} output | {tol:g} | {_cell(why)} |")
    for name, (tol, why) in sorted(TOLERANCE_OVERRIDES.items()):
        lines.append(f"| `{name}` | {tol:g} | {_cell(why)} |")
    frozen = [r for r in results if r.frozen_inputs and r.status != "unsupported"]
    lines += [
        "",
        "## Cases run with their shape inputs frozen",
        "",
        "ONNX's node tests often feed what real models hold as constants (Reshape's shape, Reduce axes,",
        "Resize scales, TopK's k, Pad's pads) as graph inputs. The `.lite` contract needs such shape",
        "inputs before running (docs/OPS.md), so the support check refuses those models as they are.",
        "The harness then runs the case again with exactly those inputs turned into initializers holding",
        "the case's values (never the data input: at least one real input must remain), and counts it.",
        f"{len(frozen)} counted cases ran this way:",
        "",
        "| case | frozen inputs | result |",
        "| --- | --- | --- |",
    ]
    for r in sorted(frozen, key=lambda r: r.name):
        lines.append(f"| `{r.name}` | {', '.join(r.frozen_inputs)} | {r.status} |")
    refused = [r for r in results if r.status == "unsupported"]
    lines += ["", "## Refused by the support check", ""]
    if refused:
        lines += ["| case | message |", "| --- | --- |"]
        lines += [f"| `{r.name}` | {_cell(r.detail)} |" for r in sorted(refused, key=lambda r: r.name)]
    else:
        lines.append("None.")
    unclaimed = sorted({case.op_under_test for case in collect_node_cases()} - set(per_op))
    lines += ["", "## Op types with ONNX node tests that the converter does not claim", "",
              ", ".join(unclaimed) if unclaimed else "None.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Runs the claimed cases; prints a summary, optionally the failures, optionally writes the doc."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write-doc", type=Path, help="write the conformance report (docs/CONFORMANCE.md)")
    parser.add_argument("--op", action="append", help="only cases testing this op type (repeatable)")
    parser.add_argument("--list-supported", action="store_true", help="print the claimed op types and exit")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every failure")
    args = parser.parse_args(argv)
    if args.list_supported:
        print("\n".join(sorted(supported_op_types())))
        return 0
    cases = claimed_cases()
    if args.op:
        cases = [case for case in cases if case.op_under_test in args.op]
    start = time.perf_counter()
    results = []
    for index, case in enumerate(cases):
        print(f"\r[{index + 1}/{len(cases)}] {case.name:<70}", end="", file=sys.stderr, flush=True)
        results.append(run_case(case))
    print(file=sys.stderr)
    counted = [r for r in results if r.status != "unsupported"]
    passed = sum(r.status == "pass" for r in counted)
    if args.verbose:
        for r in results:
            if r.status == "fail":
                print(f"FAIL {r.name} [{r.op_under_test}]: {r.detail}")
    slowest = max(results, key=lambda r: r.seconds, default=None)
    print(f"{passed}/{len(counted)} counted cases pass, {len(results) - len(counted)} refused, "
          f"{len(results)} claimed of {len(collect_node_cases())}; {time.perf_counter() - start:.1f}s"
          + (f" (slowest {slowest.name} {slowest.seconds:.2f}s)" if slowest else ""))
    if args.write_doc:
        if args.op:
            parser.error("--write-doc needs the full run (no --op)")
        args.write_doc.write_text(render_doc(results, supported_op_types(), len(collect_node_cases())),
                                  encoding="utf-8")
        print(f"wrote {args.write_doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
