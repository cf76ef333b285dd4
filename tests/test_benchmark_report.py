"""`make bench` rewrites the generated top of benchmarks/RESULTS.md and must keep the sections measured by
hand below its marker: they hold per-layer analyses and issue figures that no script regenerates."""

from __future__ import annotations

from pathlib import Path

from benchmarks.run_benchmarks import KEEP_MARKER, kept_sections
from lite_converter.atomic_write import write_atomically

REPO = Path(__file__).resolve().parents[1]


def test_the_report_in_the_tree_has_the_marker_once() -> None:
    text = (REPO / "benchmarks" / "RESULTS.md").read_text()
    assert text.count(KEEP_MARKER) == 1
    assert "## Sections measured by hand" in text.split(KEEP_MARKER, 1)[1]


def test_a_rerun_keeps_what_follows_the_marker_and_replaces_what_precedes_it(tmp_path: Path) -> None:
    report = tmp_path / "RESULTS.md"
    hand = f"{KEEP_MARKER}\n\n## Sections measured by hand\n\n### a layer study\n\n| a | b |\n"
    report.write_text("# Benchmarks\n\nold generated table\n\n" + hand)

    write_atomically(report, ("# Benchmarks\n\nnew generated table\n" + kept_sections(report)).encode())

    text = report.read_text()
    assert "old generated table" not in text
    assert text.startswith("# Benchmarks\n\nnew generated table\n")
    assert text.endswith(hand)
    assert not list(tmp_path.glob("*.tmp"))


def test_a_report_without_the_marker_or_without_a_file_keeps_nothing(tmp_path: Path) -> None:
    assert kept_sections(tmp_path / "missing.md") == ""
    plain = tmp_path / "plain.md"
    plain.write_text("# Benchmarks\n\nno hand sections\n")
    assert kept_sections(plain) == ""
