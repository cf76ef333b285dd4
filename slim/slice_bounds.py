"""ONNX Slice's clamping of one axis's start and end, shared by the torch executor's Slice and the
pruning rules that move slice bounds (both must agree with onnxruntime to the element)."""

from __future__ import annotations


def clamp_slice(start: int, end: int, step: int, size: int) -> tuple[int, int]:
    """(start, end) of an axis of ``size`` after ONNX's rules: negatives count from the end, then
    [0, size] for a positive step and [-1, size - 1] for a negative one."""
    start = start + size if start < 0 else start
    end = end + size if end < 0 else end
    if step > 0:
        return min(max(start, 0), size), min(max(end, 0), size)
    return min(max(start, -1), size - 1), min(max(end, -1), size - 1)
