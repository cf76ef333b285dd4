"""LSTM, GRU, RNN: one .lite op each, with ONNX's inputs and outputs (RecurrentOptions).

The converter resolves what ONNX leaves implicit, so the runtime reads plain values: the gate
functions of every direction (a bidirectional node that lists one direction's functions uses them
for both, as onnxruntime does) and one alpha and beta per function. ONNX consumes
``activation_alpha`` / ``activation_beta`` in the order of the functions that take them (a Sigmoid
takes none), with each function's own default where the list runs out; onnxruntime does the same.
"""

from __future__ import annotations

from typing import Any

from lite_converter.ir import Graph, Node
from lite_converter.lite_fb.RecurrentActivation import RecurrentActivation
from lite_converter.passes.lowering.emitter import Emitter
from lite_converter.passes.lowering.registry import lowers

_CELL = {"LSTM": ("LSTM", 3, ("Sigmoid", "Tanh", "Tanh")), "GRU": ("GRU", 2, ("Sigmoid", "Tanh")),
         "RNN": ("RNN", 1, ("Tanh",))}
_DIRECTIONS = {"forward": 0, "reverse": 1, "bidirectional": 2}
# ONNX name -> (code, default alpha or None when it takes none, default beta or None)
_FUNCTIONS: dict[str, tuple[int, float | None, float | None]] = {
    "sigmoid": (RecurrentActivation.SIGMOID, None, None),
    "tanh": (RecurrentActivation.TANH, None, None),
    "relu": (RecurrentActivation.RELU, None, None),
    "hardsigmoid": (RecurrentActivation.HARD_SIGMOID, 0.2, 0.5),
    "affine": (RecurrentActivation.AFFINE, 1.0, 0.0),
    "leakyrelu": (RecurrentActivation.LEAKY_RELU, 0.01, None),
    "thresholdedrelu": (RecurrentActivation.THRESHOLDED_RELU, 1.0, None),
    "scaledtanh": (RecurrentActivation.SCALED_TANH, 1.0, 1.0),
    "elu": (RecurrentActivation.ELU, 1.0, None),
    "softsign": (RecurrentActivation.SOFTSIGN, None, None),
    "softplus": (RecurrentActivation.SOFTPLUS, None, None),
}


_SPELLED = ("Sigmoid", "Tanh", "Relu", "HardSigmoid", "Affine", "LeakyRelu", "ThresholdedRelu", "ScaledTanh",
            "Elu", "Softsign", "Softplus")


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _direction(node: Node) -> str:
    return _text(node.attrs.get("direction", "forward"))


def _function_names(node: Node) -> list[str]:
    """The gate functions of every direction, in order (defaults filled in, one list repeated)."""
    _, per_direction, defaults = _CELL[node.op_type]
    directions = 2 if _direction(node) == "bidirectional" else 1
    names = [_text(v) for v in node.attrs.get("activations") or defaults]
    if directions == 2 and len(names) == per_direction:
        names = names * 2
    return names


def check_recurrent(graph: Graph, node: Node) -> list[str]:
    """Attribute values the RECURRENT ops cannot run, by name."""
    problems = []
    direction = _direction(node)
    if direction not in _DIRECTIONS:
        problems.append(f"direction '{direction}' is not forward, reverse or bidirectional")
        return problems
    _, per_direction, _ = _CELL[node.op_type]
    names = _function_names(node)
    directions = 2 if direction == "bidirectional" else 1
    if len(names) != per_direction * directions:
        problems.append(f"activations lists {len(names)} functions; {node.op_type} needs {per_direction} per "
                        f"direction ({per_direction * directions})")
    unknown = sorted({n for n in names if n.lower() not in _FUNCTIONS})
    if unknown:
        problems.append(f"activation function(s) {', '.join(unknown)} not supported (supported: "
                        + ", ".join(_SPELLED) + ")")
    layout = int(node.attrs.get("layout", 0))
    if layout not in (0, 1):
        problems.append(f"layout {layout} is not 0 or 1")
    if node.op_type == "LSTM" and int(node.attrs.get("output_sequence", 0)) != 0:
        problems.append("output_sequence (LSTM-1) is not supported")
    return problems


@lowers("LSTM", "GRU", "RNN", check=check_recurrent)
def lower_recurrent(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    op, _, _ = _CELL[node.op_type]
    kinds, alphas, betas = [], [], []
    given_alpha = [float(v) for v in node.attrs.get("activation_alpha") or []]
    given_beta = [float(v) for v in node.attrs.get("activation_beta") or []]
    for name in _function_names(node):
        code, alpha, beta = _FUNCTIONS[name.lower()]
        kinds.append(code)
        if alpha is not None and given_alpha:
            alpha = given_alpha.pop(0)
        if beta is not None and given_beta:
            beta = given_beta.pop(0)
        alphas.append(0.0 if alpha is None else alpha)
        betas.append(0.0 if beta is None else beta)
    hidden = node.attrs.get("hidden_size")
    if hidden is None:
        r_shape = e.shape(node.inputs[2])
        hidden = r_shape[-1] if r_shape else None
    outputs = list(node.outputs)
    while outputs and not outputs[-1]:
        outputs.pop()
    for index, name in enumerate(outputs):  # an omitted output before a wanted one: a scratch tensor
        if not name:
            outputs[index] = e.tensor(f"unused_output_{index}", e.dtype(node.inputs[0]))
    clip = node.attrs.get("clip")
    e.emit(op, list(node.inputs), outputs, direction=_DIRECTIONS[_direction(node)], hidden_size=int(hidden),
           activations=kinds, activation_alpha=alphas, activation_beta=betas,
           clip=0.0 if clip is None else float(clip),
           input_forget=bool(int(node.attrs.get("input_forget", 0))),
           linear_before_reset=bool(int(node.attrs.get("linear_before_reset", 0))),
           batch_major=int(node.attrs.get("layout", 0)) == 1)
    return e.nodes
