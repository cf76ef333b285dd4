"""Keeps libFuzzer from writing into the repository's regression folders."""

from __future__ import annotations

import sys
from pathlib import Path

REGRESSIONS = Path(__file__).resolve().parent / "regressions"


def regression_folders_named(arguments: list[str]) -> list[str]:
    """The arguments that name tests/fuzz/regressions or a folder under it. libFuzzer writes every new
    input into the first directory it is given, and the regression tests list those folders exactly;
    replaying their files one by one is fine, naming a folder is not."""
    named = []
    for argument in arguments:
        if argument.startswith("-"):
            continue
        path = Path(argument).resolve()
        if path.is_dir() and (path == REGRESSIONS or REGRESSIONS in path.parents):
            named.append(argument)
    return named


def refuse_regression_corpus(arguments: list[str]) -> None:
    """Exits with a message naming the folder when a libFuzzer command line names a regression folder."""
    for argument in regression_folders_named(arguments):
        sys.exit(f"{argument} is a regression folder: libFuzzer would add its new inputs there. "
                 "Pass its files (regressions/TARGET/*) to replay them, or a corpus folder outside "
                 "the repository (make fuzz uses build/fuzz/corpus/TARGET)")
