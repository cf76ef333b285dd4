"""The inputs `lite run` and `lite check` feed a model: arrays from an .npz, random data for the rest."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

from lite_converter.app.cli_common import UserError, input_shapes, random_input
from lite_converter.app.inspect_format import shape_text
from lite_converter.reader import LiteModel


def existing_file(path: str) -> Path:
    """``path`` as a Path when it is a regular file (a FIFO would block the reader forever)."""
    result = Path(path)
    if result.exists() and not result.is_file():
        raise UserError(f"{path} is not a regular file")
    if not result.is_file():
        raise UserError(f"no such file: {path}")
    return result


def model_feeds(model: LiteModel, shape_args: list[tuple[str, list[int]]] | None, inputs: str | None,
                seed: int) -> dict[str, np.ndarray]:
    """One array per model input: those of the ``inputs`` .npz, random data of the input's dtype for
    the others (``seed``), at the shapes given (``--input-shape``) or the model's own."""
    shapes = input_shapes(shape_args)
    names = [t.name for t in model.input_tensors]
    unknown = sorted(set(shapes) - set(names))
    if unknown:
        raise UserError(f"--input-shape names unknown input(s) {unknown}; the model's inputs are {names}")
    feeds: dict[str, np.ndarray] = {}
    if inputs:
        feeds = load_npz(existing_file(inputs))
        unknown = sorted(set(feeds) - set(names))
        if unknown:
            raise UserError(f"{inputs} has array(s) {unknown} that are not model inputs {names}")
    rng = np.random.default_rng(seed)
    for tensor in model.input_tensors:
        if tensor.name in feeds:
            continue
        shape = shapes.get(tensor.name, tensor.shape)
        if shape is None or any(d < 0 for d in shape):
            raise UserError(
                f"input '{tensor.name}' has dynamic shape {shape_text(tensor)}: give "
                f"--input-shape {tensor.name}=D0,D1,... or its data with --inputs"
            )
        if tensor.shape is not None and len(shape) != len(tensor.shape):
            raise UserError(
                f"--input-shape {tensor.name}: rank {len(shape)}, the model says {shape_text(tensor)}"
            )
        feeds[tensor.name] = random_input(tensor, list(shape), rng)
    return feeds


def load_npz(path: Path) -> dict[str, np.ndarray]:
    """The arrays of an .npz made with ``np.savez`` (no pickled objects: a file may come from anywhere)."""
    try:
        loaded = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError) as err:
        raise UserError(f"{path} is not an .npz file of arrays (np.savez): {err}") from None
    if not isinstance(loaded, np.lib.npyio.NpzFile):
        raise UserError(f"{path} holds a single array (.npy): give an .npz with one array per input "
                        "name (np.savez('in.npz', x=array))")
    with loaded:
        try:
            return {key: loaded[key] for key in loaded.files}
        except (ValueError, OSError, EOFError, zipfile.BadZipFile) as err:
            raise UserError(f"{path}: cannot read its arrays ({err})") from None
