"""The explicit, capped list of expected skips (tests/expected_skips.txt), enforced on every session.

A skip hides coverage: a missing build, a model not in the cache or an optional import can silently
turn a test into a no-op that reads like success. So a skip is allowed only when the list names it:
its test id and its reason each match an entry, and that entry has not used up its cap (the number
of skips it may cover). Any other skip, at collection or in a test, is reported as a failure with
its reason; a listed skip that no longer happens is fine. The terminal summary prints every skip
of the session by category, with the kernel variants no machine here can run (``not covered``).

File format: ``[category] what these skips are and why they are acceptable`` starts a category;
``CAP | NODE-ID PATTERN | REASON PATTERN`` lines follow, patterns in fnmatch syntax (``*``, ``?``,
``[seq]``; a literal ``[`` is written ``[[]``), matched against the test's node id and the skip
message. ``#`` starts a comment line.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path

import pytest

LIST_PATH = Path(__file__).with_name("expected_skips.txt")


@dataclass
class Entry:
    """One line of the list: at most ``cap`` skips whose node id and reason match the patterns."""

    category: str
    cap: int
    node: str
    reason: str
    line: int
    used: int = 0

    def matches(self, node_id: str, reason: str) -> bool:
        return fnmatch.fnmatchcase(node_id, self.node) and fnmatch.fnmatchcase(reason, self.reason)


def parse(text: str, name: str = LIST_PATH.name) -> tuple[dict[str, str], list[Entry]]:
    """({category: description}, entries) of the list's text; malformed lines raise ValueError."""
    categories: dict[str, str] = {}
    entries: list[Entry] = []
    category = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and "]" in line:
            category, _, description = line[1:].partition("]")
            categories[category] = description.strip()
            continue
        fields = [part.strip() for part in line.split("|")]
        if category is None or len(fields) != 3 or not fields[0].isdigit() or int(fields[0]) < 1:
            raise ValueError(f"{name}:{number}: expected 'CAP | NODE-ID PATTERN | REASON PATTERN' "
                             f"under a [category] line, got {raw!r}")
        entries.append(Entry(category, int(fields[0]), fields[1], fields[2], number))
    return categories, entries


@dataclass
class Seen:
    node_id: str
    reason: str
    entry: Entry | None


NOT_COVERED = pytest.StashKey[list[str]]()


def record_not_covered(config: pytest.Config, lines: list[str]) -> None:
    """Kernel variants no CPU of this session can run; printed in the skip list as not covered."""
    config.stash.setdefault(NOT_COVERED, []).extend(lines)


class ExpectedSkips:
    """The pytest plugin (registered by tests/conftest.py)."""

    def __init__(self, list_path: Path = LIST_PATH) -> None:
        self.list_name = list_path.name
        self.categories, self.entries = parse(list_path.read_text(), list_path.name)
        self.seen: list[Seen] = []
        self.over_cap = 0

    def judge(self, node_id: str, reason: str) -> Entry | None:
        """The entry that allows this skip, counted; None when none does (or its cap is used up)."""
        for entry in self.entries:
            if entry.matches(node_id, reason) and entry.used < entry.cap:
                entry.used += 1
                self.seen.append(Seen(node_id, reason, entry))
                return entry
        self.seen.append(Seen(node_id, reason, None))
        return None

    def refuse(self, report: pytest.TestReport | pytest.CollectReport, reason: str) -> None:
        capped = [entry for entry in self.entries if entry.matches(report.nodeid, reason)]
        why = (f"the entry on line {capped[0].line} allows {capped[0].cap} and is used up" if capped
               else "no entry matches")
        report.outcome = "failed"
        report.longrepr = (f"unexpected skip ({why} in {self.list_name}): {reason}\n"
                           "A skip hides coverage: build or fetch what the test needs, or list the skip "
                           "with its reason if it is really expected.")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        outcome = yield
        report = outcome.get_result()
        if report.skipped and not hasattr(report, "wasxfail"):
            reason = skip_reason(report)
            if self.judge(report.nodeid, reason) is None:
                self.refuse(report, reason)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_make_collect_report(self, collector: pytest.Collector):
        outcome = yield
        report = outcome.get_result()
        if report.skipped:
            reason = skip_reason(report)
            if self.judge(report.nodeid, reason) is None:
                self.refuse(report, reason)

    # Under pytest-xdist (`make test` runs the main suite in two workers) each worker judges its own
    # skips and fails unlisted ones; it hands what it saw to the controller, which prints the one
    # list and holds the caps over the whole session.
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        workeroutput = getattr(session.config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput["expected_skips"] = [
                [seen.node_id, seen.reason, seen.entry.line if seen.entry else 0] for seen in self.seen]
            workeroutput["not_covered"] = list(session.config.stash.get(NOT_COVERED, []))
        elif self.over_cap:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:
        output = getattr(node, "workeroutput", {})
        by_line = {entry.line: entry for entry in self.entries}
        for node_id, reason, line in output.get("expected_skips", []):
            if any(seen.node_id == node_id for seen in self.seen):
                continue  # a skip at collection: every worker collects every file
            entry = by_line.get(line)
            if entry is not None and entry.used >= entry.cap:
                self.over_cap += 1  # within its worker's cap, over the session's
                entry = None
            elif entry is not None:
                entry.used += 1
            self.seen.append(Seen(node_id, reason, entry))
        record_not_covered(node.config, output.get("not_covered", []))

    def pytest_terminal_summary(self, terminalreporter, exitstatus: int, config: pytest.Config) -> None:
        write = terminalreporter.write_line
        allowed = [seen for seen in self.seen if seen.entry is not None]
        refused = [seen for seen in self.seen if seen.entry is None]
        not_covered = config.stash.get(NOT_COVERED, [])
        if not (self.seen or not_covered):
            return
        terminalreporter.section(f"skips: {len(allowed)} expected, {len(refused)} unexpected (failed)")
        for category, description in self.categories.items():
            members = [seen for seen in allowed if seen.entry.category == category]
            if members:
                write(f"[{category}] {len(members)}: {description}")
                for seen in members:
                    write(f"    {seen.node_id}: {seen.reason[:160]}")
        if not_covered:
            write(f"[kernel variants not covered] {len(not_covered)}: no CPU here (host or qemu) has their "
                  "features; they run on a host that has them")
            for line in not_covered:
                write(f"    {line}")
        for seen in refused:
            write(f"UNEXPECTED SKIP {seen.node_id}: {seen.reason[:300]}", red=True)


def skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    """The message a skip was given ("Skipped: " prefix removed)."""
    longrepr = report.longrepr
    message = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return message.removeprefix("Skipped: ")
