"""TFLite IF and WHILE -> .lite IF and LOOP, over the model's other subgraphs (each imported once by
the builder, ``TfliteGraphBuilder.body``).

IF maps one to one: inputs (cond, args...), both branches take the args. WHILE runs ``cond`` before
every iteration and ``body`` while it holds; a .lite LOOP tests its condition after each iteration.
So WHILE(v0) becomes c0 = cond(v0); LOOP(cond=c0) over a new body graph that runs body then cond:
(iteration, c, v) -> (cond(body(v)), body(v)). Calling a subgraph from a graph is an IF whose
condition is the constant true and whose branches are both that subgraph.
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
    then_graph = b.body(int(options.thenSubgraphIndex))
    else_graph = b.body(int(options.elseSubgraphIndex))
    for branch in (then_graph, else_graph):
        if len(branch.inputs) != len(inputs) - 1 or len(branch.outputs) != len(outputs):
            raise ConversionError(f"IF writing '{outputs[0]}': a branch has {len(branch.inputs)} inputs and "
                                  f"{len(branch.outputs)} outputs, the op passes {len(inputs) - 1} and "
                                  f"takes {len(outputs)}")
    b.add_node("IF", outputs[0], inputs, outputs, then_subgraph=then_graph, else_subgraph=else_graph)
    for name in outputs:  # the branch taken decides their size: the runtime does
        b.keep_dynamic_dims(name)


def convert_while(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    options = op.builtinOptions
    cond_graph = b.body(int(options.condSubgraphIndex))
    body_graph = b.body(int(options.bodySubgraphIndex))
    count = len(inputs)
    if (len(cond_graph.inputs) != count or len(cond_graph.outputs) != 1 or len(body_graph.inputs) != count
            or len(body_graph.outputs) != count or len(outputs) != count):
        raise ConversionError(f"WHILE writing '{outputs[0]}': {count} values, but cond takes "
                              f"{len(cond_graph.inputs)} and gives {len(cond_graph.outputs)}, body takes "
                              f"{len(body_graph.inputs)} and gives {len(body_graph.outputs)}")
    graph = b.graph
    first = graph.add_tensor(f"{outputs[0]}_cond0", np.bool_, [1])
    _call(graph, f"{outputs[0]}_cond0", cond_graph, inputs, [first])

    loop = Graph(source_format="tflite")
    iteration = _copy_tensor(loop, Tensor("iteration", np.dtype(np.int64), []), "iteration")
    cond_in = _copy_tensor(loop, Tensor("cond_in", np.dtype(np.bool_), []), "cond_in")
    values = [_copy_tensor(loop, body_graph.tensors[n], f"v{i}") for i, n in enumerate(body_graph.inputs)]
    stepped = [_copy_tensor(loop, body_graph.tensors[n], f"v{i}_next")
               for i, n in enumerate(body_graph.outputs)]
    cond_out = _copy_tensor(loop, cond_graph.tensors[cond_graph.outputs[0]], "cond_out")
    _call(loop, "body", body_graph, values, stepped)
    _call(loop, "cond", cond_graph, stepped, [cond_out])
    loop.inputs = [iteration, cond_in, *values]
    loop.outputs = [cond_out, *stepped]
    b.add_node("LOOP", outputs[0], ["", first, *inputs], outputs, body_subgraph=loop, num_carried=count)
    for name in outputs:  # a carried value may grow with the iterations
        b.keep_dynamic_dims(name)


CONVERTERS = {"IF": convert_if, "WHILE": convert_while}
