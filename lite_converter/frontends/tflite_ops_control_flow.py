"""TFLite IF and WHILE -> .lite IF and LOOP, over the model's other subgraphs (each imported once by
the builder, ``TfliteGraphBuilder.body``).

IF maps one to one: inputs (cond, args...), both branches take the args. WHILE runs ``cond`` before
every iteration and ``body`` while it holds; a .lite LOOP tests its condition after each iteration.
So WHILE(v0) becomes c0 = cond(v0); LOOP(cond=c0) over a new body graph that runs body then cond:
(iteration, c, v) -> (cond(body(v)), body(v)). Calling a subgraph from a graph is an IF whose
condition is the constant true and whose branches are both that subgraph.

Arguments that are constants of the calling graph (an IF's arguments, a WHILE's carried values that
start from a constant and that the body returns unchanged) become constants of the bodies, imported
for that call (``TfliteGraphBuilder.bindable``): onnx-tf passes a head's weights into an IF branch
that way, and read as inputs its FULLY_CONNECTEDs would pack them at every invoke.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from lite_converter.ir import ConversionError, Graph, Node, Tensor

if TYPE_CHECKING:
    from lite_converter.frontends.tflite_frontend import TfliteGraphBuilder


def _call(graph: Graph, name: str, subgraph: Graph, inputs: list[str], outputs: list[str]) -> Node:
    """``outputs`` = ``subgraph``(``inputs``), as an IF on a constant true condition."""
    true = graph.add_constant(f"{name}_true", np.array([True]))
    node = Node("IF", graph.unique_name(name), [true, *inputs], outputs,
                {"then_subgraph": subgraph, "else_subgraph": subgraph})
    graph.nodes.append(node)
    return node


def _copy_tensor(graph: Graph, source: Tensor, name: str) -> str:
    graph.tensors[name] = Tensor(name, source.dtype, None if source.shape is None else list(source.shape))
    return name


def convert_if(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    options = op.builtinOptions
    branches = [int(options.thenSubgraphIndex), int(options.elseSubgraphIndex)]
    bound = b.bindable(branches, inputs[1:])  # constant arguments become constants of both branches
    then_graph, else_graph = (b.body(index, bound) for index in branches)
    for branch in (then_graph, else_graph):
        if len(branch.inputs) + len(bound) != len(inputs) - 1 or len(branch.outputs) != len(outputs):
            raise ConversionError(f"IF writing '{outputs[0]}': a branch has {len(branch.inputs) + len(bound)}"
                                  f" inputs and {len(branch.outputs)} outputs, the op passes "
                                  f"{len(inputs) - 1} and takes {len(outputs)}")
    args = [name for position, name in enumerate(inputs[1:]) if position not in bound]
    b.add_node("IF", outputs[0], [inputs[0], *args], outputs, then_subgraph=then_graph,
               else_subgraph=else_graph)
    for name in outputs:  # the branch taken decides their size: the runtime does
        b.keep_dynamic_dims(name)


def convert_while(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    options = op.builtinOptions
    cond_index, body_index = int(options.condSubgraphIndex), int(options.bodySubgraphIndex)
    bound = _invariant_constants(b, cond_index, body_index, inputs)
    cond_graph, body_graph = b.body(cond_index, bound), b.body(body_index, bound)
    count, kept = len(inputs), [i for i in range(len(inputs)) if i not in bound]
    if (len(cond_graph.inputs) != len(kept) or len(cond_graph.outputs) != 1
            or len(body_graph.inputs) != len(kept) or len(body_graph.outputs) != len(kept)
            or len(outputs) != count):
        raise ConversionError(f"WHILE writing '{outputs[0]}': {count} values, but cond takes "
                              f"{len(cond_graph.inputs) + len(bound)} and gives {len(cond_graph.outputs)}, "
                              "body "
                              f"takes {len(body_graph.inputs) + len(bound)} and gives "
                              f"{len(body_graph.outputs) + len(bound)}")
    graph = b.graph
    first = graph.add_tensor(f"{outputs[0]}_cond0", np.bool_, [1])
    _call(graph, f"{outputs[0]}_cond0", cond_graph, [inputs[i] for i in kept], [first])

    loop = Graph(source_format="tflite")
    iteration = _copy_tensor(loop, Tensor("iteration", np.dtype(np.int64), []), "iteration")
    cond_in = _copy_tensor(loop, Tensor("cond_in", np.dtype(np.bool_), []), "cond_in")
    carried = [graph.tensors[name] for name in inputs]
    values = [_copy_tensor(loop, carried[i], f"v{i}") for i in range(count)]
    for i, name in zip(kept, body_graph.inputs, strict=True):
        _copy_tensor(loop, body_graph.tensors[name], values[i])
    stepped = list(values)  # a bound value passes through the loop's body unchanged
    for i, name in zip(kept, body_graph.outputs, strict=True):
        stepped[i] = _copy_tensor(loop, body_graph.tensors[name], f"v{i}_next")
    cond_out = _copy_tensor(loop, cond_graph.tensors[cond_graph.outputs[0]], "cond_out")
    _call(loop, "body", body_graph, [values[i] for i in kept], [stepped[i] for i in kept])
    _call(loop, "cond", cond_graph, [stepped[i] for i in kept], [cond_out])
    loop.inputs = [iteration, cond_in, *values]
    loop.outputs = [cond_out, *stepped]
    b.add_node("LOOP", outputs[0], ["", first, *inputs], outputs, body_subgraph=loop, num_carried=count)
    for name in outputs:  # a carried value may grow with the iterations
        b.keep_dynamic_dims(name)


def _invariant_constants(b: TfliteGraphBuilder, cond_index: int, body_index: int,
                         inputs: list[str]) -> dict[int, np.ndarray]:
    """Carried values that start from a constant and that the body returns unchanged (its output is
    its input): constants of cond and body (their weights packed once, not at every iteration)."""
    in_cond = b.bindable([cond_index], inputs)
    in_body = b.bindable([body_index], inputs, passed_through=True)
    subgraphs = b.model.subgraphs
    if not 0 < body_index < len(subgraphs):
        return {}
    body_inputs, body_outputs = list(subgraphs[body_index].inputs), list(subgraphs[body_index].outputs)
    return {i: value for i, value in in_body.items()
            if i in in_cond and i < len(body_outputs) and body_outputs[i] == body_inputs[i]}


CONVERTERS = {"IF": convert_if, "WHILE": convert_while}
