"""Paddle's arithmetic: elementwise ops with ``axis`` broadcasting, activations, matmul, reductions.

Legacy ``elementwise_*`` ops broadcast Y against X starting at dimension ``axis`` (X [N, C, H, W] +
Y [C] at axis 1 adds per channel), not numpy's trailing alignment: Y gets trailing 1-dims first.
Activations keep Paddle's own constants (hard_sigmoid's slope 0.2 / offset 0.5, hard_swish's
threshold / scale / offset), falling back to plain arithmetic where ONNX has no op with them.
"""

from __future__ import annotations

import numpy as np

from lite_converter.frontends.paddle.mapping import MapContext, Unsupported, maps, positive_axis
from lite_converter.frontends.paddle.program import PaddleOp

_BINARY = {
    "elementwise_add": "Add",
    "elementwise_sub": "Sub",
    "elementwise_mul": "Mul",
    "elementwise_div": "Div",
    "elementwise_max": "Max",
    "elementwise_min": "Min",
    "elementwise_pow": "Pow",
    "equal": "Equal",
    "greater_than": "Greater",
    "greater_equal": "GreaterOrEqual",
    "less_than": "Less",
    "less_equal": "LessOrEqual",
    "logical_and": "And",
    "logical_or": "Or",
    "logical_xor": "Xor",
}


def broadcast_operand(ctx: MapContext, op: PaddleOp, x: str, y: str) -> str:
    """Y with trailing 1-dims so that numpy broadcasting aligns it at X's dimension ``axis``."""
    axis = int(op.attr("axis", -1))
    x_shape, y_shape = ctx.shape(x), ctx.shape(y)
    if axis == -1 or x_shape is None or y_shape is None or len(y_shape) >= len(x_shape):
        return y
    axis = positive_axis(axis, len(x_shape))
    trailing = len(x_shape) - axis - len(y_shape)
    if trailing <= 0:
        return y
    value = ctx.constant(y)
    if value is not None:
        return ctx.const(f"{y}_at{axis}", value.reshape(list(value.shape) + [1] * trailing))
    return ctx.emit("Unsqueeze", [y, ctx.ints(range(len(y_shape), len(y_shape) + trailing))])


@maps(*_BINARY)
def map_binary(op: PaddleOp, ctx: MapContext) -> None:
    x, y = ctx.require(op, "X"), ctx.require(op, "Y")
    ctx.emit(_BINARY[op.type], [x, broadcast_operand(ctx, op, x, y)], ctx.out(op))


@maps("not_equal")
def map_not_equal(op: PaddleOp, ctx: MapContext) -> None:
    x, y = ctx.require(op, "X"), ctx.require(op, "Y")
    ctx.emit("Not", [ctx.emit("Equal", [x, broadcast_operand(ctx, op, x, y)])], ctx.out(op))


@maps("elementwise_floordiv")
def map_floordiv(op: PaddleOp, ctx: MapContext) -> None:
    x, y = ctx.require(op, "X"), ctx.require(op, "Y")
    y = broadcast_operand(ctx, op, x, y)
    if ctx.dtype(x).kind == "f":
        ctx.emit("Floor", [ctx.emit("Div", [x, y])], ctx.out(op))
        return
    # integers: floor(x / y) = trunc(x / y) - (x mod y != 0 and the signs differ)
    quotient = ctx.emit("Div", [x, y])
    remainder = ctx.emit("Mod", [x, y], fmod=1)
    zero = ctx.const("zero", np.zeros((), ctx.dtype(x)))
    inexact = ctx.emit("Not", [ctx.emit("Equal", [remainder, zero])])
    differ = ctx.emit("Xor", [ctx.emit("Less", [x, zero]), ctx.emit("Less", [y, zero])])
    adjust = ctx.cast(ctx.emit("And", [inexact, differ]), ctx.dtype(x))
    ctx.emit("Sub", [quotient, adjust], ctx.out(op))


