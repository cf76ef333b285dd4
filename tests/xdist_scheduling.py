"""How `make test` shares the main suite between its pytest-xdist workers (``--dist loadfile``).

A test file is one unit of work, so its module fixtures (converted models, exports) are built once.
The exception is a file of long, independent items (a qemu run each): as one unit it would keep a
worker busy for minutes after the other ran out of work, so each of its items is a unit of its own.
Units go out in collection order, and the workers collect the long files first (the slowest files
of a run on 2 cores, longest first), so the end of the run is many short files that even out both
workers.
"""

from __future__ import annotations

import pytest
from xdist.scheduler import LoadScopeScheduling

# Items that run qemu or other long subprocesses and share no expensive module fixture.
SPLIT_PER_ITEM = frozenset({"tests/test_cross_arm.py"})

# The slowest files, longest first (measured 2026-11-27: together ~60% of the suite's time).
LONG_FIRST = (
    "tests/test_cross_arm.py", "tests/test_prune_groups.py", "tests/test_int8_arm.py",
    "tests/test_int8_default_hard.py", "tests/test_onnx_reader_regressions.py", "tests/test_bad_input_cli.py",
    "tests/test_real_models.py", "tests/test_onnx_node_conformance.py", "tests/test_opencl_backend.py",
    "tests/test_ocr_int8_accuracy.py", "tests/test_nan_propagation.py", "tests/test_torch_ir.py",
)


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def long_files_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """The items of LONG_FIRST's files in its order, then the others in their order (a stable sort)."""
    rank = {path: index for index, path in enumerate(LONG_FIRST)}
    return sorted(items, key=lambda item: rank.get(file_of(item.nodeid), len(rank)))


class FileScheduling(LoadScopeScheduling):
    """Per-file units (per-item for SPLIT_PER_ITEM), handed out in the workers' collection order."""

    def __init__(self, config: pytest.Config, log=None) -> None:
        super().__init__(config, log)
        config.option.loadscopereorder = False  # keep the long files first, not the most numerous

    def _split_scope(self, nodeid: str) -> str:
        path = file_of(nodeid)
        return nodeid if path in SPLIT_PER_ITEM else path
