"""TFLite builtin name -> the converter that imports it: one table over the per-family modules
(tflite_ops.py: convolutions, pools, the int8-aware core; tflite_ops_elementwise.py; tflite_ops_shape.py;
tflite_ops_spatial.py; tflite_ops_composite.py; tflite_variables.py; tflite_ops_recurrent.py;
tflite_ops_control_flow.py: IF, WHILE). An op missing here is refused by name
(tflite_refusals.py)."""

from __future__ import annotations

from lite_converter.frontends import (
    tflite_ops,
    tflite_ops_composite,
    tflite_ops_control_flow,
    tflite_ops_elementwise,
    tflite_ops_recurrent,
    tflite_ops_shape,
    tflite_ops_spatial,
    tflite_variables,
)

CONVERTERS: dict[str, tflite_ops.Converter] = {
    **tflite_ops.CONVERTERS,
    **tflite_ops_elementwise.CONVERTERS,
    **tflite_ops_shape.CONVERTERS,
    **tflite_ops_spatial.CONVERTERS,
    **tflite_ops_composite.CONVERTERS,
    **tflite_ops_control_flow.CONVERTERS,
    **tflite_variables.CONVERTERS,
    **tflite_ops_recurrent.CONVERTERS,
}
