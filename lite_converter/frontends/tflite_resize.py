"""A .tflite whose inputs have dynamic dims (shape_signature -1), imported at the shapes the user gives.

TF's converter writes every shape of such a file for the placeholder size (openWakeWord's
melspectrogram: signature [-1, -1], every shape computed for [1, 1]), so the file's shapes cannot be
imported as they stand. LiteRT, whose schema module the frontend already reads the file with, resizes
the inputs and runs every op's prepare: the shapes it then reports become the file's (the way
ONNX's own shape inference serves the ONNX frontend), and the import goes on as for a static model
of those shapes. A tensor whose shape LiteRT only learns while running (a size read from the data)
changes between prepare and a trial invoke on zeros: that model is refused, as is one whose
control-flow subgraphs would need resizing too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lite_converter.ir import ConversionError


def _ints(values: Any) -> list[int]:  # noqa: ANN401 - a list or numpy array of the object API, or None
    return [] if values is None else [int(v) for v in values]


def _input_indices(subgraph: Any, input_shapes: dict[str, list[int]]) -> dict[int, list[int]]:  # noqa: ANN401
    """Tensor index -> requested shape, each checked against the input's rank and static dims."""
    by_name = {}
    for index in _ints(subgraph.inputs):
        raw = subgraph.tensors[index].name
        by_name[raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw)] = index
    unknown = sorted(set(input_shapes) - set(by_name))
    if unknown:
        raise ConversionError(f"input shapes name unknown input(s) {unknown}; the model's inputs are "
                              f"{sorted(by_name)}")
    result = {}
    for name, shape in input_shapes.items():
        tensor = subgraph.tensors[by_name[name]]
        stored = _ints(tensor.shape)
        signature = _ints(tensor.shapeSignature) or stored
        shape = [int(d) for d in shape]
        if len(shape) != len(signature) or any(d < 1 for d in shape):
            raise ConversionError(f"input '{name}': shape {shape} does not fit its signature {signature}")
        fixed = [(d, want) for d, want in zip(signature, shape, strict=True) if d >= 0 and d != want]
        if fixed:
            raise ConversionError(f"input '{name}': shape {shape} changes static dims of its signature "
                                  f"{signature} (only its -1 dims can be set)")
        result[by_name[name]] = shape
    return result


def _litert_shapes(data: bytes, shapes: dict[int, list[int]], count: int) -> dict[int, list[int]]:
    """Tensor index -> shape of each of the main graph's ``count`` tensors after LiteRT resized the
    inputs (LiteRT's own temporaries, such as im2col buffers, come after them and are left out)."""
    try:
        from ai_edge_litert import interpreter as litert
    except ImportError as err:  # the tflite extra, as for reading the file
        raise ConversionError("setting a .tflite input's shape needs ai-edge-litert (pip install "
                              "'lite-edge[tflite]')") from err
    try:
        builtin = litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
        interpreter = litert.Interpreter(model_content=data, experimental_op_resolver_type=builtin)
        for index, shape in shapes.items():
            interpreter.resize_tensor_input(index, shape, strict=True)
        interpreter.allocate_tensors()
        prepared = {d["index"]: [int(v) for v in d["shape"]] for d in interpreter.get_tensor_details()
                    if d["index"] < count}
        for detail in interpreter.get_input_details():
            interpreter.set_tensor(detail["index"], np.zeros(detail["shape"], detail["dtype"]))
        interpreter.invoke()
        ran = {d["index"]: [int(v) for v in d["shape"]] for d in interpreter.get_tensor_details()}
    except (RuntimeError, ValueError) as err:
        raise ConversionError(f"LiteRT cannot prepare the model at input shapes {list(shapes.values())}: "
                              f"{err}") from None
    changed = sorted(i for i in prepared if ran.get(i) != prepared[i])
    if changed:
        raise ConversionError(f"{len(changed)} tensor(s) get their shape only while running (from input "
                              f"values, e.g. tensor {changed[0]}): not imported at fixed shapes")
    return prepared


def resize_inputs(model: Any, data: bytes, input_shapes: dict[str, list[int]]) -> None:  # noqa: ANN401
    """Gives the main graph of ``model`` (a TFLite ModelT read from ``data``) the shapes its tensors
    have with its inputs at ``input_shapes``; each tensor's signature becomes that shape."""
    subgraph = model.subgraphs[0]
    requested = _input_indices(subgraph, input_shapes)
    if all(_ints(subgraph.tensors[i].shape) == shape for i, shape in requested.items()):
        return  # the file's own shapes
    if len(model.subgraphs) > 1:
        raise ConversionError("input shapes can be set for a .tflite model with one subgraph only "
                              f"(this one has {len(model.subgraphs)})")
    for index, shape in _litert_shapes(data, requested, len(subgraph.tensors)).items():
        tensor = subgraph.tensors[index]
        tensor.shape = np.asarray(shape, np.int32)
        tensor.shapeSignature = None
