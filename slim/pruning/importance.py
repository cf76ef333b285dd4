"""Importance criteria: one score per unit of a group (higher = keep).

A criterion is any callable ``criterion(dependency_graph, group) -> np.ndarray`` of ``len(group.units)``
scores, so users plug in their own. The built-in ones read the weight slices a unit would remove
(slim/pruning/weights.py):

* ``l1`` / ``l2``: magnitude of every slice the unit removes (producers' filters, consumers' input
  columns, per-channel parameters), each layer's norms divided by their mean so a wide layer does
  not drown a narrow one (the group importance of Torch-Pruning's DepGraph);
* ``fpgm``: distance of each producer filter to the others (He et al., geometric median: a filter
  close to all others is redundant), as PaddleSlim's ``geometry_median``;
* ``bn_scale``: |gamma| of the group's BatchNorms (Network Slimming; PaddleSlim ``bn_scale``); groups
  without a BatchNorm (folded by the exporter) fall back to ``l1``;
* ``taylor``: first-order Taylor expansion with data (slim/pruning/taylor.py).

Scores are compared across groups after dividing by the group's mean (``normalized``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from slim.pruning.groups import DependencyGraph, Group
from slim.pruning.weights import IN, OUT, PARAM, WeightAxis

Criterion = Callable[[DependencyGraph, Group], np.ndarray]


def _layer_vectors(dep: DependencyGraph, group: Group, roles: tuple[str, ...],
                   reduce: Callable[[np.ndarray], np.ndarray], ops: tuple[str, ...] | None = None,
                   ) -> list[tuple[WeightAxis, np.ndarray]]:
    """(weight axis, per-index vector) for every constant slice the group's axes cut."""
    axes = set(group.axes)
    result = []
    for node in dep.view.graph.nodes:
        if ops is not None and node.op_type not in ops:
            continue
        for wa in dep.weight_axes(node):
            if wa.axis not in axes or wa.role not in roles:
                continue
            value = np.asarray(dep.view.constant(node.inputs[wa.input_index]), dtype=np.float64)
            rows = np.moveaxis(value, wa.const_axis, 0).reshape(value.shape[wa.const_axis], -1)
            result.append((wa, reduce(rows)))
    return result


def unit_sums(group: Group, vectors: list[tuple[WeightAxis, np.ndarray]],
              normalize: bool = True) -> np.ndarray:
    """Per unit: the sum over layers of the vector entries at the unit's indices."""
    scores = np.zeros(len(group.units))
    for wa, vector in vectors:
        scale = float(np.mean(vector)) if normalize else 1.0
        if normalize and scale <= 0:
            continue
        for k, unit in enumerate(group.units):
            indices = unit.indices.get(wa.axis)
            if indices is None:
                continue
            if wa.per_group:
                indices = np.unique(indices % wa.per_group)
            scores[k] += float(np.sum(vector[indices])) / scale
    return scores


def l1(dep: DependencyGraph, group: Group) -> np.ndarray:
    return unit_sums(group, _layer_vectors(dep, group, (OUT, IN, PARAM), lambda r: np.abs(r).sum(axis=1)))


def l2(dep: DependencyGraph, group: Group) -> np.ndarray:
    return unit_sums(group, _layer_vectors(dep, group, (OUT, IN, PARAM), lambda r: np.square(r).sum(axis=1)))


def _geometric_median_distance(rows: np.ndarray) -> np.ndarray:
    squares = np.square(rows).sum(axis=1)
    distances = np.sqrt(np.maximum(squares[:, None] + squares[None, :] - 2.0 * rows @ rows.T, 0.0))
    return distances.sum(axis=1)


def fpgm(dep: DependencyGraph, group: Group) -> np.ndarray:
    vectors = _layer_vectors(dep, group, (OUT,), _geometric_median_distance,
                             ops=("Conv", "ConvTranspose", "Gemm", "MatMul"))
    return unit_sums(group, [(wa, v) for wa, v in vectors if wa.input_index in (0, 1)])  # not biases


def bn_scale(dep: DependencyGraph, group: Group) -> np.ndarray:
    vectors = [(wa, v) for wa, v in _layer_vectors(dep, group, (PARAM,), lambda r: np.abs(r).sum(axis=1),
                                                   ops=("BatchNormalization",)) if wa.input_index == 1]
    return unit_sums(group, vectors) if vectors else l1(dep, group)


CRITERIA: dict[str, Criterion] = {"l1": l1, "l2": l2, "fpgm": fpgm, "bn_scale": bn_scale}


def normalized(scores: np.ndarray) -> np.ndarray:
    """Scores divided by their mean, so groups compare on one scale (all zero stays zero)."""
    mean = float(np.mean(scores)) if len(scores) else 0.0
    return scores / mean if mean > 0 else scores
