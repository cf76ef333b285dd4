"""Runs float16/float64 computation in float32, the only float type .lite compute ops take.

docs/OPS.md: float ops run in FLOAT32; data-movement ops are dtype generic. So a model computing
in half or double keeps its tensors' dtypes at the boundaries and in data movement, while every
compute op gets CASTs to float32 around it (constant operands are converted here, once). ONNX's
own reference computes half-precision ops through float32 as well, so single ops match it exactly.
"""

from __future__ import annotations

import numpy as np

from lite_converter.ir import Graph, Node
from lite_converter.lite_ops import DTYPE_GENERIC_OPS  # ops that keep the source dtype
from lite_converter.passes.lowering.emitter import dtype_name

_PROMOTED = (np.dtype(np.float16), np.dtype(np.float64))
# Float-only ops that ONNX also defines on small integers, which float32 represents exactly.
_SMALL_INTS = (np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int16), np.dtype(np.uint16))
_FLOAT_ONLY_OPS = {"MAX_POOL_2D"}
_FLOAT32 = np.dtype(np.float32)


def _promoted(node: Node) -> tuple[np.dtype, ...]:
    return _PROMOTED + _SMALL_INTS if node.op_type in _FLOAT_ONLY_OPS else _PROMOTED


def _needs_promotion(graph: Graph, node: Node) -> bool:
    names = [n for n in (*node.inputs, *node.outputs) if n]
    promoted = _promoted(node)
    return node.op_type not in DTYPE_GENERIC_OPS and any(graph.tensors[n].dtype in promoted for n in names)


def promote_float32(graph: Graph) -> None:
    """Wraps every half/double compute op in CASTs to and from float32."""
    result: list[Node] = []
    for node in graph.nodes:
        if not _needs_promotion(graph, node):
            result.append(node)
            continue
        promoted = _promoted(node)
        inputs = []
        for name in node.inputs:
            tensor = graph.tensors.get(name) if name else None
            if tensor is None or tensor.dtype not in promoted:
                inputs.append(name)
            elif tensor.is_constant:
                inputs.append(graph.add_constant(f"{name}/f32", tensor.data.astype(np.float32)))
            else:
                cast = graph.add_tensor(f"{name}/f32", _FLOAT32, tensor.shape)
                to_f32 = Node("CAST", f"{node.name}/to_f32_{len(inputs)}", [name], [cast], {"to": "FLOAT32"})
                result.append(to_f32)
                inputs.append(cast)
        node.inputs = inputs
        casts_back = []
        for index, name in enumerate(node.outputs):
            tensor = graph.tensors.get(name) if name else None
            if tensor is None or tensor.dtype not in promoted:
                continue
            wide = graph.add_tensor(f"{name}/f32", _FLOAT32, tensor.shape)
            node.outputs[index] = wide
            to = dtype_name(tensor.dtype)
            casts_back.append(Node("CAST", f"{node.name}/from_f32_{index}", [wide], [name], {"to": to}))
        result.append(node)
        result.extend(casts_back)
    graph.nodes = result
