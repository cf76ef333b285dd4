"""Densifies a TFLite sparse constant (the schema's SparsityParameters) at import time.

The format, from the TFLite schema's documentation: a tensor of rank n, optionally cut into blocks
(``block_map[i]`` = the original dim that block dim n+i splits), is stored as n+k dims visited in
``traversal_order``; ``dim_metadata[l]`` describes the l-th dim visited: DENSE (``dense_size``
entries, each present) or SPARSE_CSR (the entries of parent position p are
``array_indices[array_segments[p]:array_segments[p+1]]``, index vectors of int32, uint16 or uint8).
A leaf's position is the index of its value in the tensor's buffer. We walk that tree level by
level with numpy, so a 1M-weight tensor costs a few array operations, and check every count and
index against the shapes first: a malformed or hostile file gets a SparsityError naming what is
wrong, never an out-of-bounds read or an allocation the shape does not justify.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_MAX_DENSE_ELEMENTS = 1 << 28  # 1 GiB of fp32: more than any edge weight; a hostile shape gets no more


class SparsityError(ValueError):
    """The sparsity parameters cannot be read (the message says why)."""


def _index_vector(vector: Any, kind: int, what: str) -> np.ndarray:  # noqa: ANN401 - generated union member
    """The values of an Int32Vector / Uint16Vector / Uint8Vector union member, as int64."""
    if kind not in (1, 2, 3) or vector is None:
        raise SparsityError(f"{what} has index vector type {kind} (int32, uint16 or uint8 are read)")
    values = vector.values if vector.values is not None else []
    return np.asarray(values, np.int64).reshape(-1)


def densify(values: np.ndarray, shape: list[int], sparsity: Any) -> np.ndarray:  # noqa: ANN401 - SparsityParametersT
    """The dense array of ``shape`` whose stored non-zeros are ``values`` (a flat array)."""
    rank = len(shape)
    order = [
        int(v) for v in (sparsity.traversalOrder if sparsity.traversalOrder is not None else range(rank))
    ]
    block_map = [int(v) for v in (sparsity.blockMap if sparsity.blockMap is not None else [])]
    metadata = list(sparsity.dimMetadata or [])
    levels = rank + len(block_map)
    if sorted(order) != list(range(levels)):
        raise SparsityError(f"traversal order {order} is not a permutation of {levels} dims")
    if len(metadata) != levels:
        raise SparsityError(f"{len(metadata)} dim metadata entries for {levels} traversed dims")
    if any(not 0 <= d < rank for d in block_map) or len(set(block_map)) != len(block_map):
        raise SparsityError(f"block map {block_map} does not name distinct dims of a rank-{rank} tensor")
    if any(d <= 0 for d in shape) or int(np.prod(shape, dtype=np.float64)) > _MAX_DENSE_ELEMENTS:
        raise SparsityError(f"dense shape {shape} is empty or too large")
    if sorted(order[:rank]) != list(range(rank)):
        raise SparsityError(f"traversal order {order} visits a block dim before an outer dim")
    # Sizes of the n+k traversed dims (block dims' from their metadata), checked against the shape.
    sizes = [0] * levels
    block_sizes = {}
    for level, dim in enumerate(order):
        if dim >= rank:
            block_sizes[block_map[dim - rank]] = int(metadata[level].denseSize)
    for dim in range(rank):
        block = block_sizes.get(dim, 1)
        if block <= 0 or shape[dim] % block:
            raise SparsityError(f"block size {block} does not divide dim {dim} of size {shape[dim]}")
        sizes[dim] = shape[dim] // block
    for dim, original in enumerate(block_map):
        sizes[rank + dim] = block_sizes[original]
    positions = np.zeros(1, np.int64)
    coordinates = np.zeros((1, levels), np.int64)
    for level, dim in enumerate(order):
        meta = metadata[level]
        if meta.format == 0:  # DENSE
            size = int(meta.denseSize)
            if size != sizes[dim]:
                raise SparsityError(f"dense dim {dim} has size {size}, the shape says {sizes[dim]}")
            if positions.size * size > _MAX_DENSE_ELEMENTS:
                raise SparsityError("the dense dims hold more entries than the tensor")
            children = np.arange(size, dtype=np.int64)
            positions = (positions[:, None] * size + children[None, :]).reshape(-1)
            coordinates = np.repeat(coordinates, size, axis=0)
            coordinates[:, dim] = np.tile(children, coordinates.shape[0] // max(size, 1))
        elif meta.format == 1:  # SPARSE_CSR
            segments = _index_vector(meta.arraySegments, meta.arraySegmentsType, f"dim {dim} segments")
            indices = _index_vector(meta.arrayIndices, meta.arrayIndicesType, f"dim {dim} indices")
            if positions.size and (positions.max() + 1 >= segments.size):
                raise SparsityError(
                    f"dim {dim}: {segments.size} segment entries for {positions.max() + 1} parents"
                )
            if np.any(np.diff(segments) < 0) or (
                segments.size and (segments[0] < 0 or segments[-1] > indices.size)
            ):
                raise SparsityError(f"dim {dim}: segments are not increasing within {indices.size} indices")
            if indices.size and (indices.min() < 0 or indices.max() >= sizes[dim]):
                raise SparsityError(f"dim {dim}: an index is outside 0..{sizes[dim] - 1}")
            starts, counts = segments[positions], segments[positions + 1] - segments[positions]
            total = int(counts.sum())
            owner = np.repeat(np.arange(positions.size), counts)
            offsets = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
            positions = starts[owner] + offsets
            coordinates = coordinates[owner]
            coordinates[:, dim] = indices[positions]
        else:
            raise SparsityError(f"dim {dim} has format {meta.format} (DENSE or SPARSE_CSR are read)")
    if positions.size and positions.max() >= values.size:
        raise SparsityError(f"the tree addresses value {positions.max()} of {values.size} stored")
    dense = np.zeros(shape, values.dtype)
    index = tuple(
        coordinates[:, d] * (block_sizes.get(d, 1))
        + (coordinates[:, rank + block_map.index(d)] if d in block_map else 0)
        for d in range(rank)
    )
    dense[index] = values[positions]
    return dense
