"""Per-op conformance against ONNX's own node test cases (see tests/onnx_node_cases.py).

Each claimed case is its own test: a pass, a skip when the support check refuses it (shown as
skipped with the converter's message, never as a pass), a strict expected failure when
docs/CONFORMANCE.md lists it as known, and a failure otherwise. The last test asserts the aggregate:
at least 95% of the counted (not refused) cases pass.
"""

from __future__ import annotations

import pytest

from tests import onnx_node_cases

REQUIRED_PASS_RATE = 0.95

CLAIMED = onnx_node_cases.claimed_cases()
KNOWN_FAILURES = onnx_node_cases.read_known_failures()


def test_converter_claims_ops_with_node_cases():
    """Guards the parametrization below against silently testing nothing."""
    assert len(CLAIMED) >= 100, f"only {len(CLAIMED)} ONNX node cases use claimed op types"


@pytest.mark.parametrize("case_name", [case.name for case in CLAIMED])
def test_node_case(case_name: str, request: pytest.FixtureRequest):
    if case_name in KNOWN_FAILURES:
        request.applymarker(pytest.mark.xfail(reason=KNOWN_FAILURES[case_name], strict=True))
    result = onnx_node_cases.run_case_cached(case_name)
    if result.status == "unsupported":
        pytest.skip(f"refused by the support check: {result.detail}")
    assert result.status == "pass", f"[{result.op_under_test}] {result.detail}"


def test_aggregate_pass_rate():
    results = [onnx_node_cases.run_case_cached(case.name) for case in CLAIMED]
    counted = [r for r in results if r.status != "unsupported"]
    passed = [r for r in counted if r.status == "pass"]
    failed = sorted(f"{r.name}: {r.detail}" for r in counted if r.status == "fail")
    rate = len(passed) / len(counted) if counted else 0.0
    assert counted, "every claimed case was refused by the support check"
    assert rate >= REQUIRED_PASS_RATE, (
        f"{len(passed)}/{len(counted)} = {rate:.1%} of counted ONNX node cases pass "
        f"(need {REQUIRED_PASS_RATE:.0%}); failures:\n" + "\n".join(failed[:50])
    )
