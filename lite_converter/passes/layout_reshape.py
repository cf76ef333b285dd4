"""When can a reshape run on permuted (e.g. channels-last) data without transposing it first?

A reshape maps consecutive *groups* of input dims onto consecutive groups of output dims (e.g.
[N, C, H, W] -> [N, C, H*W]: {N}->{N}, {C}->{C}, {H,W}->{HW}). If the physical layout keeps each
input group's dims together and in order (size-1 dims may sit anywhere: they do not change the
memory order), then the data already is the reshaped tensor in a layout that permutes whole
groups: NHWC data reshaped to [N, H*W, C] *is* the logical [N, C, H*W] with perm (0, 2, 1).
That turns the transformer pattern "NHWC conv -> Reshape [N,C,HW] -> Transpose [N,HW,C]" into
no transpose at all.

These are pure functions on shapes and perms; the layout pass applies them.
"""

from __future__ import annotations

from lite_converter.ir import Dim

Perm = tuple[int, ...]
Groups = list[list[int]]


def _is_one(dim: Dim) -> bool:
    return isinstance(dim, int) and dim == 1


def _same(a: Dim, b: Dim) -> bool:
    """Dims known to be equal: the same int, or the same symbolic name."""
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return False
    if isinstance(a, int) and isinstance(b, int):
        return a == b and a >= 0
    return isinstance(a, str) and a == b


def reshape_groups(in_shape: list[Dim], target: list[Dim]) -> tuple[Groups, Groups] | None:
    """Input and output dim groups of a reshape from ``in_shape`` to ``target`` (logical dims;
    ``target`` entries may be -1 or unknown). Equal leading and trailing dims are groups of one,
    the rest is one group on each side; None when that cannot be told from the known dims."""
    n_in, n_out = len(in_shape), len(target)
    head = 0
    while head < min(n_in, n_out) and _same(in_shape[head], target[head]):
        head += 1
    tail = 0
    while tail < min(n_in, n_out) - head and _same(in_shape[n_in - 1 - tail], target[n_out - 1 - tail]):
        tail += 1
    middle_in = list(range(head, n_in - tail))
    middle_out = list(range(head, n_out - tail))
    in_groups: Groups = [[i] for i in range(head)] + ([middle_in] if middle_in and middle_out else [])
    out_groups: Groups = [[j] for j in range(head)] + ([middle_out] if middle_in and middle_out else [])
    in_groups += [[i] for i in range(n_in - tail, n_in)]
    out_groups += [[j] for j in range(n_out - tail, n_out)]
    if bool(middle_in) != bool(middle_out):
        # dims with no counterpart: fine when they are all 1, joined to a neighbouring group
        ones, shape, groups = (
            (middle_in, in_shape, in_groups) if middle_in else (middle_out, target, out_groups)
        )
        if not groups or not all(_is_one(shape[i]) for i in ones):
            return None
        neighbour = groups[head - 1] if head > 0 else groups[0]
        neighbour.extend(ones)
        neighbour.sort()
    return in_groups, out_groups


def squeeze_groups(rank: int, axes: list[int]) -> tuple[Groups, Groups] | None:
    """Groups of a squeeze of ``axes`` (normalized) from rank ``rank``: each removed dim joins the
    group of the kept dim before it (or after it, at the start)."""
    kept = [i for i in range(rank) if i not in axes]
    if not kept:
        return None
    in_groups: Groups = [[i] for i in kept]
    for axis in sorted(axes):
        before = [g for g in in_groups if g[0] < axis]
        owner = before[-1] if before else in_groups[0]
        owner.append(axis)
        owner.sort()
    return in_groups, [[j] for j in range(len(kept))]


def flatten_groups(rank: int, axis: int) -> tuple[Groups, Groups]:
    return [list(range(axis)), list(range(axis, rank))], [[0], [1]]


def unit_dims(shape: list[Dim] | None) -> set[int]:
    """Dims known to have size 1."""
    return set() if shape is None else {i for i, d in enumerate(shape) if _is_one(d)}


def group_order(in_groups: Groups, perm: Perm, free: set[int]) -> list[int] | None:
    """The order in which the groups lie in memory under ``perm``, or None when a group is split
    or reordered by it (then the data must be transposed before the reshape). ``free`` dims have
    size 1 and do not count: the op places them explicitly (a reshape's target, squeezed axes)."""
    group_of = {d: g for g, dims in enumerate(in_groups) for d in dims}
    sequence = [d for d in perm if d not in free]
    order: list[int] = []
    last_dim: dict[int, int] = {}
    for d in sequence:
        g = group_of[d]
        if order and order[-1] != g and g in last_dim:
            return None  # the group is interrupted by another one
        if g in last_dim and d < last_dim[g]:
            return None  # the group's own dims are reordered
        if not order or order[-1] != g:
            order.append(g)
        last_dim[g] = d
    for g in range(len(in_groups)):  # groups of size-1 dims only: keep them next to their predecessor
        if g not in order:
            order.insert(order.index(g - 1) + 1 if g - 1 in order else 0, g)
    return order


def output_perm(order: list[int], out_groups: Groups) -> Perm:
    """The output's perm when its groups lie in memory in ``order``."""
    return tuple(d for g in order for d in out_groups[g])