@maps("elementwise_mod")
def map_mod(op: PaddleOp, ctx: MapContext) -> None:
    x, y = ctx.require(op, "X"), ctx.require(op, "Y")
    y = broadcast_operand(ctx, op, x, y)
    if ctx.dtype(x).kind != "f":
        ctx.emit("Mod", [x, y], ctx.out(op), fmod=0)
        return
    # floats: x - floor(x / y) * y (the sign of the divisor, as Python's %)
    floor = ctx.emit("Floor", [ctx.emit("Div", [x, y])])
    ctx.emit("Sub", [x, ctx.emit("Mul", [floor, y])], ctx.out(op))


@maps("logical_not")
def map_not(op: PaddleOp, ctx: MapContext) -> None:
    ctx.emit("Not", [ctx.require(op, "X")], ctx.out(op))


@maps("where")
def map_where(op: PaddleOp, ctx: MapContext) -> None:
    ctx.emit("Where", [ctx.require(op, s) for s in ("Condition", "X", "Y")], ctx.out(op))


@maps("sum")
def map_sum(op: PaddleOp, ctx: MapContext) -> None:
    inputs = [n for n in op.inputs.get("X", []) if n]
    if not inputs:
        raise Unsupported("no inputs")
    ctx.emit("Sum" if len(inputs) > 1 else "Identity", inputs, ctx.out(op))


# -- activations ----------------------------------------------------------------------------------
_UNARY = {
    "relu": "Relu",
    "sigmoid": "Sigmoid",
    "tanh": "Tanh",
    "exp": "Exp",
    "log": "Log",
    "sqrt": "Sqrt",
    "abs": "Abs",
    "floor": "Floor",
    "ceil": "Ceil",
    "sin": "Sin",
    "cos": "Cos",
    "tan": "Tan",
    "asin": "Asin",
    "acos": "Acos",
    "atan": "Atan",
    "sinh": "Sinh",
    "cosh": "Cosh",
    "erf": "Erf",
    "reciprocal": "Reciprocal",
    "sign": "Sign",
    "softsign": "Softsign",
    "mish": "Mish",
    "assign": "Identity",
    "isnan": "IsNaN",
    "isinf": "IsInf",
}


@maps(*_UNARY)
def map_unary(op: PaddleOp, ctx: MapContext) -> None:
    ctx.emit(_UNARY[op.type], [ctx.require(op, "X")], ctx.out(op))


def _scalar(ctx: MapContext, x: str, value: float) -> str:
    return ctx.const("scalar", np.asarray(value, ctx.dtype(x)))


@maps("rsqrt")
def map_rsqrt(op: PaddleOp, ctx: MapContext) -> None:
    ctx.emit("Reciprocal", [ctx.emit("Sqrt", [ctx.require(op, "X")])], ctx.out(op))


@maps("square")
def map_square(op: PaddleOp, ctx: MapContext) -> None:
    x = ctx.require(op, "X")
    ctx.emit("Mul", [x, x], ctx.out(op))


@maps("round")
def map_round(op: PaddleOp, ctx: MapContext) -> None:
    """Paddle rounds halves away from zero (ONNX's Round: to even): sign(x) * floor(|x| + 0.5)."""
    x = ctx.require(op, "X")
    magnitude = ctx.emit("Floor", [ctx.emit("Add", [ctx.emit("Abs", [x]), _scalar(ctx, x, 0.5)])])
    ctx.emit("Mul", [ctx.emit("Sign", [x]), magnitude], ctx.out(op))


@maps("log2", "log10", "log1p", "expm1")
def map_log_variants(op: PaddleOp, ctx: MapContext) -> None:
    x, out = ctx.require(op, "X"), ctx.out(op)
    if op.type == "log1p":
        ctx.emit("Log", [ctx.emit("Add", [x, _scalar(ctx, x, 1.0)])], out)
    elif op.type == "expm1":
        ctx.emit("Sub", [ctx.emit("Exp", [x]), _scalar(ctx, x, 1.0)], out)
    else:
        base = 2.0 if op.type == "log2" else 10.0
        ctx.emit("Div", [ctx.emit("Log", [x]), _scalar(ctx, x, float(np.log(base)))], out)


