"""Writes a file so that readers see either the old file or the complete new one, never a part.

The file gets the permissions any new file of the user gets (0666 less the umask), or keeps those of
the file it replaces: the temp file mkstemp makes is private (0600), and renaming it would otherwise
leave every written model unreadable to the rest of the system. Errors name the file the caller
asked for, never the temp file.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile


def write_atomically(path: str | os.PathLike, data: bytes) -> None:
    """Writes ``data`` to ``path`` through a temp file in the same directory, fsync and rename.

    On any failure the temp file is removed and ``path`` is left as it was (absent or old); an
    OSError names ``path``.
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    mode = _mode_for(path)
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
    except OSError as error:
        raise OSError(error.errno, error.strerror, path) from None
    try:
        with os.fdopen(fd, "wb") as f:
            if hasattr(os, "fchmod"):
                os.fchmod(f.fileno(), mode)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException as error:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        if isinstance(error, OSError):
            raise OSError(error.errno, error.strerror, path) from None
        raise
    _fsync_directory(directory)


def _mode_for(path: str) -> int:
    """The permission bits of the file being replaced, else 0666 less the process umask."""
    with contextlib.suppress(OSError):
        return stat.S_IMODE(os.stat(path).st_mode)
    return 0o666 & ~_umask()


def _umask() -> int:
    """The process umask: read from /proc where there is one (setting it to read it races threads)."""
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    current = os.umask(0o022)
    os.umask(current)
    return current


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
