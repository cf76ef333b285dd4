"""Dead-code elimination: nodes whose outputs nobody reads are removed, optional outputs dropped."""

from __future__ import annotations

from lite_converter.ir import Graph

# Ops whose trailing outputs are optional (training statistics, indices, masks): an unread one
# is dropped so lowering never meets an output it does not support.
_OPTIONAL_TRAILING_OUTPUTS = {"Dropout": 1, "BatchNormalization": 1, "MaxPool": 1, "LayerNormalization": 1}


def eliminate_dead_code(graph: Graph) -> bool:
    """Removes unread nodes until none is left; True when anything changed."""
    changed = False
    while True:
        read = set(graph.outputs)
        for node in graph.nodes:
            read.update(n for n in node.inputs if n)
        alive = [n for n in graph.nodes if any(o in read for o in n.outputs if o)]
        for node in alive:
            keep = _OPTIONAL_TRAILING_OUTPUTS.get(node.op_type)
            if keep is not None and len(node.outputs) > keep:
                outputs = [o if (i < keep or o in read) else "" for i, o in enumerate(node.outputs)]
                while len(outputs) > keep and not outputs[-1]:
                    outputs.pop()
                if outputs != node.outputs:
                    node.outputs = outputs
                    changed = True
        if len(alive) == len(graph.nodes):
            break
        graph.nodes = alive
        changed = True
    graph.remove_unused_tensors()
    return changed
