"""The tensor / data-movement op group end to end: one-node ONNX models -> lite_converter -> runtime.

Every result is compared with onnxruntime on the same ONNX model and must be equal: these ops only
move, select or count data, so there is no rounding to tolerate. Shape inputs (slice starts, pads,
reshape shape, ...) are initializers, as in real models; the node writes a graph output, so the
converter does not fold it away and the runtime's op really runs. A few tests feed dynamic shapes
to exercise the prepare-time evaluation of int64 shape subgraphs.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from tests.test_ops_elementwise import check_against_onnxruntime, make_model, onnx_type, run_lite

INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min


def _data(shape: tuple[int, ...], dtype: np.dtype | type = np.float32, seed: int = 0) -> np.ndarray:
    """Distinct values, so a misplaced element cannot go unnoticed."""
    count = int(np.prod(shape))
    values = np.random.default_rng(seed).permutation(count) - count // 3
    if np.dtype(dtype) == np.bool_:
        return (values % 2 == 0).reshape(shape)
    if np.dtype(dtype).kind == "u":
        values = values + count
    return values.astype(dtype).reshape(shape)


def _i64(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def check_one_node(op: str, x: np.ndarray, constants: dict[str, np.ndarray] | None = None,
                   input_names: list[str] | None = None, opset: int = 19, out_dtype: object = None,
                   **attrs: object) -> dict[str, np.ndarray]:
    """Runs `op(x, *constants)` both ways and asserts equal outputs."""
    constants = constants or {}
    names = input_names if input_names is not None else ["x", *constants]
    node = helper.make_node(op, names, ["y"], **attrs)
    model = make_model([node], {"x": x}, {"y": out_dtype or x.dtype}, constants, opset=opset)
    return check_against_onnxruntime(model, {"x": x})


# -- concat / split ------------------------------------------------------------------------------------
@pytest.mark.parametrize("shapes,axis", [
    ([(2, 3), (2, 5)], 1),
    ([(2, 3), (2, 5), (2, 1)], -1),
    ([(1, 4, 3), (2, 4, 3), (3, 4, 3)], 0),
    ([(2, 3, 4, 5), (2, 3, 1, 5)], 2),
    ([(2, 0, 4), (2, 3, 4)], 1),
])
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8])
def test_concat(shapes, axis, dtype):
    feeds = {f"x{i}": _data(s, dtype, seed=i) for i, s in enumerate(shapes)}
    node = helper.make_node("Concat", list(feeds), ["y"], axis=axis)
    model = make_model([node], feeds, {"y": dtype})
    check_against_onnxruntime(model, feeds)


def test_concat_with_constant():
    x = _data((2, 3))
    node = helper.make_node("Concat", ["x", "c"], ["y"], axis=0)
    model = make_model([node], {"x": x}, {"y": np.float32}, {"c": _data((1, 3), seed=5)})
    check_against_onnxruntime(model, {"x": x})


@pytest.mark.parametrize("shape,axis,num_outputs", [((5, 4), 0, 2), ((3, 7), -1, 3), ((2, 6, 2), 1, 3)])
def test_split_equal_parts_opset18(shape, axis, num_outputs):
    x = _data(shape)
    outputs = [f"y{i}" for i in range(num_outputs)]
    node = helper.make_node("Split", ["x"], outputs, axis=axis, num_outputs=num_outputs)
    model = make_model([node], {"x": x}, dict.fromkeys(outputs, np.float32), opset=18)
    check_against_onnxruntime(model, {"x": x})


@pytest.mark.parametrize("sizes,axis", [((1, 3, 1), 1), ((2, 0, 3), -1), ((5,), 1)])
def test_split_with_sizes(sizes, axis):
    x = _data((2, 5, 5), np.int64)
    outputs = [f"y{i}" for i in range(len(sizes))]
    node = helper.make_node("Split", ["x", "split"], outputs, axis=axis)
    model = make_model([node], {"x": x}, dict.fromkeys(outputs, np.int64), {"split": _i64(*sizes)}, opset=13)
    check_against_onnxruntime(model, {"x": x})


# -- slice ----------------------------------------------------------------------------------------------
SLICE_CASES = [
    pytest.param((0, 1), (2, 3), (0, 1), None, id="basic"),
    pytest.param((-3, -2), (-1, INT64_MAX), (0, 1), None, id="negative_and_clamped"),
    pytest.param((1,), (1000,), (-1,), (2,), id="negative_axis_step2"),
    pytest.param((-1,), (INT64_MIN,), (1,), (-1,), id="reverse_axis"),
    pytest.param((5, -2), (0, -100), (0, 2), (-2, -3), id="negative_steps"),
    pytest.param((10,), (20,), (0,), None, id="start_out_of_bounds"),
    pytest.param((0, 0, 0), (1, 2, 3), None, None, id="default_axes"),
    pytest.param((3,), (1,), (0,), (1,), id="empty_result"),
]


@pytest.mark.parametrize("starts,ends,axes,steps", SLICE_CASES)
@pytest.mark.parametrize("index_dtype", [np.int64, np.int32])
def test_slice(starts, ends, axes, steps, index_dtype):
    x = _data((6, 5, 7))
    if steps is not None and axes is None:
        axes = tuple(range(len(starts)))  # steps need the axes input before them
    parts = {"starts": starts, "ends": ends, "axes": axes, "steps": steps}
    info = np.iinfo(index_dtype)
    constants = {name: np.clip(np.array(v), info.min, info.max).astype(index_dtype)
                 for name, v in parts.items() if v is not None}
    check_one_node("Slice", x, constants)


# -- reshape family -------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(4, -1), (0, -1), (-1,), (2, 0, 2, 2), (1, 24, 1), (3, 2, 2, 2)])
def test_reshape(shape):
    check_one_node("Reshape", _data((2, 3, 4)), {"shape": _i64(*shape)})


def test_reshape_allowzero_keeps_zero():
    x = np.zeros((0, 6), dtype=np.float32)
    check_one_node("Reshape", x, {"shape": _i64(3, 0, 2)}, allowzero=1)


@pytest.mark.parametrize("axis", [0, 1, 2, 4, -1, -3])
def test_flatten(axis):
    check_one_node("Flatten", _data((2, 3, 4, 5)), axis=axis)


@pytest.mark.parametrize("axes", [(1,), (-1,), (1, 3), None])
def test_squeeze(axes):
    x = _data((2, 1, 3, 1))
    constants = {"axes": _i64(*axes)} if axes else {}
    check_one_node("Squeeze", x, constants)


@pytest.mark.parametrize("axes", [(0,), (-1,), (1, 3), (3, 0), (-1, -2)])
def test_unsqueeze(axes):
    check_one_node("Unsqueeze", _data((2, 3), np.int64), {"axes": _i64(*axes)})


def test_reshape_output_read_by_two_ops():
    """The reshaped tensor may share the input's memory; both readers must see the right values."""
    x = _data((2, 6))
    nodes = [helper.make_node("Relu", ["x"], ["r"]),
             helper.make_node("Reshape", ["r", "shape"], ["t"]),
             helper.make_node("Neg", ["t"], ["a"]),
             helper.make_node("Abs", ["t"], ["b"])]
    model = make_model(nodes, {"x": x}, {"a": np.float32, "b": np.float32}, {"shape": _i64(3, 4)})
    check_against_onnxruntime(model, {"x": x})


