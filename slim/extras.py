"""The training half of slim (pruning, sensitivity, distillation) needs the ``torch`` extra; the
post-training half and the ``lite`` command must not pay torch's import (seconds) nor need it.

So ``slim`` and ``slim.compress`` reach the training half through ``training_half(module)`` on first
use, which imports it by name (importlib: the only lazy project import, and for this reason) and
says how to install torch when it is missing.
"""

from __future__ import annotations

import importlib
from types import ModuleType

INSTALL_HINT = "pip install 'lite-edge[torch]' (torch==2.13.0, CPU)"


class MissingExtraError(ImportError):
    """The torch extra is not installed."""


def training_half(module: str) -> ModuleType:
    """``module`` (e.g. "slim.pruning.pruner"), imported now; MissingExtraError without torch."""
    try:
        importlib.import_module("torch")
    except ModuleNotFoundError as missing:
        raise MissingExtraError(f"pruning, sensitivity analysis and fine-tuning need torch: {INSTALL_HINT}") \
            from missing
    return importlib.import_module(module)
