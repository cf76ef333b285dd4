"""The IR level slim trains and prunes at: the imported graph after constant folding, before fusion.

Constants and shape subgraphs are folded and identities removed (so Reshape targets and Clip bounds
are constants where the model allows), but BatchNormalization nodes and activations stay separate
nodes: BN statistics can be frozen or trained, BN scales rank channels, and every activation is an
op the torch executor and the pruning rules see directly. The converter's ``optimize`` later folds
and fuses the result exactly as it would the original model.
"""

from __future__ import annotations

import copy
import os

import onnx

from lite_converter.convert import load_model, source_format
from lite_converter.ir import ConversionError, Graph
from lite_converter.passes.eliminate_dead_code import eliminate_dead_code
from lite_converter.passes.optimize import fold_until_stable
from lite_converter.passes.remove_identity import remove_identity
from lite_converter.passes.support import check_supported


def trainable_graph(graph: Graph) -> Graph:
    """Folds constants and removes identities and dead code of an ONNX-vocabulary graph, in place."""
    remove_identity(graph)
    fold_until_stable(graph)
    eliminate_dead_code(graph)
    graph.toposort()
    return graph


def load_trainable(model: str | os.PathLike | onnx.ModelProto | bytes | Graph,
                   input_shapes: dict[str, list[int]] | None = None) -> Graph:
    """An ONNX model (path, proto), a Paddle inference model (folder or program file), or an already
    loaded ONNX-vocabulary IR graph (copied), at the trainable level. Raises ConversionError for a
    .tflite (its frontend lowers to channels-last .lite ops at once) or an already quantized model,
    and lists every unsupported op first, as conversion would."""
    if isinstance(model, Graph):
        graph = copy.deepcopy(model)
    else:
        kind = source_format(model)
        if kind == "tflite":
            raise ConversionError("training, pruning and distillation work on ONNX and Paddle models (and "
                                  "graphs in ONNX vocabulary); a .tflite arrives already lowered to "
                                  "channels-last .lite ops: export the float model to ONNX instead")
        loaded = load_model(model, input_shapes, frontend=kind)
        if loaded.quantized:
            raise ConversionError(f"this {kind} model is quantized already (QuantizeLinear / "
                                  "DequantizeLinear nodes): prune the float model, then quantize "
                                  "(config prune_R+int8)")
        graph = loaded.graph
    check_supported(graph)
    return trainable_graph(graph)