# -- transpose -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,perm", [
    ((3, 4), (1, 0)),
    ((2, 3, 4), None),
    ((2, 3, 4, 5), (0, 2, 3, 1)),
    ((2, 3, 4, 5), (0, 3, 1, 2)),
    ((2, 3, 1, 4, 2), (4, 2, 0, 3, 1)),
    ((2, 1, 3, 2, 2, 3), (5, 4, 3, 2, 1, 0)),
    # the last two dims swapped under an outer one with 2 / 3 / 4 output values innermost
    # (ShuffleNet's channel shuffle: strided_copy's interleave path), and 5 (the general path)
    ((6, 2, 37), (0, 2, 1)),
    ((3, 5, 3, 19), (0, 1, 3, 2)),
    ((4, 4, 33), (0, 2, 1)),
    ((2, 5, 21), (0, 2, 1)),
])
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8, np.float16])
def test_transpose(shape, perm, dtype):
    attrs = {"perm": list(perm)} if perm is not None else {}
    check_one_node("Transpose", _data(shape, dtype), **attrs)


# -- pad -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["constant", "reflect", "edge", "wrap"])
@pytest.mark.parametrize("pads", [(0, 1, 2, 0, 2, 1), (1, 0, 0, 1, 2, 2), (0, 0, 0, 0, 0, 0)])
def test_pad_modes(mode, pads):
    check_one_node("Pad", _data((2, 3, 4)), {"pads": _i64(*pads)}, mode=mode)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.int32])
