"""``slim.compress``: ONNX model + calibration data -> int8 .lite file, in one call.

load -> check the data against the model's inputs (before any work) -> optimize -> lower ->
channels-last -> calibrate (fp32 run on our runtime, observers per tensor) -> int8 pass -> write.
"""

from __future__ import annotations

import dataclasses
import os

import onnx

from lite_converter.atomic_write import write_atomically
from lite_converter.frontends.onnx_frontend import load_onnx
from lite_converter.ir import Graph
from lite_converter.passes.layout_nhwc import to_channels_last
from lite_converter.passes.lower_to_lite import lower_to_lite
from lite_converter.passes.memory_plan import plan_memory
from lite_converter.passes.optimize import optimize
from lite_converter.passes.quantize_int8 import QuantizeInputs, quantize_int8
from lite_converter.passes.support import check_supported
from lite_converter.writer import serialize
from slim.calibrate import calibrate
from slim.calibration_data import CalibrationInput, InputSpec, load_batches
from slim.config import QuantConfig, resolve_config


@dataclasses.dataclass
class CompressResult:
    """What compress did: the quantized graph, which nodes run in int8, the file bytes."""

    graph: Graph
    int8_nodes: list[str]
    fp32_nodes: list[str]
    lite_bytes: bytes


def compress(
    model: str | os.PathLike | onnx.ModelProto,
    output_path: str | os.PathLike | None,
    data: CalibrationInput,
    config: str | QuantConfig = "int8",
    input_shapes: dict[str, list[int]] | None = None,
) -> CompressResult:
    """Post-training int8 quantization of an ONNX model into a .lite file (written atomically).

    ``data``: calibration batches (see slim.calibration_data); ``config``: a preset name ("int8")
    or a slim.QuantConfig. Raises slim.CalibrationDataError before any work when the data does
    not fit the model's inputs.
    """
    settings = resolve_config(config)
    graph = load_onnx(model, input_shapes=input_shapes)
    specs = [InputSpec(name, graph.tensors[name].dtype, graph.tensors[name].shape) for name in graph.inputs]
    batches = load_batches(data, specs)
    check_supported(graph)
    optimize(graph)
    lower_to_lite(graph)
    to_channels_last(graph)
    algorithm_of = {node.outputs[0]: settings.overrides[node.name]
                    for node in graph.nodes if node.name in settings.overrides and node.outputs}
    result = calibrate(graph, batches, settings, algorithm_of)
    int8_nodes = quantize_int8(graph, QuantizeInputs(result.ranges, result.shapes, set(settings.skip_nodes)))
    lite_bytes = serialize(graph, plan_memory(graph))
    if output_path is not None:
        write_atomically(output_path, lite_bytes)
    borders = ("QUANTIZE", "DEQUANTIZE")
    fp32_nodes = [n.name for n in graph.nodes if n.name not in int8_nodes and n.op_type not in borders]
    return CompressResult(graph, int8_nodes, fp32_nodes, lite_bytes)
