"""Errors of the runtime, raised with the C API's status code so callers can branch on it."""

from __future__ import annotations

from enum import IntEnum


class Status(IntEnum):
    """Mirrors ``lite_status`` in lite_runtime.h (and ``lite::Status`` in the core)."""

    OK = 0
    INVALID_ARGUMENT = 1
    IO_ERROR = 2
    INVALID_MODEL = 3
    UNSUPPORTED = 4
    OUT_OF_MEMORY = 5
    SHAPE_ERROR = 6
    VERSION_MISMATCH = 7
    INTERNAL = 8


class LiteError(RuntimeError):
    """A failed runtime call: ``code`` is a :class:`Status`, ``message`` the runtime's explanation."""

    def __init__(self, code: int, message: str) -> None:
        try:
            self.code: Status | int = Status(code)
        except ValueError:
            self.code = code
        self.message = message
        name = self.code.name if isinstance(self.code, Status) else f"status {code}"
        super().__init__(f"{name}: {message}")
