"""ONNX-level graph optimization, run between the frontend and lowering.

Order matters: constants and shapes are folded first (so Reshape targets and Clip bounds become
constants), dead code goes, then the structural rewrites that need constant operands (BN folding,
per-channel affine folding into convs, hard-swish recognition) and last activation fusion, which
wants the final producer of every activation. Shapes are re-inferred after folding, since a
folded shape input can make the rest of the graph static.
"""

from __future__ import annotations

from lite_converter.frontends.onnx_type_inference import infer_types
from lite_converter.ir import Graph
from lite_converter.passes.eliminate_dead_code import eliminate_dead_code
from lite_converter.passes.fold_batch_norm import fold_batch_norm
from lite_converter.passes.fold_constants import fold_constants
from lite_converter.passes.fuse_activation import fuse_activation
from lite_converter.passes.fuse_conv_affine import fuse_conv_affine
from lite_converter.passes.recognize_hard_swish import recognize_hard_swish
from lite_converter.passes.remove_identity import remove_identity

MAX_FOLD_ROUNDS = 4


def fold_until_stable(graph: Graph) -> None:
    """Folds constants, re-infers shapes, and repeats while that exposes more to fold."""
    for _ in range(MAX_FOLD_ROUNDS):
        if not fold_constants(graph):
            break
        eliminate_dead_code(graph)
        infer_types(graph)


def optimize(graph: Graph) -> None:
    """Runs the ONNX-level optimizations in place."""
    remove_identity(graph)
    fold_until_stable(graph)
    eliminate_dead_code(graph)
    fold_batch_norm(graph)
    fuse_conv_affine(graph)
    recognize_hard_swish(graph)
    fuse_activation(graph)
    eliminate_dead_code(graph)
    graph.toposort()
