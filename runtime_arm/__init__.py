"""Python binding of the .lite runtime (ctypes over the C API in include/lite_runtime.h).

    from runtime_arm import Interpreter
    outputs = Interpreter("model.lite", threads=2).run({"x": array})
"""

from runtime_arm._library import DEFAULT_MAX_MEMORY_BYTES, load_library
from runtime_arm.errors import LiteError, Status
from runtime_arm.interpreter import Interpreter


def runtime_version() -> str:
    """The version string of the loaded liblite_runtime.so."""
    return load_library().lite_version().decode()


__all__ = ["DEFAULT_MAX_MEMORY_BYTES", "Interpreter", "LiteError", "Status", "runtime_version"]