@maps("relu6")
def map_relu6(op: PaddleOp, ctx: MapContext) -> None:
    x = ctx.require(op, "X")
    ctx.emit(
        "Clip", [x, _scalar(ctx, x, 0.0), _scalar(ctx, x, float(op.attr("threshold", 6.0)))], ctx.out(op)
    )


@maps("brelu")
def map_brelu(op: PaddleOp, ctx: MapContext) -> None:
    x = ctx.require(op, "X")
    low, high = float(op.attr("t_min", 0.0)), float(op.attr("t_max", 24.0))
    ctx.emit("Clip", [x, _scalar(ctx, x, low), _scalar(ctx, x, high)], ctx.out(op))


@maps("clip")
def map_clip(op: PaddleOp, ctx: MapContext) -> None:
    x = ctx.require(op, "X")
    bounds = []
    for slot, attr in (("Min", "min"), ("Max", "max")):
        name = op.input(slot)
        value = ctx.constant(name)
        if name is not None and value is None:
            bounds.append(name if ctx.rank(name) == 0 else ctx.emit("Reshape", [name, ctx.ints([])]))
        else:
            bound = float(value.reshape(-1)[0]) if value is not None else float(op.attr(attr, 0.0))
            bounds.append(_scalar(ctx, x, bound))
    ctx.emit("Clip", [x, *bounds], ctx.out(op))


@maps("hard_sigmoid")
def map_hard_sigmoid(op: PaddleOp, ctx: MapContext) -> None:
    ctx.emit(
        "HardSigmoid",
        [ctx.require(op, "X")],
        ctx.out(op),
        alpha=float(op.attr("slope", 0.2)),
        beta=float(op.attr("offset", 0.5)),
    )


@maps("hard_swish")
def map_hard_swish(op: PaddleOp, ctx: MapContext) -> None:
    """x * min(max(x + offset, 0), threshold) / scale; ONNX's HardSwish is (6, 6, 3)."""
    x, out = ctx.require(op, "X"), ctx.out(op)
    threshold, scale, offset = (
        float(op.attr(n, d)) for n, d in (("threshold", 6.0), ("scale", 6.0), ("offset", 3.0))
    )
    if (threshold, scale, offset) == (6.0, 6.0, 3.0):
        ctx.emit("HardSwish", [x], out)
        return
    gate = ctx.emit("HardSigmoid", [x], alpha=1.0 / scale, beta=offset / scale)
    if threshold != scale:
        raise Unsupported(f"hard_swish with threshold {threshold} != scale {scale} is not supported")
    ctx.emit("Mul", [x, gate], out)


@maps("swish", "silu")
def map_swish(op: PaddleOp, ctx: MapContext) -> None:
    x = ctx.require(op, "X")
    beta = float(op.attr("beta", 1.0))
    scaled = x if beta == 1.0 else ctx.emit("Mul", [x, _scalar(ctx, x, beta)])
    ctx.emit("Mul", [x, ctx.emit("Sigmoid", [scaled])], ctx.out(op))


@maps("gelu")
def map_gelu(op: PaddleOp, ctx: MapContext) -> None:
    ctx.emit(
        "Gelu",
        [ctx.require(op, "X")],
        ctx.out(op),
        approximate="tanh" if op.attr("approximate", False) else "none",
    )


@maps("leaky_relu")
def map_leaky_relu(op: PaddleOp, ctx: MapContext) -> None:
    ctx.emit("LeakyRelu", [ctx.require(op, "X")], ctx.out(op), alpha=float(op.attr("alpha", 0.02)))


@maps("elu")
def map_elu(op: PaddleOp, ctx: MapContext) -> None:
    ctx.emit("Elu", [ctx.require(op, "X")], ctx.out(op), alpha=float(op.attr("alpha", 1.0)))


