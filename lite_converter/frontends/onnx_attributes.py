"""ONNX attributes and tensors as plain python / numpy values, the form the IR stores them in.

The IR keeps attributes as python values so passes never need the protobuf classes: ints, floats,
``str`` (ONNX stores bytes; every attribute we use is text), lists of those, numpy arrays for tensor
attributes. Subgraph attributes (If/Loop bodies) are kept as their GraphProto: no supported op has
one, so they only travel as far as check_supported's error message.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper

from lite_converter.ir import ConversionError

# The largest tensor a model file may make us build in memory (a sparse tensor's dense copy; a dense
# tensor is as large as the bytes the file carries): a few bytes of a hostile file must not commit
# gigabytes (docs/RELIABILITY.md).
MAX_TENSOR_BYTES = 1 << 30


def _checked_dims(tensor_name: str, dims: Any) -> tuple[int, ...]:
    """The dims of a tensor, refused when negative or when the element count is absurd."""
    shape = tuple(int(d) for d in dims)
    if any(d < 0 for d in shape):
        raise ConversionError(f"tensor '{tensor_name}' has a negative dimension: {list(shape)}")
    count = 1
    for d in shape:
        count *= d
    if count > MAX_TENSOR_BYTES:
        raise ConversionError(f"tensor '{tensor_name}' of shape {list(shape)} has {count} elements "
                              f"(at most {MAX_TENSOR_BYTES} are read)")
    return shape


def tensor_to_numpy(tensor: onnx.TensorProto) -> np.ndarray:
    """The value of an ONNX tensor (external data must already be loaded into the proto).

    A file from anywhere may declare an element type that does not exist, negative dims, or dims
    that its data does not fill: each is a ConversionError naming the tensor, not a traceback."""
    if tensor.data_location == onnx.TensorProto.EXTERNAL and not tensor.raw_data:
        raise ConversionError(
            f"tensor '{tensor.name}' keeps its data in an external file that was not loaded: "
            "pass the model path (not a ModelProto) so the .onnx.data file next to it is read"
        )
    if elem_type_to_numpy(tensor.data_type) is None:
        raise ConversionError(f"tensor '{tensor.name}' has an undefined or unknown element type "
                              f"({tensor.data_type})")
    shape = _checked_dims(tensor.name, tensor.dims)
    try:
        value = numpy_helper.to_array(tensor)
    except (ValueError, TypeError, IndexError, KeyError, OverflowError) as err:
        raise ConversionError(f"tensor '{tensor.name}' of shape {list(shape)} and type "
                              f"{onnx.TensorProto.DataType.Name(tensor.data_type)} has data that does not "
                              f"match its shape or type ({type(err).__name__}: {err})") from None
    return value


def sparse_to_numpy(sparse: onnx.SparseTensorProto) -> np.ndarray:
    """A dense copy of a sparse tensor attribute or initializer (refused when the copy would be over
    MAX_TENSOR_BYTES or an index is outside the dims)."""
    name = sparse.values.name
    shape = _checked_dims(name, sparse.dims)
    values = tensor_to_numpy(sparse.values)
    indices = tensor_to_numpy(sparse.indices)
    size = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if size * values.dtype.itemsize > MAX_TENSOR_BYTES:
        raise ConversionError(f"sparse tensor '{name}' of shape {list(shape)} would need "
                              f"{size * values.dtype.itemsize} bytes dense (at most {MAX_TENSOR_BYTES})")
    if indices.dtype.kind not in "iu":
        raise ConversionError(f"sparse tensor '{name}' has indices of type {indices.dtype}, not integers")
    indices = indices.astype(np.int64)
    try:
        if indices.ndim == 2:  # [nnz, rank] coordinates
            indices = np.ravel_multi_index(indices.T, shape)
        flat = indices.reshape(-1)
        if flat.size != values.size or (flat.size and (flat.min() < 0 or flat.max() >= size)):
            raise ValueError(f"{flat.size} indices for {values.size} values in {size} elements")
    except ValueError as err:
        raise ConversionError(f"sparse tensor '{name}' of shape {list(shape)} has indices that do not "
                              f"fit it: {err}") from None
    dense = np.zeros(size, dtype=values.dtype)
    dense[flat] = values.reshape(-1)
    return dense.reshape(shape)


def attribute_value(attr: onnx.AttributeProto) -> Any:
    """The python value of one attribute."""
    kind = attr.type
    A = onnx.AttributeProto
    if kind == A.FLOAT:
        return float(attr.f)
    if kind == A.INT:
        return int(attr.i)
    if kind == A.STRING:
        return attr.s.decode("utf-8", errors="replace")
    if kind == A.TENSOR:
        return tensor_to_numpy(attr.t)
    if kind == A.SPARSE_TENSOR:
        return sparse_to_numpy(attr.sparse_tensor)
    if kind == A.GRAPH:
        return attr.g
    if kind == A.FLOATS:
        return [float(v) for v in attr.floats]
    if kind == A.INTS:
        return [int(v) for v in attr.ints]
    if kind == A.STRINGS:
        return [s.decode("utf-8", errors="replace") for s in attr.strings]
    if kind == A.TENSORS:
        return [tensor_to_numpy(t) for t in attr.tensors]
    if kind == A.GRAPHS:
        return list(attr.graphs)
    return onnx.helper.get_attribute_value(attr)


def node_attributes(node: onnx.NodeProto) -> dict[str, Any]:
    """All attributes of a node by name."""
    return {attr.name: attribute_value(attr) for attr in node.attribute}


def constant_node_value(node: onnx.NodeProto) -> np.ndarray:
    """The tensor an ONNX ``Constant`` node produces, whichever ``value*`` attribute it uses."""
    attrs = node_attributes(node)
    if "value" in attrs:
        return np.asarray(attrs["value"])
    if "sparse_value" in attrs:
        return np.asarray(attrs["sparse_value"])
    if "value_float" in attrs:
        return np.array(attrs["value_float"], dtype=np.float32)
    if "value_floats" in attrs:
        return np.array(attrs["value_floats"], dtype=np.float32)
    if "value_int" in attrs:
        return np.array(attrs["value_int"], dtype=np.int64)
    if "value_ints" in attrs:
        return np.array(attrs["value_ints"], dtype=np.int64)
    if "value_string" in attrs:
        return np.array(attrs["value_string"], dtype=object)
    if "value_strings" in attrs:
        return np.array(attrs["value_strings"], dtype=object)
    raise ConversionError(f"Constant node '{node.name}' has no value attribute")


def elem_type_to_numpy(elem_type: int) -> np.dtype | None:
    """numpy dtype of an ONNX element type (None when undefined)."""
    if elem_type == onnx.TensorProto.UNDEFINED:
        return None
    if elem_type == onnx.TensorProto.STRING:
        return np.dtype(object)
    try:
        return np.dtype(onnx.helper.tensor_dtype_to_np_dtype(elem_type))
    except (KeyError, TypeError, ValueError):
        return None


def numpy_to_elem_type(dtype: np.dtype) -> int:
    """ONNX element type of a numpy dtype."""
    dtype = np.dtype(dtype)
    if dtype == np.dtype(object):
        return onnx.TensorProto.STRING
    return onnx.helper.np_dtype_to_tensor_dtype(dtype)