def test_pad_constant_value_and_crop(dtype):
    x = _data((3, 5), dtype)
    constants = {"pads": _i64(1, -1, -2, 2), "value": np.array(7, dtype=dtype)}
    check_one_node("Pad", x, constants, mode="constant")


# The constant mode's row copy: pads on the last axis only (a channel pad in NHWC, as BlazeFace's
# residual blocks do), on an inner axis with unpadded axes after it (NCHW's channel pad: one block per
# image), on outer axes only, on several; zero and non-zero fills of 1-, 4- and 8-byte types.
@pytest.mark.parametrize("shape,pads", [
    ((1, 4, 5, 6), (0, 0, 0, 0, 0, 0, 0, 10)),
    ((2, 6, 4, 5), (0, 0, 0, 0, 0, 6, 0, 0)),
    ((2, 6, 4, 5), (0, 3, 0, 0, 0, 6, 0, 0)),
    ((3, 4, 5), (2, 0, 0, 1, 0, 0)),
    ((2, 3, 4, 3), (0, 1, 2, 1, 1, 0, 2, 2)),
    ((2, 0, 3), (0, 1, 1, 0, 2, 1)),
])
@pytest.mark.parametrize("dtype,value", [(np.float32, 0), (np.float32, -2.5), (np.uint8, 9), (np.int8, -3),
                                         (np.int32, 0), (np.int64, 0), (np.int64, 123456789012)])
def test_pad_constant_rows(shape: tuple[int, ...], pads: tuple[int, ...], dtype: type, value: float) -> None:
    check_one_node("Pad", _data(shape, dtype), {"pads": _i64(*pads), "value": np.array(value, dtype=dtype)},
                   mode="constant")


def test_pad_with_axes():
    x = _data((2, 3, 4))
    constants = {"pads": _i64(1, 2, 2, 1), "value": np.array(-1.5, np.float32), "axes": _i64(-1, 0)}
    check_one_node("Pad", x, constants, mode="constant")


# -- gather family ------------------------------------------------------------------------------------
@pytest.mark.parametrize("axis,indices", [
    (0, np.array([2, 0, -1], np.int64)),
    (1, np.array([[1, -4], [3, 0]], np.int64)),
    (-1, np.array(2, np.int64)),
    (2, np.array([[4], [0]], np.int32)),
])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_gather(axis, indices, dtype):
    check_one_node("Gather", _data((3, 4, 5), dtype), {"indices": indices}, axis=axis)


def test_gather_out_of_range_index_is_an_error():
    from runtime_arm.errors import LiteError

    x = _data((3, 4))
    node = helper.make_node("Gather", ["x", "i"], ["y"], axis=0)
    model = make_model([node], {"x": x, "i": _i64(0, 3)}, {"y": np.float32})
    with pytest.raises(LiteError, match="out of range"):
        run_lite(model, {"x": x, "i": _i64(0, 3)})
    with pytest.raises(LiteError, match="out of range"):
        run_lite(model, {"x": x, "i": _i64(-4, 0)})


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_gather_elements(axis):
    x = _data((3, 4))
    rng = np.random.default_rng(1)
    size = x.shape[axis]
    indices = rng.integers(-size, size, size=(2, 3)).astype(np.int64)
    check_one_node("GatherElements", x, {"indices": indices}, axis=axis)


