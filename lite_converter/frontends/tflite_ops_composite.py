"""TFLite builtins that .lite runs as a few of its own ops: SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND
(the way TF writes dilated convolutions) as PAD / RESHAPE / TRANSPOSE / RESHAPE (/ SLICE), CUMSUM,
TOPK_V2 (int64 indices cast to the file's int32), FLOOR_MOD (float: a - floor(a / b)·b, as TF
defines it), SHAPE and RANK (constants: a .tflite's shapes are fixed). Block sizes, paddings, crops
and axes must be constants.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from lite_converter.frontends.tflite_ops import (
    NO_ACTIVATION,
    constant_operand,
    fp32_op,
    move_op,
    static_shape,
)

if TYPE_CHECKING:
    from lite_converter.frontends.tflite_frontend import TfliteGraphBuilder


def _temp(b: TfliteGraphBuilder, like: str, name: str, shape: list[int]) -> str:
    tensor = b.graph.add_tensor(name, b.graph.tensors[like].dtype, shape)
    b.graph.tensors[tensor].quant = b.graph.tensors[like].quant
    return tensor


def _reshape(b: TfliteGraphBuilder, x: str, shape: list[int], out: str | None, name: str) -> str:
    target = out or _temp(b, x, name, shape)
    move_op(
        b,
        "RESHAPE",
        name,
        [x, b.graph.add_constant(f"{name}_shape", np.array(shape, np.int64))],
        [target],
        allowzero=False,
    )
    return target


def _transpose(b: TfliteGraphBuilder, x: str, perm: list[int], name: str) -> str:
    shape = static_shape(b, x)
    target = _temp(b, x, name, [shape[p] for p in perm])
    move_op(b, "TRANSPOSE", name, [x], [target], perm=perm)
    return target


def _block_operands(
    b: TfliteGraphBuilder, inputs: list[str], out: str, what: str
) -> tuple[np.ndarray, np.ndarray] | None:
    """(block shape [M], paddings or crops [M, 2]) of SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND."""
    block = constant_operand(b, inputs[1], "the block shape", out)
    pairs = constant_operand(b, inputs[2], f"the {what}", out)
    if block is None or pairs is None:
        return None
    if pairs.size != 2 * block.size:
        b.problems.append(f"op writing '{out}': {block.size} block dims but {pairs.size // 2} {what} pairs")
        return None
    return block, pairs.reshape(-1, 2)


def _space_to_batch(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    x, out = inputs[0], outputs[0]
    operands = _block_operands(b, inputs, out, "paddings")
    if operands is None:
        return
    block, pads = operands
    shape, m = static_shape(b, x), block.size
    padded_shape = [shape[0]] + [shape[1 + i] + int(pads[i].sum()) for i in range(m)] + shape[1 + m :]
    if any(padded_shape[1 + i] % int(block[i]) for i in range(m)):
        b.problems.append(
            f"op writing '{out}': SPACE_TO_BATCH_ND block {block.tolist()} does not divide "
            f"the padded shape {padded_shape}"
        )
        return
    source = x
    if pads.any():
        rank = len(shape)
        begins = [0] + [int(p) for p in pads[:, 0]] + [0] * (rank - 1 - m)
        ends = [0] + [int(p) for p in pads[:, 1]] + [0] * (rank - 1 - m)
        source = _temp(b, x, f"{out}_padded", padded_shape)
        move_op(
            b,
            "PAD",
            f"{out}_pad",
            [x, b.graph.add_constant(f"{out}_pads", np.array(begins + ends, np.int64))],
            [source],
            mode="CONSTANT",
        )
    split = [shape[0]]
    for i in range(m):
        split += [padded_shape[1 + i] // int(block[i]), int(block[i])]
    split += shape[1 + m :]
    grid = _reshape(b, source, split, None, f"{out}_grid")
    perm = (
        [2 + 2 * i for i in range(m)]
        + [0]
        + [1 + 2 * i for i in range(m)]
        + list(range(1 + 2 * m, len(split)))
    )
    moved = _transpose(b, grid, perm, f"{out}_blocks_first")
    _reshape(b, moved, static_shape(b, out), out, out)


def _batch_to_space(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    x, out = inputs[0], outputs[0]
    operands = _block_operands(b, inputs, out, "crops")
    if operands is None:
        return
    block, crops = operands
    shape, m = static_shape(b, x), block.size
    batch = shape[0] // int(np.prod(block))
    split = [int(v) for v in block] + [batch] + shape[1:]
    grid = _reshape(b, x, split, None, f"{out}_grid")
    perm = [m] + [i for k in range(m) for i in (m + 1 + k, k)] + list(range(2 * m + 1, len(split)))
    moved = _transpose(b, grid, perm, f"{out}_blocks_inside")
    full = [batch] + [shape[1 + i] * int(block[i]) for i in range(m)] + shape[1 + m :]
    if not crops.any():
        _reshape(b, moved, full, out, out)
        return
    uncropped = _reshape(b, moved, full, None, f"{out}_uncropped")
    axes = list(range(1, m + 1))
    starts = [int(c) for c in crops[:, 0]]
    ends = [full[1 + i] - int(crops[i, 1]) for i in range(m)]
    move_op(
        b,
        "SLICE",
        out,
        [
            uncropped,
            *(
                b.graph.add_constant(f"{out}_{n}", np.array(v, np.int64))
                for n, v in (("starts", starts), ("ends", ends), ("axes", axes))
            ),
        ],
        [out],
    )


def _cumsum(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    axis = constant_operand(b, inputs[1], "CUMSUM axis", outputs[0])
    if axis is None:
        return
    o = op.builtinOptions
    fp32_op(
        b,
        "CUMSUM",
        outputs[0],
        [inputs[0], b.graph.add_constant(f"{outputs[0]}_axis", axis.reshape(()))],
        outputs[0],
        exclusive=bool(getattr(o, "exclusive", False)),
        reverse=bool(getattr(o, "reverse", False)),
    )


def _top_k(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    values, indices = outputs[0], outputs[1]
    k = constant_operand(b, inputs[1], "TOPK_V2 k", values)
    if k is None:
        return
    target, finish = b.fp32_output(values)
    wide = b.graph.add_tensor(f"{indices}_int64", np.int64, static_shape(b, indices))
    b.add_node(
        "TOP_K",
        values,
        [b.dequantized(inputs[0]), b.graph.add_constant(f"{values}_k", k.reshape(1))],
        [target, wide],
        axis=-1,
        largest=True,
        sorted=True,
    )
    finish()
    b.add_node("CAST", f"{indices}_cast", [wide], [indices], to="INT32")


def _floor_mod(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    a, d, out = inputs[0], inputs[1], outputs[0]
    act = dict(NO_ACTIVATION)
    if b.graph.tensors[out].dtype != np.float32:
        b.add_node("MOD", out, [a, d], [out], activation=act, fmod=False)
        return
    shape = static_shape(b, out)
    quotient = b.graph.add_tensor(f"{out}_quotient", np.float32, shape)
    floored = b.graph.add_tensor(f"{out}_floored", np.float32, shape)
    product = b.graph.add_tensor(f"{out}_product", np.float32, shape)
    b.add_node("DIV", f"{out}_div", [a, d], [quotient], activation=act)
    b.add_node("FLOOR", f"{out}_floor", [quotient], [floored])
    b.add_node("MUL", f"{out}_mul", [floored, d], [product], activation=act)
    b.add_node("SUB", out, [a, product], [out], activation=act)


def _static(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    """SHAPE / RANK of a fixed-shape tensor: the output is a constant of the file's dtype."""
    shape, out = static_shape(b, inputs[0]), b.graph.tensors[outputs[0]]
    value = np.array(shape if b.opcode_name(op) == "SHAPE" else len(shape), out.dtype or np.int32)
    if outputs[0] in {b.name(int(i)) for i in b.subgraph.outputs}:
        b.problems.append(f"op writing '{outputs[0]}': {b.opcode_name(op)} as a model output")
        return
    out.data, out.dtype = value.reshape(out.shape or value.shape), value.dtype


