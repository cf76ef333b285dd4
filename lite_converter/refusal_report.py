"""How a refusal names what it refuses: one line per kind of problem, with a count and a few names.

Shared by the ONNX support check (passes/support.py) and the TFLite frontend, so that a model with
73 nodes of one unsupported op gets one line, not 73, whichever format it came in.
"""

from __future__ import annotations

import collections
from collections.abc import Iterable

MAX_NAMES = 5


def names_text(names: list[str], limit: int = MAX_NAMES) -> str:
    """'a', 'b', 'c' and 4 more."""
    shown = ", ".join(f"'{n}'" for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def grouped_lines(pairs: Iterable[tuple[str, str]], what: str = "node") -> list[str]:
    """One line per key of (key, name) pairs, in key order: 'KEY: 3 node(s) 'a', 'b', 'c''."""
    groups: dict[str, list[str]] = collections.defaultdict(list)
    for key, name in pairs:
        groups[key].append(name)
    return [f"{key}: {len(names)} {what}(s) {names_text(names)}" for key, names in sorted(groups.items())]
