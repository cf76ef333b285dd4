"""The expected-skip check (tests/expected_skips.py): the committed list parses, an entry covers only
what its patterns match and no more skips than its cap, and a pytest session with an unlisted skip
fails while one with only listed skips passes (run in a scratch directory)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.expected_skips import LIST_PATH, ExpectedSkips, parse

REPO = Path(__file__).resolve().parents[1]


def test_the_committed_list_parses_into_capped_entries():
    categories, entries = parse(LIST_PATH.read_text())
    assert entries and all(entry.cap >= 1 and entry.category in categories for entry in entries)
    patterns = [(entry.node, entry.reason) for entry in entries]
    assert len(patterns) == len(set(patterns)), "an entry is listed twice"


def test_malformed_lines_are_refused():
    with pytest.raises(ValueError, match="under a \\[category\\] line"):
        parse("1 | tests/x.py::t | why\n")
    with pytest.raises(ValueError, match="list.txt:2"):
        parse("[c] d\n0 | tests/x.py::t | why\n", "list.txt")


def test_an_entry_matches_node_and_reason_up_to_its_cap(tmp_path: Path):
    listing = tmp_path / "list.txt"
    listing.write_text("[peers] not installed here\n2 | tests/a.py::t[[]*] | * not installed\n")
    plugin = ExpectedSkips(listing)
    assert plugin.judge("tests/a.py::t[x]", "mnn not installed") is not None
    assert plugin.judge("tests/a.py::t[y]", "ncnn installed badly") is None  # reason differs
    assert plugin.judge("tests/b.py::t[x]", "mnn not installed") is None  # another test
    assert plugin.judge("tests/a.py::t[z]", "ncnn not installed") is not None
    assert plugin.judge("tests/a.py::t[w]", "tvm not installed") is None  # the cap of 2 is used up


SCRATCH_CONFTEST = '''
from pathlib import Path
import sys
sys.path.insert(0, {repo!r})
from tests.expected_skips import ExpectedSkips

def pytest_configure(config):
    config.pluginmanager.register(ExpectedSkips(Path(__file__).with_name("list.txt")), "expected_skips")
'''
SCRATCH_TESTS = '''
import pytest

def test_listed():
    pytest.skip("listed reason")

def test_runs():
    assert 1 + 1 == 2
'''


def run_scratch_session(directory: Path, listing: str, *args: str,
                        files: tuple[str, ...] = ("test_scratch.py",)) -> subprocess.CompletedProcess:
    (directory / "conftest.py").write_text(SCRATCH_CONFTEST.format(repo=str(REPO)))
    for name in files:
        (directory / name).write_text(SCRATCH_TESTS)
    (directory / "list.txt").write_text(listing)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args, str(directory)]
    return subprocess.run(command, cwd=directory, capture_output=True, text=True, timeout=120)


def test_a_session_with_an_unlisted_skip_fails(tmp_path: Path):
    listed = run_scratch_session(tmp_path, "[c] why\n1 | test_scratch.py::test_listed | listed reason\n")
    assert listed.returncode == 0, listed.stdout
    assert "skips: 1 expected, 0 unexpected" in listed.stdout and "1 passed, 1 skipped" in listed.stdout
    unlisted = run_scratch_session(tmp_path, "[c] why\n1 | test_scratch.py::test_other | listed reason\n")
    assert unlisted.returncode == 1, unlisted.stdout
    assert "unexpected skip (no entry matches in list.txt): listed reason" in unlisted.stdout
    assert "1 failed, 1 passed" in unlisted.stdout


def test_xdist_workers_report_their_skips_to_one_list_with_session_wide_caps(tmp_path: Path):
    """`make test` runs the main suite in pytest-xdist workers: the controller prints every worker's
    skips, a cap holds over the whole session, not per worker, and a module skipped at collection
    (which every worker collects) counts once."""
    module_skip = 'import pytest\npytest.skip("not here", allow_module_level=True)\n'
    (tmp_path / "test_module_skip.py").write_text(module_skip)
    files = ("test_one.py", "test_two.py")
    listing = "[c] why\n{cap} | test_*.py::test_listed | listed reason\n1 | test_module_skip.py | not here\n"
    xdist = ("-n", "2", "--dist", "loadfile")
    allowed = run_scratch_session(tmp_path, listing.format(cap=2), *xdist, files=files)
    assert allowed.returncode == 0, allowed.stdout
    assert "skips: 3 expected, 0 unexpected" in allowed.stdout
    assert "test_one.py::test_listed: listed reason" in allowed.stdout
    assert "test_two.py::test_listed: listed reason" in allowed.stdout
    over = run_scratch_session(tmp_path, listing.format(cap=1), *xdist, files=files)
    assert over.returncode == 1, over.stdout
    assert "skips: 2 expected, 1 unexpected" in over.stdout and "UNEXPECTED SKIP" in over.stdout
