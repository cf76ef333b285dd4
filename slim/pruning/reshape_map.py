"""How a channel axis travels through a reshape: the blocks of axes whose sizes multiply alike.

``[N, T, 360] -> [N, T, 3, 8, 15]`` has blocks ({0}->{0}), ({1}->{1}), ({2}->{2, 3, 4}). A channel
on an axis that is split into several axes is followed along the innermost of them with more than
one value (the head dim of attention, the per-group index of a channel shuffle): the channels with
the same index there are coupled, since removing them keeps every head / group the same size. A
channel on an axis that is merged with others maps to every merged index that holds it (a flatten
before a fully connected layer).
"""

from __future__ import annotations

import math

import numpy as np

Block = tuple[list[int], list[int]]


def reshape_blocks(in_shape: list[int], out_shape: list[int]) -> list[Block] | None:
    """The minimal blocks of (input axes, output axes) with equal products; None if none exist."""
    blocks: list[Block] = []
    i = j = 0
    while i < len(in_shape) or j < len(out_shape):
        ins: list[int] = []
        outs: list[int] = []
        pi = pj = 1
        if i < len(in_shape):
            ins.append(i)
            pi *= in_shape[i]
            i += 1
        if j < len(out_shape):
            outs.append(j)
            pj *= out_shape[j]
            j += 1
        while pi != pj:
            if pi < pj and i < len(in_shape):
                ins.append(i)
                pi *= in_shape[i]
                i += 1
            elif pj < pi and j < len(out_shape):
                outs.append(j)
                pj *= out_shape[j]
                j += 1
            else:
                return None
        blocks.append((ins, outs))
    return blocks


def block_of(blocks: list[Block], axis: int, side: int) -> Block:
    """The block holding ``axis`` on ``side`` (0: input, 1: output)."""
    for block in blocks:
        if axis in block[side]:
            return block
    raise ValueError(f"axis {axis} is in no block")


def follow_axis(axes: list[int], shape: list[int], tracked: set[int]) -> int | None:
    """Which of several axes a channel is followed along: a tracked one, else the innermost > 1."""
    for axis in axes:
        if axis in tracked:
            return axis
    for axis in reversed(axes):
        if shape[axis] > 1:
            return axis
    return None


def coordinates(flat: np.ndarray, axes: list[int], shape: list[int], axis: int) -> np.ndarray:
    """The coordinate along ``axis`` of flat (row-major) indices over the block ``axes``."""
    stride = math.prod(shape[a] for a in axes if a > axis)
    return (flat // stride) % shape[axis]


def flat_indices(axes: list[int], shape: list[int], axis: int, index: int) -> np.ndarray:
    """Every flat index over the block ``axes`` whose coordinate along ``axis`` is ``index``."""
    total = math.prod(shape[a] for a in axes)
    flat = np.arange(total, dtype=np.int64)
    return flat[coordinates(flat, axes, shape, axis) == index]
