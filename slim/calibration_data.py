"""Calibration data: whatever the user has, turned into a checked list of {input name: array} batches.

Accepted forms (``data=`` of slim.compress):

* a numpy array (single-input models): samples stacked on axis 0, cut into batches of the model's
  static batch size (or of ``DEFAULT_BATCH`` when the batch dim is dynamic);
* an iterable of arrays (single-input models) or of dicts {input name: array}, one batch each;
* a directory of ``.npy`` files (single-input models, one batch per file) and/or ``.npz`` files (one
  batch per file, arrays named like the inputs; a single unnamed array is fine for one input).

Everything is checked before calibration starts, so a wrong shape or a NaN in the last file costs
nothing: the error names the batch and the input.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from lite_converter.ir import Dim

DEFAULT_BATCH = 16


class CalibrationDataError(ValueError):
    """The calibration data does not fit the model; the message says which batch and input."""


@dataclasses.dataclass
class InputSpec:
    """A model input as calibration needs it: name, numpy dtype, shape (ints static, else dynamic)."""

    name: str
    dtype: np.dtype
    shape: list[Dim] | None


CalibrationInput = np.ndarray | Iterable[np.ndarray] | Iterable[Mapping[str, np.ndarray]] | str | os.PathLike


def load_batches(data: CalibrationInput, inputs: list[InputSpec]) -> list[dict[str, np.ndarray]]:
    """The batches of ``data``, each checked against ``inputs``; CalibrationDataError otherwise."""
    if isinstance(data, (str, os.PathLike)):
        raw = _from_directory(Path(data), inputs)
    elif isinstance(data, np.ndarray):
        raw = _from_array(data, inputs)
    elif isinstance(data, Mapping):
        raw = [data]
    else:
        try:
            raw = list(data)
        except TypeError:
            raise CalibrationDataError(
                f"calibration data of type {type(data).__name__} is not an array, an iterable of batches "
                "or a directory") from None
    if not raw:
        raise CalibrationDataError("the calibration data is empty: give at least one batch")
    return [_checked_batch(i, batch, inputs) for i, batch in enumerate(raw)]


def _single_input(inputs: list[InputSpec], what: str) -> InputSpec:
    if len(inputs) != 1:
        names = [spec.name for spec in inputs]
        raise CalibrationDataError(f"{what} works for single-input models; this one has inputs {names}: "
                                   "give dicts {input name: array} (or .npz files with those names)")
    return inputs[0]


def _from_array(data: np.ndarray, inputs: list[InputSpec]) -> list[Mapping[str, np.ndarray] | np.ndarray]:
    spec = _single_input(inputs, "a plain array")
    if data.ndim == 0 or data.shape[0] == 0:
        raise CalibrationDataError(f"input '{spec.name}': the calibration array {data.shape} has no samples")
    static_batch = spec.shape[0] if spec.shape else None
    batch = static_batch if isinstance(static_batch, int) and static_batch > 0 else DEFAULT_BATCH
    return [data[start:start + batch] for start in range(0, data.shape[0], batch)]


def _from_directory(path: Path, inputs: list[InputSpec]) -> list[Mapping[str, np.ndarray] | np.ndarray]:
    if not path.is_dir():
        raise CalibrationDataError(f"calibration data directory {path} does not exist")
    files = sorted(p for p in path.iterdir() if p.suffix in (".npy", ".npz"))
    if not files:
        raise CalibrationDataError(f"calibration data directory {path} has no .npy or .npz files")
    batches: list[Mapping[str, np.ndarray] | np.ndarray] = []
    for file in files:
        try:
            loaded = np.load(file, allow_pickle=False)
        except (OSError, ValueError) as error:
            raise CalibrationDataError(f"cannot read calibration file {file}: {error}") from None
        if isinstance(loaded, np.ndarray):
            _single_input(inputs, f"a .npy file ({file.name})")
            batches.append(loaded)
        else:
            arrays = {key: loaded[key] for key in loaded.files}
            if len(arrays) == 1 and len(inputs) == 1 and inputs[0].name not in arrays:
                arrays = {inputs[0].name: next(iter(arrays.values()))}
            batches.append(arrays)
    return batches


def _check_finite(where: str, name: str, value: np.ndarray) -> None:
    """NaN or Inf in calibration data would set ranges (and so scales) from no real activation: the
    result would be a model whose error exceeds its signal. Refused with where the first one is."""
    finite = np.isfinite(value)
    if finite.all():
        return
    first = tuple(int(i) for i in np.argwhere(~finite)[0])
    nan, inf = int(np.isnan(value).sum()), int(np.isinf(value).sum())
    raise CalibrationDataError(f"{where}, input '{name}': {nan} NaN and {inf} Inf values (the first at index "
                               f"{list(first)}: {value[first]}); calibration needs finite data")


def _checked_batch(index: int, batch: object, inputs: list[InputSpec]) -> dict[str, np.ndarray]:
    where = f"calibration batch {index}"
    if isinstance(batch, Mapping):
        names = {spec.name for spec in inputs}
        unknown, missing = sorted(set(batch) - names), sorted(names - set(batch))
        if unknown or missing:
            raise CalibrationDataError(f"{where}: unknown inputs {unknown}, missing inputs {missing}; "
                                       f"the model's inputs are {sorted(names)}")
        values = dict(batch)
    else:
        spec = _single_input(inputs, "a batch given as a bare array")
        values = {spec.name: batch}
    checked: dict[str, np.ndarray] = {}
    for spec in inputs:
        value = values[spec.name]
        if not isinstance(value, np.ndarray):
            raise CalibrationDataError(f"{where}, input '{spec.name}': expected a numpy array, got "
                                       f"{type(value).__name__}")
        if value.dtype != spec.dtype:
            raise CalibrationDataError(f"{where}, input '{spec.name}': dtype {value.dtype}, the model "
                                       f"expects {spec.dtype} (convert with .astype(np.{spec.dtype}))")
        if value.size == 0:
            raise CalibrationDataError(f"{where}, input '{spec.name}': empty array of shape {value.shape}")
        if value.dtype.kind in "fc":
            _check_finite(where, spec.name, value)
        if spec.shape is not None:
            mismatch = len(spec.shape) != value.ndim or any(
                isinstance(d, int) and d >= 0 and d != v
                for d, v in zip(spec.shape, value.shape, strict=True))
            if mismatch:
                expected = "[" + ", ".join(str(d) if isinstance(d, int) else "?" for d in spec.shape) + "]"
                raise CalibrationDataError(f"{where}, input '{spec.name}': shape {list(value.shape)} "
                                           f"does not fit the model's {expected}")
        checked[spec.name] = np.ascontiguousarray(value)
    return checked