@maps("celu")
def map_celu(op: PaddleOp, ctx: MapContext) -> None:
    ctx.emit("Celu", [ctx.require(op, "X")], ctx.out(op), alpha=float(op.attr("alpha", 1.0)))


@maps("selu")
def map_selu(op: PaddleOp, ctx: MapContext) -> None:
    ctx.emit(
        "Selu",
        [ctx.require(op, "X")],
        ctx.out(op),
        alpha=float(op.attr("alpha", 1.6732632423543772)),
        gamma=float(op.attr("scale", 1.0507009873554805)),
    )


@maps("softplus")
def map_softplus(op: PaddleOp, ctx: MapContext) -> None:
    """log(1 + exp(beta x)) / beta, and x itself where beta x > threshold."""
    x, out = ctx.require(op, "X"), ctx.out(op)
    beta, threshold = float(op.attr("beta", 1.0)), float(op.attr("threshold", 20.0))
    scaled = x if beta == 1.0 else ctx.emit("Mul", [x, _scalar(ctx, x, beta)])
    soft = ctx.emit("Softplus", [scaled])
    if beta != 1.0:
        soft = ctx.emit("Div", [soft, _scalar(ctx, x, beta)])
    linear = ctx.emit("Greater", [scaled, _scalar(ctx, x, threshold)])
    ctx.emit("Where", [linear, x, soft], out)


@maps("logsigmoid")
def map_logsigmoid(op: PaddleOp, ctx: MapContext) -> None:
    x = ctx.require(op, "X")
    negated = ctx.emit("Neg", [x])
    ctx.emit("Neg", [ctx.emit("Softplus", [negated])], ctx.out(op))


@maps("tanh_shrink")
def map_tanh_shrink(op: PaddleOp, ctx: MapContext) -> None:
    x = ctx.require(op, "X")
    ctx.emit("Sub", [x, ctx.emit("Tanh", [x])], ctx.out(op))


@maps("thresholded_relu")
def map_thresholded_relu(op: PaddleOp, ctx: MapContext) -> None:
    ctx.emit("ThresholdedRelu", [ctx.require(op, "X")], ctx.out(op), alpha=float(op.attr("threshold", 1.0)))


@maps("hard_shrink", "softshrink")
def map_shrink(op: PaddleOp, ctx: MapContext) -> None:
    threshold = float(op.attr("threshold", op.attr("lambda", 0.5)))
    bias = threshold if op.type == "softshrink" else 0.0
    ctx.emit("Shrink", [ctx.require(op, "X")], ctx.out(op), lambd=threshold, bias=bias)


@maps("prelu")
def map_prelu(op: PaddleOp, ctx: MapContext) -> None:
    x, alpha = ctx.require(op, "X"), ctx.require(op, "Alpha")
    mode = op.attr("mode", "all")
    rank = ctx.rank(x)
    value = ctx.constant(alpha)
    if value is None:
        raise Unsupported("alpha must be a parameter")
    if mode == "channel":
        if op.attr("data_format", "NCHW") != "NCHW":
            raise Unsupported("only NCHW channel PReLU is supported")
        value = value.reshape([-1] + [1] * (rank - 2))
    elif mode == "all":
        value = value.reshape([])
    else:
        value = value.reshape(ctx.shape(x)[1:] if value.size != 1 else [])  # type: ignore[index]
    ctx.emit("PRelu", [x, ctx.const(f"{alpha}_{mode}", value.astype(np.float32))], ctx.out(op))


@maps("pow")
def map_pow(op: PaddleOp, ctx: MapContext) -> None:
    x = ctx.require(op, "X")
    name = op.input("FactorTensor")
    value = ctx.constant(name)
    if name is not None and value is None:
        exponent = name
    else:
        factor = float(value.reshape(-1)[0]) if value is not None else float(op.attr("factor", 1.0))
        exponent = _scalar(ctx, x, factor)
    ctx.emit("Pow", [x, exponent], ctx.out(op))


