"""Writes a file so that readers see either the old file or the complete new one, never a part."""

from __future__ import annotations

import contextlib
import os
import tempfile


def write_atomically(path: str | os.PathLike, data: bytes) -> None:
    """Writes ``data`` to ``path`` through a temp file in the same directory, fsync and rename.

    On any failure the temp file is removed and ``path`` is left as it was (absent or old).
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    _fsync_directory(directory)


def _fsync_directory(directory: str) -> None:
    """Makes the rename itself durable; not every platform/filesystem allows it, which is fine."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
