"""Arena plan for a fully static lowered graph: one offset per activation inside one buffer.

The plan is stored in the .lite file for `lite inspect` and for comparison with the runtime, which
plans again at prepare (it must: inputs may be resized). Placement is the classic greedy-by-size
heuristic: larger tensors first, each at the lowest 64-byte aligned offset where it does not
overlap a placed tensor whose lifetime overlaps its own.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from lite_converter.ir import Graph
from lite_converter.lite_ops import ALIASING_OPS

ALIGNMENT = 64


@dataclasses.dataclass
class MemoryPlan:
    """``offsets`` maps each activation in the arena to its byte offset; constants are absent."""

    arena_bytes: int
    offsets: dict[str, int]


@dataclasses.dataclass
class _Block:
    """One arena allocation, shared by a tensor and the tensors that alias it."""

    size: int
    first: int  # op index that writes it (-1: a graph input, live from the start)
    last: int  # op index of its last reader (len(nodes): graph inputs and outputs, live to the end)
    tensors: list[str]
    offset: int = -1


def _align(n: int) -> int:
    return (n + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT


def tensor_bytes(graph: Graph, name: str) -> int | None:
    """Bytes of an activation with a static shape, None when the shape or dtype is not known."""
    tensor = graph.tensors.get(name)
    if tensor is None or not tensor.is_static or tensor.dtype is None:
        return None
    assert tensor.shape is not None
    return int(np.prod(tensor.shape, dtype=np.int64)) * np.dtype(tensor.dtype).itemsize


def _blocks(graph: Graph) -> list[_Block] | None:
    block_of: dict[str, _Block] = {}
    blocks: list[_Block] = []

    def new_block(name: str, first: int) -> bool:
        size = tensor_bytes(graph, name)
        if size is None:
            return False
        block = _Block(_align(size), first, first, [name])
        blocks.append(block)
        block_of[name] = block
        return True

    for name in graph.inputs:
        if graph.constant(name) is None and name not in block_of and not new_block(name, -1):
            return None
    for index, node in enumerate(graph.nodes):
        for name in node.inputs:
            if name in block_of:
                block_of[name].last = max(block_of[name].last, index)
        source = node.inputs[0] if node.inputs else ""
        for name in node.outputs:
            if not name or name in block_of:
                continue
            if node.op_type in ALIASING_OPS and source in block_of:
                block_of[name] = block_of[source]
                block_of[source].tensors.append(name)
            elif not new_block(name, index):
                return None
    # Graph inputs stay readable after a run (as in the runtime), outputs until the caller reads them.
    for name in (*graph.inputs, *graph.outputs):
        if name in block_of:
            block_of[name].last = len(graph.nodes)
    return blocks


def _place(blocks: list[_Block]) -> int:
    placed: list[_Block] = []
    arena = 0
    for block in sorted(blocks, key=lambda b: (-b.size, b.first)):
        busy = sorted(
            (other.offset, other.offset + other.size)
            for other in placed
            if other.first <= block.last and block.first <= other.last
        )
        offset = 0
        for start, end in busy:
            if offset + block.size <= start:
                break
            offset = max(offset, end)
        block.offset = offset
        placed.append(block)
        arena = max(arena, offset + block.size)
    return arena


def plan_memory(graph: Graph) -> MemoryPlan | None:
    """Plans the arena of a lowered graph; None when any activation's shape is not static."""
    blocks = _blocks(graph)
    if blocks is None:
        return None
    arena = _place(blocks)
    offsets = {name: block.offset for block in blocks for name in block.tensors}
    return MemoryPlan(arena, offsets)
