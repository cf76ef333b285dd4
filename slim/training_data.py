"""Training data for pruning, fine-tuning and distillation: inputs, optionally with labels.

Accepted forms (``data=`` of slim.prune / slim.compress with a prune config):

* an array of samples stacked on axis 0 (single-input models), cut into shuffled batches of
  ``batch_size`` every epoch; ``(inputs, labels)`` as a *tuple* of two arrays adds labels;
* any form slim.calibration_data accepts (a list of batches, arrays or dicts; a directory of
  .npy / .npz files), each batch optionally a ``(inputs, labels)`` tuple;
* a callable returning such an iterable afresh (for data too large to hold: called once per epoch).

Everything is checked against the model's inputs before any work (slim.calibration_data's
checks and messages); labels are passed to the user's task loss untouched.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping

import numpy as np

from slim.calibration_data import CalibrationDataError, InputSpec, load_batches

Feeds = dict[str, np.ndarray]
Batch = tuple[Feeds, object]


def _split_labels(batch: object) -> tuple[object, object]:
    if isinstance(batch, tuple) and len(batch) == 2:
        return batch[0], batch[1]
    return batch, None


class TrainingData:
    """The user's data as checked batches of (feeds, labels or None)."""

    def __init__(self, data: object, specs: list[InputSpec], batch_size: int = 32, seed: int = 0) -> None:
        if data is None:
            raise CalibrationDataError("no data: pruning, sensitivity and fine-tuning need input samples "
                                       "(an array, a list of batches or a directory of .npy/.npz files)")
        self.specs = specs
        self.batch_size = batch_size
        self._rng = np.random.default_rng(seed)
        self._factory: Callable[[], Iterable[object]] | None = None
        self._arrays: tuple[np.ndarray, np.ndarray | None] | None = None
        self._batches: list[Batch] = []
        if callable(data) and not isinstance(data, (np.ndarray, str, os.PathLike)):
            self._factory = data
            self._batches = self._check(list(data()))
        elif isinstance(data, tuple) and len(data) == 2 and all(isinstance(d, np.ndarray) for d in data):
            self._arrays = (data[0], data[1])
            if len(data[0]) != len(data[1]):
                raise CalibrationDataError(f"inputs ({len(data[0])} samples) and labels ({len(data[1])}) "
                                           "differ in length")
        elif isinstance(data, np.ndarray):
            self._arrays = (data, None)
        else:
            raw = data if isinstance(data, (str, os.PathLike, Mapping)) else list(data)  # type: ignore[arg-type]
            self._batches = self._check(raw)
        if self._arrays is not None:
            static = specs[0].shape[0] if specs and specs[0].shape else None
            if isinstance(static, int) and static > 0:  # the model's own batch size
                self.batch_size = static
            load_batches(self._arrays[0][: self.batch_size], specs)

    def _check(self, raw: object) -> list[Batch]:
        if isinstance(raw, (str, os.PathLike, Mapping)):
            return [(feeds, None) for feeds in load_batches(raw, self.specs)]
        pairs = [_split_labels(batch) for batch in raw]  # type: ignore[union-attr]
        feeds = load_batches([inputs for inputs, _ in pairs], self.specs)
        return list(zip(feeds, [labels for _, labels in pairs], strict=True))

    @property
    def has_labels(self) -> bool:
        if self._arrays is not None:
            return self._arrays[1] is not None
        return any(labels is not None for _, labels in self._batches)

    @property
    def num_batches(self) -> int:
        if self._arrays is not None:
            return -(-len(self._arrays[0]) // self.batch_size)
        return len(self._batches)

    def first(self) -> Feeds:
        """The first batch's inputs."""
        return next(self.epoch(shuffle=False))[0]

    def epoch(self, shuffle: bool = True) -> Iterator[Batch]:
        """One pass over the data (arrays reshuffled each call when ``shuffle``)."""
        if self._arrays is not None:
            inputs, labels = self._arrays
            order = self._rng.permutation(len(inputs)) if shuffle else np.arange(len(inputs))
            name = self.specs[0].name
            for start in range(0, len(inputs), self.batch_size):
                index = order[start:start + self.batch_size]
                yield {name: np.ascontiguousarray(inputs[index])}, None if labels is None else labels[index]
            return
        if self._factory is not None and shuffle:
            yield from self._check(list(self._factory()))
            return
        yield from self._batches

    def take(self, count: int) -> list[Batch]:
        """Up to ``count`` batches, in order (for importance, sensitivity and reference outputs)."""
        result = []
        for batch in self.epoch(shuffle=False):
            if len(result) >= count:
                break
            result.append(batch)
        return result
