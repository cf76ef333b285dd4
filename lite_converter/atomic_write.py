"""Writes a file so that readers see either the old file or the complete new one, never a part.

The file gets the permissions any new file of the user gets (0666 less the umask), or keeps those of
the file it replaces: the temp file mkstemp makes is private (0600), and renaming it would otherwise
leave every written model unreadable to the rest of the system. Errors name the file the caller
asked for, never the temp file.

The temp file beside the target is named ``.<name>.<pid>.<random>.tmp``. It is removed on any error,
on SIGTERM / SIGHUP / SIGINT while the write runs (when called from the main thread), and, for what
nothing can clean up (SIGKILL, a power cut), by the next write to the same folder: a temp file of
ours whose process no longer exists is stale.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator
from types import FrameType

_CLEANUP_SIGNALS = tuple(s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None))
                         if s is not None)


def write_atomically(path: str | os.PathLike, data: bytes) -> None:
    """Writes ``data`` to ``path`` through a temp file in the same directory, fsync and rename.

    On any failure the temp file is removed and ``path`` is left as it was (absent or old); errors
    name ``path`` (never the temp file).
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise FileNotFoundError(errno.ENOENT, f"cannot write {path}: the output folder does not exist",
                                directory)
    name = os.path.basename(path)
    mode = _mode_for(path)
    remove_stale_temp_files(directory, name)
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{name}.{os.getpid()}.", suffix=".tmp", dir=directory)
    except OSError as err:
        raise OSError(err.errno, f"cannot write the output ({err.strerror})", path) from None
    try:
        with _removed_on_signal(temp):
            with os.fdopen(fd, "wb") as f:
                if hasattr(os, "fchmod"):
                    os.fchmod(f.fileno(), mode)
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(temp, path)
    except BaseException as err:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        if isinstance(err, OSError) and err.filename == temp:
            raise OSError(err.errno, f"cannot write the output ({err.strerror})", path) from None
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


def remove_stale_temp_files(directory: str, name: str) -> list[str]:
    """Removes ``.<name>.<pid>.*.tmp`` files in ``directory`` whose writer process is gone; returns them."""
    pattern = re.compile(rf"^\.{re.escape(name)}\.(\d+)\.[^.]+\.tmp$")
    removed = []
    with contextlib.suppress(OSError), os.scandir(directory) as entries:
        for entry in entries:
            match = pattern.match(entry.name)
            if match is None or _process_alive(int(match.group(1))):
                continue
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
                removed.append(entry.path)
    return removed


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # someone else's live process (or an absurd pid: leave the file alone)
    return True


@contextlib.contextmanager
def _removed_on_signal(temp: str) -> Iterator[None]:
    """While the temp file exists, SIGTERM / SIGHUP remove it and then act as before (handlers can
    only be set from the main thread: elsewhere the stale-file sweep of the next write cleans up)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.getsignal(s) for s in _CLEANUP_SIGNALS}

    def handler(signum: int, frame: FrameType | None) -> None:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        old = previous[signum]
        signal.signal(signum, old)
        if callable(old):
            old(signum, frame)
        else:
            os.kill(os.getpid(), signum)

    for s in _CLEANUP_SIGNALS:
        signal.signal(s, handler)
    try:
        yield
    finally:
        for s, old in previous.items():
            signal.signal(s, old)


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
