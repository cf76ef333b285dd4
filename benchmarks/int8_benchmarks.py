"""The int8 part of benchmarks/RESULTS.md: our int8 models against our fp32 ones and the peers' int8.

Per model, in one interleaved loop (lite_converter.app.bench with ``baseline``): our int8 .lite (made by
``slim.compress``), our fp32 .lite, onnxruntime on its own QDQ model (``quantize_static``: u8
activations, s8 per-channel weights) and LiteRT on the full-integer .tflite our exporter writes from the
int8 .lite. Also the int8 file size against the fp32 ONNX, and instructions per inference under qemu.

Calibration uses a few random batches: the figures here are speed and size, which do not depend on the
calibrated ranges (accuracy is measured in tests/test_ocr_int8_accuracy.py and tests/test_slim_accuracy.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from lite_converter.app.bench import BASELINE, BenchConfig, BenchResult, benchmark

CALIBRATION_BATCHES = 4
INT8_PEERS = ("onnxruntime", "litert")


@dataclasses.dataclass(frozen=True)
class Int8Row:
    label: str
    threads: int
    result: BenchResult


def _batches(shape: tuple[int, ...], seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32) for _ in range(CALIBRATION_BATCHES)]


def onnx_bytes(path: Path) -> int:
    """The ONNX model's size with its external data files (the torch exporter writes MODEL.onnx.data)."""
    return path.stat().st_size + sum(p.stat().st_size for p in path.parent.glob(f"{path.name}.data"))


def compress_int8(onnx_path: Path, input_name: str, shape: tuple[int, ...], target: Path) -> Path:
    """Our int8 model: slim's two-line API with the default config (abs_max)."""
    import slim

    slim.compress(onnx_path, target, data=[{input_name: b} for b in _batches(shape)],
                  config=slim.QuantConfig(progress=False), input_shapes={input_name: list(shape)})
    return target


def quantize_qdq(onnx_path: Path, input_name: str, shape: tuple[int, ...], target: Path) -> Path:
    """onnxruntime's own int8 model of the same network (what its users would run)."""
    from onnxruntime import quantization

    class Reader(quantization.CalibrationDataReader):
        def __init__(self) -> None:
            self._items: Iterator[np.ndarray] = iter(_batches(shape))

        def get_next(self) -> dict[str, np.ndarray] | None:
            batch = next(self._items, None)
            return None if batch is None else {input_name: batch}

    quantization.quantize_static(str(onnx_path), str(target), Reader(),
                                 quant_format=quantization.QuantFormat.QDQ,
                                 activation_type=quantization.QuantType.QUInt8,
                                 weight_type=quantization.QuantType.QInt8, per_channel=True)
    return target


def bench_int8(label: str, onnx_path: Path, fp32_lite: Path, input_name: str, shape: tuple[int, ...],
               threads: list[int], runs: int, warmup: int, workdir: Path) -> tuple[list[Int8Row], Path]:
    """Rows for one model and the int8 .lite (for the size table and the instruction counts)."""
    folder = workdir / f"int8-{onnx_path.stem}"
    folder.mkdir(parents=True, exist_ok=True)
    int8_lite = compress_int8(onnx_path, input_name, shape, folder / f"{onnx_path.stem}_int8.lite")
    # The onnxruntime peer runs MODEL.onnx beside MODEL.lite: the QDQ model goes there.
    quantize_qdq(onnx_path, input_name, shape, int8_lite.with_suffix(".onnx"))
    rows = []
    for count in threads:
        print(f"{label} int8 {shape} threads {count} ...", flush=True)
        result = benchmark(BenchConfig(int8_lite, {input_name: list(shape)}, count, warmup, runs,
                                       compare=INT8_PEERS, workdir=folder, baseline=fp32_lite))
        rows.append(Int8Row(label, count, result))
    return rows, int8_lite


def _ratio_cell(result: BenchResult, name: str) -> str:
    row = next(r for r in result.peers if r.name == name)
    ours = result.ours.stats
    if row.stats is None or ours is None:
        return f"not run: {row.unavailable}"
    return f"{row.stats.median * 1e3:.2f} ({row.stats.median / ours.median:.2f})"


def int8_markdown(rows: list[Int8Row], sizes: list[tuple[str, int, int]], counts: list[str]) -> list[str]:
    lines = ["", "## int8", "",
             "Our int8 model is `slim.compress(MODEL.onnx, ..., config=QuantConfig())` (abs_max, "
             f"{CALIBRATION_BATCHES} random calibration batches); `lite fp32` is our fp32 .lite of the same "
             "ONNX, run in the same interleaved loop (`lite bench INT8.lite --baseline FP32.lite`). "
             "onnxruntime runs its own QDQ model (`quantize_static`, QDQ, u8 activations, s8 per-channel "
             "weights), LiteRT the full-integer .tflite our exporter writes from our int8 .lite. Ratios: "
             "that runtime's median over our int8 median (> 1: our int8 is faster); for `lite fp32` it is "
             "the int8 speed-up.", "",
             "| model | threads | lite int8 ms | lite fp32 ms (ratio) | onnxruntime QDQ ms (ratio) | "
             "LiteRT int8 ms (ratio) |", "| --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        stats = row.result.ours.stats
        assert stats is not None
        lines.append(f"| {row.label} | {row.threads} | {stats.median * 1e3:.2f} | "
                     f"{_ratio_cell(row.result, BASELINE)} | {_ratio_cell(row.result, 'onnxruntime')} | "
                     f"{_ratio_cell(row.result, 'litert')} |")
    lines += ["", "| model | fp32 ONNX bytes | int8 .lite bytes | int8 / fp32 ONNX |",
              "| --- | --- | --- | --- |"]
    lines += [f"| {label} | {fp32} | {int8} | {100.0 * int8 / fp32:.1f}% |" for label, fp32, int8 in sizes]
    lines += ["", *counts]
    return lines
