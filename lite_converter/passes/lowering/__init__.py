"""Lowering of ONNX ops into .lite ops, one module per op family (see registry.py).

Importing this package registers every family's lowerings and support checks.
"""

from lite_converter.passes.lowering import (  # noqa: F401 - imported for their registrations
    composite_norms,
    control_flow,
    convolution,
    dense,
    einsum,
    elementwise,
    indexing,
    integer_ops,
    normalization,
    pooling,
    recurrent,
    reduction,
    resize,
    sequences,
    shape_ops,
    softmax,
)
from lite_converter.passes.lowering.registry import CHECKS, LOWERINGS, SHAPE_INPUTS

__all__ = ["CHECKS", "LOWERINGS", "SHAPE_INPUTS"]
