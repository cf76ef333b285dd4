"""The ``fused_activation`` node attribute: an activation folded into the op that produces its input.

The activation-fusion pass sets it on ONNX-vocabulary nodes (Conv, ConvTranspose, Gemm, MatMul,
Add/Sub/Mul/Div); lowering turns it into the ``activation`` field of the .lite options, and
``onnx_export`` expands it back into the ONNX ops it came from so a fused graph stays runnable by
onnxruntime (the oracle of the pass tests). The value is a dict::

    {"kind": "CLIP", "alpha": 0.0, "beta": 6.0}            # kinds: lite.fbs ActivationKind names
    {"kind": "PRELU", "alpha": 0.0, "beta": 0.0, "slope": "<tensor name>"}

``slope`` (PRELU only) names the constant slope tensor in the shape the source PRelu had; the
fused Conv also reads it as its input 3 (so passes see the tensor as used, and CONV_2D takes its
``prelu_slope`` there).
"""

from __future__ import annotations

from typing import Any

ATTR = "fused_activation"

# ActivationKind members usable here (NONE means no attribute at all).
KINDS = ("RELU", "CLIP", "SIGMOID", "TANH", "HARD_SIGMOID", "HARD_SWISH", "LEAKY_RELU", "SILU", "PRELU")


def make(kind: str, alpha: float = 0.0, beta: float = 0.0, slope: str | None = None) -> dict[str, Any]:
    """A fused-activation attribute value."""
    if kind not in KINDS:
        raise ValueError(f"unknown fused activation kind {kind}")
    value: dict[str, Any] = {"kind": kind, "alpha": float(alpha), "beta": float(beta)}
    if slope is not None:
        value["slope"] = slope
    return value