@pytest.mark.parametrize("data_shape,indices,batch_dims", [
    ((2, 2), [[0, 0], [1, 1]], 0),
    ((2, 2), [[1], [0]], 0),
    ((2, 2, 2), [[0, 1], [1, 0]], 0),
    ((2, 2, 2), [[[0, 1]], [[1, 0]]], 0),
    ((2, 2, 2), [[1], [0]], 1),
    ((2, 3, 4), [[[1, -1], [0, 0]], [[2, 3], [-3, 1]]], 1),
])
def test_gather_nd(data_shape, indices, batch_dims):
    indices = np.array(indices, dtype=np.int64)
    check_one_node("GatherND", _data(data_shape), {"indices": indices}, batch_dims=batch_dims)


# -- scatter family --------------------------------------------------------------------------------------
@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_scatter_elements(axis, reduction):
    x = _data((3, 4))
    size = x.shape[axis]
    # unique destinations for "none" (duplicates are undefined there); duplicates for reductions
    indices = np.array([[0, size - 1, 1], [size - 2, 0, -1]], dtype=np.int64) if reduction != "none" else \
        np.array([[0, size - 1, 1]], dtype=np.int64)
    if axis == 0 and reduction == "none":
        indices = np.array([[0, 2, 1]], dtype=np.int64)
    updates = _data(indices.shape, seed=3)
    check_one_node("ScatterElements", x, {"indices": indices, "updates": updates}, axis=axis,
                   reduction=reduction)


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
def test_scatter_nd(reduction):
    x = _data((4, 3, 2), np.float32)
    indices = np.array([[1], [3]] if reduction == "none" else [[1], [3], [1]], dtype=np.int64)
    updates = _data((indices.shape[0], 3, 2), seed=4)
    check_one_node("ScatterND", x, {"indices": indices, "updates": updates}, reduction=reduction)


def test_scatter_nd_element_indices():
    x = _data((3, 4), np.int64)
    indices = np.array([[0, 1], [2, -1], [-3, 3]], dtype=np.int64)
    updates = np.array([100, 200, 300], dtype=np.int64)
    check_one_node("ScatterND", x, {"indices": indices, "updates": updates})


# -- shape, size, expand, tile ----------------------------------------------------------------------
@pytest.mark.parametrize("attrs", [{}, {"start": 1}, {"end": -1}, {"start": -3, "end": 3}, {"start": 5},
                                   {"start": 2, "end": 1}])
def test_shape(attrs):
    check_one_node("Shape", _data((2, 3, 4, 5)), out_dtype=np.int64, **attrs)


def test_size():
    check_one_node("Size", _data((2, 3, 4)), out_dtype=np.int64)


@pytest.mark.parametrize("x_shape,shape", [((3, 1), (2, 3, 4)), ((1,), (5,)), ((2, 1, 4), (3, 1)),
                                           ((4,), (2, 1, 1)), ((2, 3), (1, 1))])
def test_expand(x_shape, shape):
    check_one_node("Expand", _data(x_shape, np.int64), {"shape": _i64(*shape)})


@pytest.mark.parametrize("x_shape,repeats", [((2, 3), (2, 1)), ((2, 1, 3), (1, 4, 2)), ((3,), (0,)),
                                             ((2, 2), (3, 3))])
def test_tile(x_shape, repeats):
    check_one_node("Tile", _data(x_shape), {"repeats": _i64(*repeats)})


# -- generators: range, constant_of_shape, one_hot, trilu, non_zero ------------------------------------
@pytest.mark.parametrize("start,limit,delta,dtype", [
    (0, 10, 3, np.int64), (10, -3, -2, np.int32), (1, 1, 1, np.int64),
    (0.5, 3.2, 0.3, np.float32), (2.0, -1.0, -0.25, np.float32),
])
def test_range(start, limit, delta, dtype):
    constants = {"s": np.array(start, dtype), "l": np.array(limit, dtype), "d": np.array(delta, dtype)}
    node = helper.make_node("Range", ["s", "l", "d"], ["y"])
    model = make_model([node], {}, {"y": dtype}, constants)
    check_against_onnxruntime(model, {})


