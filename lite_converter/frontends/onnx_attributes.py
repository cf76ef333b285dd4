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


def tensor_to_numpy(tensor: onnx.TensorProto) -> np.ndarray:
    """The value of an ONNX tensor (external data must already be loaded into the proto)."""
    if tensor.data_location == onnx.TensorProto.EXTERNAL and not tensor.raw_data:
        raise ConversionError(
            f"tensor '{tensor.name}' keeps its data in an external file that was not loaded: "
            "pass the model path (not a ModelProto) so the .onnx.data file next to it is read"
        )
    return numpy_helper.to_array(tensor)


def sparse_to_numpy(sparse: onnx.SparseTensorProto) -> np.ndarray:
    """A dense copy of a sparse tensor attribute (Constant's sparse_value)."""
    values = tensor_to_numpy(sparse.values)
    indices = tensor_to_numpy(sparse.indices).astype(np.int64)
    dense = np.zeros(int(np.prod(sparse.dims)), dtype=values.dtype)
    if indices.ndim == 2:  # [nnz, rank] coordinates
        indices = np.ravel_multi_index(indices.T, tuple(sparse.dims))
    dense[indices.reshape(-1)] = values.reshape(-1)
    return dense.reshape(tuple(sparse.dims))


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