@maps("scale")
def map_scale(op: PaddleOp, ctx: MapContext) -> None:
    """scale * x + bias (bias_after_scale) or scale * (x + bias)."""
    x, out = ctx.require(op, "X"), ctx.out(op)
    name = op.input("ScaleTensor")
    value = ctx.constant(name)
    if name is not None and value is None:
        raise Unsupported("a scale computed at run time is not supported")
    scale = float(value.reshape(-1)[0]) if value is not None else float(op.attr("scale", 1.0))
    bias = float(op.attr("bias", 0.0))
    steps = [("Mul", scale, scale != 1.0), ("Add", bias, bias != 0.0)]
    if not op.attr("bias_after_scale", True):
        steps.reverse()
    todo = [(kind, amount) for kind, amount, needed in steps if needed]
    if not todo:
        ctx.emit("Identity", [x], out)
    current = x
    for index, (kind, amount) in enumerate(todo):
        current = ctx.emit(kind, [current, _scalar(ctx, x, amount)], out if index == len(todo) - 1 else None)


@maps("softmax", "log_softmax")
def map_softmax(op: PaddleOp, ctx: MapContext) -> None:
    ctx.emit(
        "Softmax" if op.type == "softmax" else "LogSoftmax",
        [ctx.require(op, "X")],
        ctx.out(op),
        axis=int(op.attr("axis", -1)),
    )


# -- matrix products ------------------------------------------------------------------------------
def _transposed(ctx: MapContext, name: str) -> str:
    rank = ctx.rank(name)
    if rank < 2:
        return name
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    value = ctx.constant(name)
    if value is not None:
        return ctx.const(f"{name}_T", np.ascontiguousarray(value.transpose(perm)))
    return ctx.emit("Transpose", [name], perm=perm)


@maps("matmul_v2", "matmul", "bmm")
def map_matmul(op: PaddleOp, ctx: MapContext) -> None:
    x, y, out = ctx.require(op, "X"), ctx.require(op, "Y"), ctx.out(op)
    if op.attr("trans_x", op.attr("transpose_X", False)):
        x = _transposed(ctx, x)
    if op.attr("trans_y", op.attr("transpose_Y", False)):
        y = _transposed(ctx, y)
    alpha = float(op.attr("alpha", 1.0))
    if alpha == 1.0:
        ctx.emit("MatMul", [x, y], out)
    else:
        ctx.emit("Mul", [ctx.emit("MatMul", [x, y]), _scalar(ctx, out, alpha)], out)


def _flattened_product(ctx: MapContext, x: str, w: str, x_dims: int, out: str | None) -> str:
    """x flattened at ``x_dims`` times the 2-D ``w``, reshaped to x.shape[:x_dims] + [N]."""
    rank = ctx.rank(x)
    if x_dims == rank - 1:
        return ctx.emit("MatMul", [x, w], out)
    product = ctx.emit("MatMul", [ctx.emit("Flatten", [x], axis=x_dims), w])
    leading = ctx.emit("Shape", [x], end=x_dims)
    columns = ctx.emit("Shape", [w], start=1)
    return ctx.emit("Reshape", [product, ctx.emit("Concat", [leading, columns], axis=0)], out)


@maps("mul")
def map_mul(op: PaddleOp, ctx: MapContext) -> None:
    x, y = ctx.require(op, "X"), ctx.require(op, "Y")
    y_dims = int(op.attr("y_num_col_dims", 1))
    if ctx.rank(y) != 2 or y_dims != 1:
        raise Unsupported("only a 2-D Y with y_num_col_dims 1 is supported")
    _flattened_product(ctx, x, y, positive_axis(int(op.attr("x_num_col_dims", 1)), ctx.rank(x)), ctx.out(op))


