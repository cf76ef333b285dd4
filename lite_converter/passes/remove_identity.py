"""Removes Identity and inference-mode Dropout: their output is their input.

Graph output names are part of the model's interface, so when the removed node writes a graph
output its producer is renamed to write that name instead; an Identity that copies a graph input
or a constant straight to an output has nothing to rename and stays (it lowers to IDENTITY).
A Dropout whose mask is read gets the mask as an all-true constant shaped like the input.
"""

from __future__ import annotations

import numpy as np

from lite_converter.ir import Graph, Node
from lite_converter.passes.graph_queries import remove_nodes


def _is_inference_dropout(graph: Graph, node: Node) -> bool:
    if node.op_type != "Dropout":
        return False
    if node.attrs.get("is_test", 1) == 0 and graph.opset < 7:
        return False
    training = graph.constant(node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else np.array(False)
    return training is not None and not bool(np.asarray(training).reshape(-1)[0])


def _replace_mask(graph: Graph, node: Node) -> list[Node]:
    """Nodes computing the all-true mask of an inference Dropout (empty if the mask is unread)."""
    if len(node.outputs) < 2 or not node.outputs[1]:
        return []
    mask, x = node.outputs[1], node.inputs[0]
    shape = graph.add_tensor(f"{mask}__shape", np.int64, [None if graph.tensors[x].shape is None
                                                          else len(graph.tensors[x].shape)])
    graph.tensors[mask].dtype = np.dtype(np.bool_)
    return [Node("Shape", f"{node.name}__mask_shape", [x], [shape]),
            Node("ConstantOfShape", f"{node.name}__mask", [shape], [mask], {"value": np.array([True])})]


def remove_identity(graph: Graph) -> bool:
    """Bypasses Identity/Dropout nodes; True when anything changed."""
    producers = graph.producers()
    removed: list[Node] = []
    added: list[Node] = []
    for node in list(graph.nodes):
        if node.op_type != "Identity" and not _is_inference_dropout(graph, node):
            continue
        source, target = node.inputs[0], node.outputs[0]
        if target in graph.outputs:
            producer = producers.get(source)
            if producer is None or source in graph.outputs:
                if node.op_type == "Dropout":
                    node.op_type, node.attrs = "Identity", {}
                    node.inputs, added_mask = node.inputs[:1], _replace_mask(graph, node)
                    node.outputs = node.outputs[:1]
                    added.extend(added_mask)
                continue
            added.extend(_replace_mask(graph, node))
            # The producer now writes the output name directly.
            producer.outputs = [target if o == source else o for o in producer.outputs]
            graph.tensors[target].dtype = graph.tensors[target].dtype or graph.tensors[source].dtype
            for other in graph.nodes:
                if other is not node:
                    other.inputs = [target if n == source else n for n in other.inputs]
            producers[target] = producer
        else:
            added.extend(_replace_mask(graph, node))
            graph.replace_uses(target, source)
        removed.append(node)
    remove_nodes(graph, removed)
    graph.nodes.extend(added)
    if added:
        graph.toposort()
    return bool(removed or added)
