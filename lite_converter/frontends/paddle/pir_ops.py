"""PIR ops in the legacy vocabulary: which legacy op each ``pd_op`` replaced, slot by slot.

``operands`` names the legacy input slot of each PIR operand in order ("" drops it; "@name" is an
operand the legacy op held as attribute ``name``: it becomes that attribute when the value is a
constant, otherwise the tensor slot ``tensor_slots[name]``). ``renames`` maps PIR attribute names
onto legacy ones; ``attrs`` adds legacy attributes PIR dropped (broadcast ``axis`` = -1). In-place
variants (``relu_``) are the same ops.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from lite_converter.frontends.paddle.program import PaddleVar
from lite_converter.ir import ConversionError


@dataclasses.dataclass(frozen=True)
class PirOp:
    legacy: str
    operands: tuple[str, ...]
    results: tuple[str, ...] = ("Out",)
    renames: dict[str, str] = dataclasses.field(default_factory=dict)
    attrs: dict[str, Any] = dataclasses.field(default_factory=dict)
    tensor_slots: dict[str, str] = dataclasses.field(default_factory=dict)


_UNARY = [
    "relu",
    "relu6",
    "sigmoid",
    "tanh",
    "exp",
    "log",
    "sqrt",
    "rsqrt",
    "abs",
    "floor",
    "ceil",
    "round",
    "sin",
    "cos",
    "erf",
    "reciprocal",
    "square",
    "sign",
    "silu",
    "softsign",
    "logsigmoid",
    "gelu",
    "leaky_relu",
    "elu",
    "selu",
    "softplus",
    "mish",
    "swish",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "log_softmax",
    "softmax",
    "tanh_shrink",
    "thresholded_relu",
    "celu",
    "assign",
    "logical_not",
    "isnan",
    "isinf",
    "log2",
    "log10",
    "log1p",
    "expm1",
    "sinh",
    "cosh",
    "tan",
    "asin",
    "acos",
    "atan",
    "hardshrink",
    "softshrink",
]
_LEGACY_UNARY = {
    "hardsigmoid": "hard_sigmoid",
    "hardswish": "hard_swish",
    "hardtanh": "brelu",
    "hardshrink": "hard_shrink",
    "softshrink": "softshrink",
}
_UNARY_RENAMES = {
    "leaky_relu": {"negative_slope": "alpha"},
    "hardtanh": {"t_min": "t_min"},
    "softshrink": {"threshold": "lambda"},
}
_BINARY = {
    "add": "elementwise_add",
    "subtract": "elementwise_sub",
    "multiply": "elementwise_mul",
    "divide": "elementwise_div",
    "maximum": "elementwise_max",
    "minimum": "elementwise_min",
    "elementwise_pow": "elementwise_pow",
    "floor_divide": "elementwise_floordiv",
    "remainder": "elementwise_mod",
    "equal": "equal",
    "not_equal": "not_equal",
    "greater_than": "greater_than",
    "greater_equal": "greater_equal",
    "less_than": "less_than",
    "less_equal": "less_equal",
    "logical_and": "logical_and",
    "logical_or": "logical_or",
    "logical_xor": "logical_xor",
}
_CONV = {"strides": "strides"}
_INTERP = PirOp("", ("X", "OutSize", "SizeTensor", "Scale"), ("Out",), {"data_format": "data_layout"})
_REDUCE = {
    "mean": "reduce_mean",
    "sum": "reduce_sum",
    "max": "reduce_max",
    "min": "reduce_min",
    "prod": "reduce_prod",
    "all": "reduce_all",
    "any": "reduce_any",
}

PIR_OPS: dict[str, PirOp] = {}
for _name in _UNARY:
    PIR_OPS[f"pd_op.{_name}"] = PirOp(
        _LEGACY_UNARY.get(_name, _name), ("X",), ("Out",), _UNARY_RENAMES.get(_name, {})
    )
for _name, _legacy in _BINARY.items():
    PIR_OPS[f"pd_op.{_name}"] = PirOp(_legacy, ("X", "Y"), ("Out",), {}, {"axis": -1})
for _name, _legacy in _REDUCE.items():
    PIR_OPS[f"pd_op.{_name}"] = PirOp(
        _legacy,
        ("X", "@dim"),
        ("Out",),
        {"keepdim": "keep_dim"},
        {"reduce_all": False},
        {"dim": "AxisTensor"},
    )
for _name in ("nearest_interp", "bilinear_interp", "bicubic_interp", "linear_interp"):
    PIR_OPS[f"pd_op.{_name}"] = dataclasses.replace(_INTERP, legacy=f"{_name}_v2")
PIR_OPS.update(
    {
        "pd_op.conv2d": PirOp("conv2d", ("Input", "Filter"), ("Output",)),
        "pd_op.depthwise_conv2d": PirOp("depthwise_conv2d", ("Input", "Filter"), ("Output",)),
        "pd_op.conv2d_transpose": PirOp("conv2d_transpose", ("Input", "Filter", "@output_size"), ("Output",)),
        "pd_op.depthwise_conv2d_transpose": PirOp(
            "depthwise_conv2d_transpose", ("Input", "Filter", "@output_size"), ("Output",)
        ),
        "pd_op.batch_norm": PirOp(
            "batch_norm",
            ("X", "Mean", "Variance", "Scale", "Bias"),
            ("Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance", "ReserveSpace"),
            {"data_format": "data_layout"},
        ),
        "pd_op.pool2d": PirOp("pool2d", ("X", "@ksize"), ("Out",)),
        "pd_op.max_pool2d_with_index": PirOp(
            "max_pool2d_with_index", ("X",), ("Out", "Mask"), {"kernel_size": "ksize"}
        ),
        "pd_op.matmul": PirOp(
            "matmul_v2", ("X", "Y"), ("Out",), {"transpose_x": "trans_x", "transpose_y": "trans_y"}
        ),
        "pd_op.bmm": PirOp("bmm", ("X", "Y")),
        "pd_op.prelu": PirOp("prelu", ("X", "Alpha"), ("Out",), {"data_format": "data_format"}),
        "pd_op.reshape": PirOp(
            "reshape2", ("X", "@shape"), ("Out", "XShape"), tensor_slots={"shape": "Shape"}
        ),
        "pd_op.transpose": PirOp("transpose2", ("X",), ("Out", "XShape"), {"perm": "axis"}),
        "pd_op.flatten": PirOp("flatten_contiguous_range", ("X",), ("Out", "XShape")),
        "pd_op.squeeze": PirOp(
            "squeeze2", ("X", "@axes"), ("Out", "XShape"), tensor_slots={"axes": "AxesTensor"}
        ),
        "pd_op.unsqueeze": PirOp(
            "unsqueeze2", ("X", "@axes"), ("Out", "XShape"), tensor_slots={"axes": "AxesTensor"}
        ),
        "pd_op.concat": PirOp("concat", ("X", "@axis"), ("Out",), tensor_slots={"axis": "AxisTensor"}),
        "pd_op.split": PirOp(
            "split",
            ("X", "@sections", "@axis"),
            ("Out",),
            tensor_slots={"axis": "AxisTensor", "sections": "SectionsTensorList"},
        ),
        "pd_op.split_with_num": PirOp("split", ("X", "@axis"), ("Out",), tensor_slots={"axis": "AxisTensor"}),
        "pd_op.unbind": PirOp("unstack", ("X",), ("Y",)),
        "pd_op.unstack": PirOp("unstack", ("X",), ("Y",)),
        "pd_op.slice": PirOp(
            "slice",
            ("Input", "@starts", "@ends"),
            ("Out",),
            tensor_slots={"starts": "StartsTensor", "ends": "EndsTensor"},
        ),
        "pd_op.strided_slice": PirOp(
            "strided_slice",
            ("Input", "@starts", "@ends", "@strides"),
            ("Out",),
            tensor_slots={"starts": "StartsTensor", "ends": "EndsTensor", "strides": "StridesTensor"},
        ),
        "pd_op.scale": PirOp("scale", ("X", "@scale"), ("Out",), tensor_slots={"scale": "ScaleTensor"}),
        "pd_op.layer_norm": PirOp("layer_norm", ("X", "Scale", "Bias"), ("Y", "Mean", "Variance")),
        "pd_op.shape": PirOp("shape", ("Input",)),
        "pd_op.shape64": PirOp("shape", ("Input",), ("Out",), {}, {"__int64__": True}),
        "pd_op.cast": PirOp("cast", ("X",), ("Out",), {"dtype": "out_dtype"}),
        "pd_op.gather": PirOp("gather", ("X", "Index", "@axis"), ("Out",), tensor_slots={"axis": "Axis"}),
        "pd_op.gather_nd": PirOp("gather_nd", ("X", "Index")),
        "pd_op.index_select": PirOp("index_select", ("X", "Index"), ("Out",), {"axis": "dim"}),
        "pd_op.dropout": PirOp(
            "dropout", ("X", "", "@dropout_prob"), ("Out", "Mask"), {"mode": "dropout_implementation"}
        ),
        "pd_op.argmax": PirOp("arg_max", ("X", "@axis"), ("Out",)),
        "pd_op.argmin": PirOp("arg_min", ("X", "@axis"), ("Out",)),
        "pd_op.pad3d": PirOp("pad3d", ("X", "@paddings"), ("Out",), {"pad_value": "value"}),
        "pd_op.pad": PirOp("pad", ("X", "@pad_value"), ("Out",)),
        "pd_op.stack": PirOp("stack", ("X",), ("Y",)),
        "pd_op.tile": PirOp("tile", ("X", "@repeat_times"), ("Out",)),
        "pd_op.expand": PirOp("expand_v2", ("X", "@shape"), ("Out",), tensor_slots={"shape": "Shape"}),
        "pd_op.expand_as": PirOp("expand_as_v2", ("X", "Y")),
        "pd_op.arange": PirOp("range", ("Start", "End", "Step")),
        "pd_op.embedding": PirOp("lookup_table_v2", ("Ids", "W")),
        "pd_op.where": PirOp("where", ("Condition", "X", "Y")),
        "pd_op.topk": PirOp("top_k_v2", ("X", "@k"), ("Out", "Indices")),
        "pd_op.cumsum": PirOp("cumsum", ("X", "@axis")),
        "pd_op.one_hot": PirOp("one_hot_v2", ("X", "@depth")),
        "pd_op.instance_norm": PirOp(
            "instance_norm", ("X", "Scale", "Bias"), ("Y", "SavedMean", "SavedVariance")
        ),
        "pd_op.group_norm": PirOp(
            "group_norm", ("X", "Scale", "Bias"), ("Y", "Mean", "Variance"), {"data_format": "data_layout"}
        ),
        "pd_op.pixel_shuffle": PirOp("pixel_shuffle", ("X",)),
        "pd_op.add_n": PirOp("sum", ("X",)),
        "pd_op.full_like": PirOp("fill_any_like", ("X", "@value")),
        "pd_op.numel": PirOp("size", ("Input",)),
        "pd_op.clip": PirOp(
            "clip", ("X", "@min", "@max"), ("Out",), tensor_slots={"min": "Min", "max": "Max"}
        ),
        "pd_op.pow": PirOp("pow", ("X",), ("Out",), {"y": "factor"}),
        "pd_op.p_norm": PirOp("p_norm", ("X",)),
        "pd_op.flip": PirOp("flip", ("X",)),
        "pd_op.quantize_linear": PirOp("quantize_linear", ("X", "Scale", "ZeroPoint", "", ""), ("Y",)),
        "pd_op.dequantize_linear": PirOp("dequantize_linear", ("X", "Scale", "ZeroPoint", "", ""), ("Y",)),
        "pd_op.affine_channel": PirOp(
            "affine_channel", ("X", "Scale", "Bias"), ("Out",), {"data_format": "data_layout"}
        ),
    }
)
for _name in list(PIR_OPS):
    PIR_OPS.setdefault(_name + "_", PIR_OPS[_name])

# Ops whose result is known from their attributes alone.
CONSTANT_OPS = {
    "pd_op.full": "fill_constant",
    "pd_op.full_int_array": "fill_constant",
    "pd_op.assign_value": "assign_value",
    "pd_op.assign_value_": "assign_value",
}
_MAX_CONSTANT_ELEMENTS = 1 << 24


def constant_value(name: str, attrs: dict[str, Any], var: PaddleVar, where: str) -> np.ndarray:
    """The value of a constant op (its dtype from the attribute, else the declared type)."""
    dtype = attrs.get("dtype") if isinstance(attrs.get("dtype"), np.dtype) else var.dtype
    if dtype is None:
        raise ConversionError(f"{where}: constant without a dtype")
    try:
        if name == "pd_op.full":
            shape = [int(d) for d in attrs.get("shape", [])]
            if any(d < 0 for d in shape) or int(np.prod(shape, dtype=np.float64)) > _MAX_CONSTANT_ELEMENTS:
                raise ConversionError(f"{where}: constant of shape {shape} is refused")
            return np.full(shape, float(attrs["value"]), dtype=np.float64).astype(dtype)
        values = attrs.get("value" if name == "pd_op.full_int_array" else "values", [])
        array = np.asarray(values, dtype=np.float64)
        if name != "pd_op.full_int_array" and var.shape is not None and all(d >= 0 for d in var.shape):
            array = array.reshape(var.shape)
        return array.astype(dtype)
    except ConversionError:
        raise
    except (KeyError, TypeError, ValueError, OverflowError) as err:
        raise ConversionError(f"{where}: malformed constant ({err})") from err