@pytest.mark.parametrize("value", [None, np.array([1.5], np.float32), np.array([-7], np.int64),
                                   np.array([1], np.int32)])
@pytest.mark.parametrize("shape", [(2, 3), (0,), ()])
def test_constant_of_shape(value, shape):
    attrs, out = {}, np.float32
    if value is not None:
        attrs, out = {"value": helper.make_tensor("value", onnx_type(value.dtype), [1], value)}, value.dtype
    node = helper.make_node("ConstantOfShape", ["shape"], ["y"], **attrs)
    model = make_model([node], {}, {"y": out}, {"shape": np.array(shape, dtype=np.int64)})
    check_against_onnxruntime(model, {})


ONE_HOT_INDICES = [[0, 3, -1], [9, -10, 12]]  # negative ones wrap, 12 is out of range: all off


@pytest.mark.parametrize("axis", [-1, 0, 1])
@pytest.mark.parametrize("indices_dtype", [np.int64, np.float32])
def test_one_hot(axis, indices_dtype):
    indices = np.array(ONE_HOT_INDICES, dtype=indices_dtype)
    constants = {"depth": np.array(10, np.int64), "values": np.array([-2, 5], np.int64)}
    node = helper.make_node("OneHot", ["x", "depth", "values"], ["y"], axis=axis)
    model = make_model([node], {"x": indices}, {"y": np.int64}, constants)
    check_against_onnxruntime(model, {"x": indices})


def _one_hot_numpy(indices: np.ndarray, depth: int, values: np.ndarray, axis: int) -> np.ndarray:
    """The ONNX OneHot definition, for dtype combinations onnxruntime has no kernel for."""
    index = indices.astype(np.int64)
    index = np.where(index < 0, index + depth, index)
    hot = np.moveaxis(index[..., None] == np.arange(depth), -1, axis)
    return np.where(hot, values[1], values[0])


@pytest.mark.parametrize("axis", [-1, 0])
def test_one_hot_int32_against_numpy(axis):
    indices = np.array(ONE_HOT_INDICES, dtype=np.int32)
    values = np.array([0.5, -1.0], np.float32)
    constants = {"depth": np.array(10.0, np.float32), "values": values}
    node = helper.make_node("OneHot", ["x", "depth", "values"], ["y"], axis=axis)
    model = make_model([node], {"x": indices}, {"y": np.float32}, constants)
    actual = run_lite(model, {"x": indices})["y"]
    np.testing.assert_array_equal(actual, _one_hot_numpy(indices, 10, values, axis))


@pytest.mark.parametrize("upper", [0, 1])
@pytest.mark.parametrize("k", [None, 0, 2, -1, -10, 10])
@pytest.mark.parametrize("shape", [(4, 5), (2, 3, 3), (5, 2)])
def test_trilu(shape, k, upper):
    constants = {"k": np.array(k, np.int64)} if k is not None else {}
    check_one_node("Trilu", _data(shape), constants, upper=upper)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_])
def test_non_zero_of_a_constant(dtype):
    values = np.array([[0, 1, 0], [2, 0, -3]]).astype(dtype)
    node = helper.make_node("NonZero", ["c"], ["y"])
    model = make_model([node], {}, {"y": np.int64}, {"c": values})
    check_against_onnxruntime(model, {})


def test_non_zero_of_runtime_data_is_refused_clearly():
    from lite_converter.ir import ConversionError
    from runtime_arm.errors import LiteError

    x = np.array([0, 1, 2], dtype=np.float32)
    model = make_model([helper.make_node("NonZero", ["x"], ["y"])], {"x": x}, {"y": np.int64})
    with pytest.raises((LiteError, ConversionError), match="prepare time|NonZero|NON_ZERO"):
        run_lite(model, {"x": x})