def _scatter_nd(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    """TFLite SCATTER_ND(indices, updates, shape): zeros of ``shape`` with the updates added at the
    indices (duplicates summed) = our SCATTER_ND with reduction add onto a zero constant."""
    indices, updates, out = inputs[0], inputs[1], outputs[0]
    dtype = b.graph.tensors[out].dtype
    zeros = b.graph.add_constant(f"{out}_zeros", np.zeros(static_shape(b, out), dtype))
    fp32_op(b, "SCATTER_ND", out, [zeros, indices, updates], out, axis=0, reduction=1)


def _reverse_sequence(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    x, lengths, out = inputs[0], inputs[1], outputs[0]
    o = op.builtinOptions
    time_axis, batch_axis = int(o.seqDim), int(o.batchDim)
    if {time_axis, batch_axis} != {0, 1}:
        b.problems.append(
            f"op writing '{out}': REVERSE_SEQUENCE with seq_dim {time_axis} and batch_dim "
            f"{batch_axis} (the runtime reverses along dims 0 and 1)"
        )
        return
    if b.graph.tensors[lengths].dtype != np.int64:
        wide = b.graph.add_tensor(f"{lengths}_int64", np.int64, static_shape(b, lengths))
        b.add_node("CAST", f"{lengths}_to_int64", [lengths], [wide], to="INT64")
        lengths = wide
    move_op(b, "REVERSE_SEQUENCE", out, [x, lengths], [out], batch_axis=batch_axis, time_axis=time_axis)


CONVERTERS = {
    "SCATTER_ND": _scatter_nd,
    "REVERSE_SEQUENCE": _reverse_sequence,
    "SPACE_TO_BATCH_ND": _space_to_batch,
    "BATCH_TO_SPACE_ND": _batch_to_space,
    "CUMSUM": _cumsum,
    "TOPK_V2": _top_k,
    "FLOOR_MOD": _floor_mod,
    "SHAPE": _static,
    "RANK": _static,
}
