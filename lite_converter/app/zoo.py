"""Real models that nobody here wrote: the PaddleOCR mobile models, fetched into a local cache.

The models come from the PyPI wheel ``rapidocr_onnxruntime==1.4.4``, which ships PaddleOCR's det,
rec and cls models already converted to ONNX (weights in Constant nodes, dynamic H/W, opset 11-12).
They are fetched with pip (``pip download --no-deps``) rather than a hand-written HTTP client so that
the user's pip configuration (index mirrors, proxies, certificates) applies, and each extracted file
is checked against the sha256 recorded here so that a changed or corrupted download is refused.

The cache directory is ``$LITE_CACHE_DIR`` (default ``~/.cache/lite-edge``); a file already in the
cache with the right hash is reused without touching the network.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

WHEEL_REQUIREMENT = "rapidocr_onnxruntime==1.4.4"
WHEEL_MODEL_FOLDER = "rapidocr_onnxruntime/models"
CACHE_SUBDIR = "paddleocr"


class ZooError(RuntimeError):
    """A model cannot be fetched or does not match its recorded hash."""


@dataclasses.dataclass(frozen=True)
class ZooModel:
    """One model of the zoo: its file in the wheel, its hash and the input size it is usually fed."""

    key: str
    filename: str
    sha256: str
    input_shape: tuple[int, ...]
    description: str


PADDLEOCR_MODELS: dict[str, ZooModel] = {
    model.key: model
    for model in [
        ZooModel(
            "det",
            "ch_PP-OCRv4_det_infer.onnx",
            "d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9",
            (1, 3, 640, 640),
            "PP-OCRv4 text detection (DB head, dynamic N/H/W)",
        ),
        ZooModel(
            "rec",
            "ch_PP-OCRv4_rec_infer.onnx",
            "48fc40f24f6d2a207a2b1091d3437eb3cc3eb6b676dc3ef9c37384005483683b",
            (1, 3, 48, 320),
            "PP-OCRv4 text recognition (SVTR-LCNet, CTC over 6625 classes, dynamic W)",
        ),
        ZooModel(
            "cls",
            "ch_ppocr_mobile_v2.0_cls_infer.onnx",
            "e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c",
            (1, 3, 48, 192),
            "PP-OCR mobile v2.0 text direction classifier (0 or 180 degrees)",
        ),
    ]
}


def cache_dir() -> Path:
    """The root of the local cache: ``$LITE_CACHE_DIR`` or ``~/.cache/lite-edge``."""
    configured = os.environ.get("LITE_CACHE_DIR")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "lite-edge"


def sha256_of(path: Path) -> str:
    """Hex sha256 of a file, read in chunks (the rec model is 11 MB)."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def cached_path(key: str) -> Path:
    """Where the model ``key`` lives in the cache (whether or not it is there yet)."""
    return cache_dir() / CACHE_SUBDIR / PADDLEOCR_MODELS[key].filename


def _is_valid(path: Path, model: ZooModel) -> bool:
    return path.is_file() and sha256_of(path) == model.sha256


def download_wheel(requirement: str, directory: Path, platform: str | None = None,
                   python_version: str | None = None) -> Path:
    """Downloads the wheel of ``requirement`` with pip (no dependencies) and returns its path; with
    ``platform`` / ``python_version`` that wheel whatever the running interpreter (files only)."""
    target = [] if platform is None else ["--platform", platform]
    target += [] if python_version is None else ["--python-version", python_version]
    command = [sys.executable, "-m", "pip", "download", requirement, "--no-deps", "--only-binary=:all:",
               *target, "--disable-pip-version-check", "-q", "-d", str(directory)]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    wheels = sorted(directory.glob("*.whl"))
    if result.returncode != 0 or not wheels:
        raise ZooError(f"could not download {requirement} with pip "
                       f"(exit {result.returncode}):\n{result.stderr.strip()[-2000:]}")
    return wheels[0]


def _extract(wheel: Path, models: list[ZooModel]) -> None:
    """Copies the models out of the wheel into the cache, verifying each hash before it lands."""
    target_dir = cache_dir() / CACHE_SUBDIR
    target_dir.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel) as archive:
        for model in models:
            data = archive.read(f"{WHEEL_MODEL_FOLDER}/{model.filename}")
            actual = hashlib.sha256(data).hexdigest()
            if actual != model.sha256:
                raise ZooError(f"{model.filename} from {wheel.name} has sha256 {actual}, "
                               f"expected {model.sha256}; refusing to use it")
            # Write then rename, so a concurrent reader never sees a half-written model.
            partial = target_dir / f".{model.filename}.{os.getpid()}.partial"
            partial.write_bytes(data)
            os.replace(partial, target_dir / model.filename)


def fetch(key: str) -> Path:
    """The path of PaddleOCR model ``key`` ("det", "rec" or "cls"), downloading it on first use."""
    return fetch_all([key])[key]


def fetch_all(keys: list[str] | None = None) -> dict[str, Path]:
    """Paths of the requested PaddleOCR models (all three by default), one download for the missing."""
    keys = list(PADDLEOCR_MODELS) if keys is None else keys
    unknown = [key for key in keys if key not in PADDLEOCR_MODELS]
    if unknown:
        raise ZooError(f"unknown zoo model(s) {unknown}; known: {sorted(PADDLEOCR_MODELS)}")
    wanted = [PADDLEOCR_MODELS[key] for key in keys]
    missing = [model for model in wanted if not _is_valid(cached_path(model.key), model)]
    if missing:
        with tempfile.TemporaryDirectory(prefix="lite-zoo-") as scratch:
            _extract(download_wheel(WHEEL_REQUIREMENT, Path(scratch)), missing)
    return {key: cached_path(key) for key in keys}