# -- reverse_sequence --------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,batch_axis,time_axis,lens", [
    ((4, 3), 1, 0, (4, 0, 2)),                 # time-major (the default axes), a zero and a full length
    ((3, 5), 0, 1, (1, 5, 3)),                 # batch-major
    ((5, 2, 3), 1, 0, (5, 4)),                 # rows of 3 elements move together
    ((2, 6, 2, 3), 0, 1, (6, 1)),
    ((4, 0, 2), 1, 0, ()),                     # empty batch
    ((0, 2), 1, 0, (0, 0)),                    # no time steps
])
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8, np.bool_])
def test_reverse_sequence(shape, batch_axis, time_axis, lens, dtype):
    """sequence_lens as graph data (read at eval), as in ONNX's node tests."""
    x, seq_lens = _data(shape, dtype), np.array(lens, np.int64)
    node = helper.make_node("ReverseSequence", ["x", "lens"], ["y"], batch_axis=batch_axis,
                            time_axis=time_axis)
    model = make_model([node], {"x": x, "lens": seq_lens}, {"y": x.dtype})
    check_against_onnxruntime(model, {"x": x, "lens": seq_lens})


def test_reverse_sequence_default_axes_with_constant_lengths():
    check_one_node("ReverseSequence", _data((5, 3, 2)), {"lens": _i64(5, 3, 1)})


@pytest.mark.parametrize("lens", [(2, 5, 1), (2, -1, 1)])
def test_reverse_sequence_length_outside_the_time_axis_is_refused(lens):
    """onnxruntime refuses such lengths too; ours names the entry."""
    from runtime_arm.errors import LiteError

    x, seq_lens = _data((4, 3)), np.array(lens, np.int64)
    node = helper.make_node("ReverseSequence", ["x", "lens"], ["y"])
    model = make_model([node], {"x": x, "lens": seq_lens}, {"y": np.float32})
    with pytest.raises(LiteError, match=rf"sequence_lens\[1\] = {lens[1]} is outside \[0, 4\]"):
        run_lite(model, {"x": x, "lens": seq_lens})


def test_reverse_sequence_with_other_axes_is_refused_by_the_converter():
    from lite_converter.ir import ConversionError

    x = _data((2, 3, 4))
    node = helper.make_node("ReverseSequence", ["x", "lens"], ["y"], batch_axis=2, time_axis=0)
    model = make_model([node], {"x": x}, {"y": np.float32}, {"lens": _i64(1, 2, 3, 4)})
    with pytest.raises(ConversionError, match="batch_axis 2 and time_axis 0 must be 0 and 1"):
        run_lite(model, {"x": x})


# -- shape subgraphs with dynamic input shapes -------------------------------------------------------------
def test_dynamic_shape_subgraph_is_evaluated_at_prepare_time():
    """Shape -> Gather -> Unsqueeze -> Concat -> Reshape, re-prepared for each input size."""
    from lite_converter.convert import convert_onnx
    from runtime_arm import Interpreter
    from tests.test_ops_elementwise import run_onnxruntime

    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "axes"], ["n1"]),
        helper.make_node("Slice", ["s", "two", "four"], ["hw"]),
        helper.make_node("ReduceProd", ["hw"], ["area"], keepdims=1),
        helper.make_node("Concat", ["n1", "minus_one", "area"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
    ]
    constants = {"zero": np.array(0, np.int64), "axes": _i64(0), "two": _i64(2), "four": _i64(4),
                 "minus_one": _i64(-1)}
    first = _data((2, 3, 4, 5))
    model = make_model(nodes, {"x": first}, {"y": np.float32}, constants,
                       input_shapes={"x": ["N", 3, "H", "W"]})
    interpreter = Interpreter(model_content=convert_onnx(model), threads=1)
    for shape in [(2, 3, 4, 5), (1, 3, 7, 2), (3, 3, 1, 1)]:
        x = _data(shape)
        expected = run_onnxruntime(model, {"x": x})["y"]
        actual = interpreter.run({"x": x})["y"]
        assert actual.shape == expected.shape
        np.testing.assert_array_equal(actual, expected)
