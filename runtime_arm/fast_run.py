"""Loads the ``_fast_run`` C extension that ``Interpreter.run`` uses when it is there.

``Interpreter.run`` on a tiny model (a wake-word head invokes in ~30 us) spent more in ctypes'
argument conversions than in the graph. The extension sets the inputs, invokes and reads the
outputs in one C call through the same public C API. It is built next to liblite_runtime.so
(runtime_arm/python_ext/) and loaded from beside the library the binding loaded, with that
library's function addresses, so the ASan build's library gets the ASan build's extension. Where it
is missing (a cross-built wheel, no Python headers at build time) ``run`` keeps the ctypes path.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.machinery
import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from runtime_arm.dtypes import NUMPY_BY_LITE
from runtime_arm.errors import LiteError

MODULE_NAME = "_fast_run"


@functools.cache
def load_extension(library_dir: str) -> ModuleType | None:
    """The extension beside the library in ``library_dir`` (one per Python ABI suffix), or None."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = Path(library_dir) / f"{MODULE_NAME}{suffix}"
        if path.is_file():
            spec = importlib.util.spec_from_file_location(f"runtime_arm.{MODULE_NAME}", path)
            if spec is None or spec.loader is None:
                return None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module
    return None


def make_runner(lib: ctypes.CDLL, handle: int, input_names: list[str], output_names: list[str]) -> Any:
    """A ``_fast_run.Runner`` for the interpreter ``handle`` of ``lib``, or None without the extension."""
    module = load_extension(str(Path(lib._name).parent))
    if module is None:
        return None
    addresses = tuple(ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
                      for name in module.FUNCTION_NAMES)
    return module.Runner(addresses, handle, tuple(input_names), tuple(output_names), NUMPY_BY_LITE,
                         np.ndarray, np.empty, LiteError)
