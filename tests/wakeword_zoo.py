"""microWakeWord's streaming keyword spotters as shipped in the PyPI wheel ``pymicro-wakeword==2.5.0``.

Each is a full-integer int8 .tflite that keeps its state in resource variables (VAR_HANDLE /
READ_VARIABLE / ASSIGN_VARIABLE, zeros assigned by a CALL_ONCE init subgraph): per invoke it takes
3 new feature frames (int8 [1, 3, 40]) and returns a uint8 probability. Fetched with
``pip download --no-deps`` into ``$LITE_CACHE_DIR/pymicro-wakeword``, each file checked against the
sha256 recorded here; ``OfflineError`` when PyPI cannot be reached.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from lite_converter.app.zoo import cache_dir

WHEEL_REQUIREMENT = "pymicro-wakeword==2.5.0"
SHA256 = {
    "okay_nabu.tflite": "d89128c4d16a72de429119fb2254ce46649553c2a24f5dd840175c80d7b9d094",
    "hey_jarvis.tflite": "21a7976add39ee24ec96c63d96b7aaa18e24d1d9824b963e451da8feb4b78b77",
}


class OfflineError(RuntimeError):
    """pip could not download the wheel (no network, or PyPI unreachable)."""


def fetch(name: str) -> Path:
    """The cached model file ``name`` (one of SHA256), downloading the wheel once."""
    root = cache_dir() / "pymicro-wakeword"
    target = root / name
    if target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == SHA256[name]:
        return target
    with tempfile.TemporaryDirectory(prefix="lite-wakeword-") as scratch:
        result = subprocess.run(
            [sys.executable, "-m", "pip", "download", WHEEL_REQUIREMENT, "--no-deps", "--only-binary=:all:",
             "--disable-pip-version-check", "-q", "-d", scratch],
            capture_output=True, text=True, check=False,
        )
        wheels = sorted(Path(scratch).glob("*.whl"))
        if result.returncode != 0 or not wheels:
            raise OfflineError(f"could not download {WHEEL_REQUIREMENT}: {result.stderr.strip()[-300:]}")
        with zipfile.ZipFile(wheels[0]) as archive:
            for member, digest in SHA256.items():
                data = archive.read(f"pymicro_wakeword/models/{member}")
                if hashlib.sha256(data).hexdigest() != digest:
                    raise RuntimeError(f"{member} in {wheels[0].name} does not have the recorded sha256")
                root.mkdir(parents=True, exist_ok=True)
                partial = root / f".{member}.{os.getpid()}.partial"
                partial.write_bytes(data)
                os.replace(partial, root / member)
    return target