@maps("fc")
def map_fc(op: PaddleOp, ctx: MapContext) -> None:
    x, w, out = ctx.require(op, "Input"), ctx.require(op, "W"), ctx.out(op)
    if ctx.rank(w) != 2:
        raise Unsupported("the weight must be 2-D")
    activation = op.attr("activation_type", "") or ""
    if activation not in ("", "relu"):
        raise Unsupported(f"activation_type {activation} is not supported")
    x_dims = positive_axis(int(op.attr("in_num_col_dims", 1)), ctx.rank(x))
    bias = op.input("Bias")
    result = _flattened_product(ctx, x, w, x_dims, None if bias or activation else out)
    if bias:
        value = ctx.constant(bias)
        bias_name = ctx.const(f"{bias}_flat", value.reshape(-1)) if value is not None else bias
        result = ctx.emit("Add", [result, bias_name], None if activation else out)
    if activation:
        ctx.emit("Relu", [result], out)


# -- reductions -----------------------------------------------------------------------------------
_REDUCE = {
    "reduce_mean": "ReduceMean",
    "reduce_sum": "ReduceSum",
    "reduce_max": "ReduceMax",
    "reduce_min": "ReduceMin",
    "reduce_prod": "ReduceProd",
}


@maps(*_REDUCE, "reduce_all", "reduce_any")
def map_reduce(op: PaddleOp, ctx: MapContext) -> None:
    x, out = ctx.require(op, "X"), ctx.out(op)
    tensor, dims = ctx.int_list(op, "AxisTensor", "", "dim")
    if tensor is not None:
        raise Unsupported("reduction axes computed at run time are not supported")
    dims = [] if op.attr("reduce_all", False) or dims is None else [int(d) for d in dims]
    keep = int(bool(op.attr("keep_dim", False)))
    inputs = [x] if not dims else [x, ctx.ints(dims)]
    if op.type in ("reduce_all", "reduce_any"):
        as_int = ctx.cast(x, np.int32)
        reduced = ctx.emit(
            "ReduceMin" if op.type == "reduce_all" else "ReduceMax", [as_int, *inputs[1:]], keepdims=keep
        )
        ctx.cast(reduced, np.bool_, out)
        return
    ctx.emit(_REDUCE[op.type], inputs, out, keepdims=keep)


@maps("mean")
def map_mean(op: PaddleOp, ctx: MapContext) -> None:
    ctx.emit("ReduceMean", [ctx.require(op, "X")], ctx.out(op), keepdims=0)


@maps("p_norm")
def map_p_norm(op: PaddleOp, ctx: MapContext) -> None:
    x = ctx.require(op, "X")
    if float(op.attr("porder", 2.0)) != 2.0 or op.attr("asvector", False):
        raise Unsupported("only the 2-norm along one axis is supported")
    ctx.emit(
        "ReduceL2",
        [x, ctx.ints([int(op.attr("axis", -1))])],
        ctx.out(op),
        keepdims=int(bool(op.attr("keepdim", False))),
    )


@maps("arg_max", "arg_min")
def map_arg_max(op: PaddleOp, ctx: MapContext) -> None:
    x, out = ctx.require(op, "X"), ctx.out(op)
    axis = op.attr("axis", -1)
    if isinstance(axis, list):
        axis = axis[0]
    if op.attr("flatten", False):
        x, axis = ctx.emit("Reshape", [x, ctx.ints([-1])]), 0
    dtype = op.attr("dtype", 3)
    int32 = dtype == 2 or (isinstance(dtype, np.dtype) and dtype == np.int32)
    result = ctx.emit(
        "ArgMax" if op.type == "arg_max" else "ArgMin",
        [x],
        None if int32 else out,
        axis=int(axis),
        keepdims=int(bool(op.attr("keepdims", False))),
    )
    if int32:
        ctx.cast(result, np.int32, out)


@maps("cumsum")
def map_cumsum(op: PaddleOp, ctx: MapContext) -> None:
    x = ctx.require(op, "X")
    axis = op.attr("axis", -1)
    if op.attr("flatten", False):
        x, axis = ctx.emit("Reshape", [x, ctx.ints([-1])]), 0
    ctx.emit(
        "CumSum",
        [x, ctx.const("axis", np.asarray(int(axis), np.int64))],
        ctx.out(op),
        exclusive=int(bool(op.attr("exclusive", False))),
        reverse=int(bool(op.attr("reverse", False))),
    )
