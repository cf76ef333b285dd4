"""ONNX Loop bodies rewritten so that what does not change between iterations is computed once.

Two rewrites of a top-level Loop, done on the ModelProto before the frontend reads it (so
onnxruntime can check the rewritten model against the original, tests/test_loop_invariants.py):

* **Pass-through carried values**: a carried value that the body returns unchanged (its output is
  the input itself, or the input through Identity, Unsqueeze then Squeeze of the same axes, or an
  Add of a one-element zero) is the same at every iteration: the body reads the Loop's initial value
  from the outer scope instead, and the Loop's final value becomes an Identity of it. paddle2onnx
  carries a decoder's encoder features that way (SLANet: ``Squeeze(Add(Unsqueeze(x), 0))``). The
  Add of 0.0 turns a -0.0 into +0.0 at the first iteration; read directly, later iterations see the
  original -0.0 (products and sums are then the same up to the sign of an exact zero).
* **Invariant hoist**: body nodes whose inputs are all body constants, outer values or outputs of
  nodes hoisted before them move in front of the Loop (SLANet: ``MatMul(features, W)`` over the
  whole feature map and its weight transposes, at every decoding step before). Nodes with bodies of
  their own, random ones, sequence / optional ones and those producing a body output stay. Only
  nodes that read an outer value (and the constant nodes they need) move: constant-only nodes are
  folded by the body's own conversion. A hoisted node runs even when the Loop runs zero times.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper, numpy_helper

from lite_converter.frontends.onnx_control_flow import rename_uses
from lite_converter.passes.support import supported_op_types

_NOT_HOISTED = {"RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike", "Multinomial",
                "Bernoulli", "Loop", "If", "Scan"}


def _int_list(node: onnx.NodeProto, constants: dict[str, np.ndarray]) -> tuple[int, ...] | None:
    """The axes of an Unsqueeze / Squeeze: attribute (opset < 13) or constant second input."""
    for attr in node.attribute:
        if attr.name == "axes":
            return tuple(attr.ints)
    if len(node.input) > 1 and node.input[1] in constants:
        return tuple(int(a) for a in np.asarray(constants[node.input[1]]).reshape(-1))
    return None


def _body_constants(body: onnx.GraphProto) -> dict[str, np.ndarray]:
    values = {t.name: numpy_helper.to_array(t) for t in body.initializer}
    for node in body.node:
        if node.op_type == "Constant" and len(node.attribute) == 1 and node.attribute[0].name == "value":
            values[node.output[0]] = numpy_helper.to_array(node.attribute[0].t)
    return values


def _unchanged_source(body: onnx.GraphProto, name: str) -> str | None:
    """The body input ``name`` is equal to (see the module doc), or None."""
    producers = {out: node for node in body.node for out in node.output}
    constants = _body_constants(body)
    inputs = {v.name for v in body.input}
    pending: list[tuple[int, ...]] = []  # Unsqueeze axes seen on the way back, innermost last
    for _ in range(16):
        if name in inputs:
            return name if not pending else None
        node = producers.get(name)
        if node is None or node.domain not in ("", "ai.onnx"):
            return None
        if node.op_type == "Identity":
            name = node.input[0]
        elif node.op_type == "Squeeze":
            axes = _int_list(node, constants)
            if axes is None:
                return None
            pending.append(axes)
            name = node.input[0]
        elif node.op_type == "Unsqueeze":
            if not pending or _int_list(node, constants) != pending[-1]:
                return None
            pending.pop()
            name = node.input[0]
        elif node.op_type == "Add" and len(node.input) == 2:
            zero = [i for i, n in enumerate(node.input) if n in constants and constants[n].size == 1
                    and not np.any(constants[n]) and constants[n].ndim <= 1]
            if not zero or (constants[node.input[zero[0]]].ndim == 1 and not pending):
                return None  # a [1] zero could widen a scalar: only after an Unsqueeze
            name = node.input[1 - zero[0]]
        else:
            return None
    return None


def _free_pass_throughs(loop: onnx.NodeProto, body: onnx.GraphProto) -> list[onnx.NodeProto]:
    """Turns the loop's pass-through carried values into outer reads; returns the Identity nodes that
    give the Loop's final values (to go after it)."""
    carried = len(loop.input) - 2
    if (carried <= 0 or len(body.input) != 2 + carried or len(body.output) < 1 + carried
            or len(loop.output) < carried):
        return []  # malformed: left to the frontend's checks
    scan_outputs = list(loop.output[carried:])
    keep_in, keep_out, finals, freed = [0, 1], [0], [], False
    for k in range(carried):
        body_in = body.input[2 + k].name
        initial = loop.input[2 + k]
        others = [o.name for i, o in enumerate(body.output) if i != 1 + k]
        if initial and body_in not in others and _unchanged_source(body, body.output[1 + k].name) == body_in:
            rename_uses(body, body_in, initial)
            if loop.output[k]:  # (an unused final value may have no name)
                finals.append(helper.make_node("Identity", [initial], [loop.output[k]],
                                               name=f"{loop.name or 'Loop'}/{loop.output[k]}/invariant"))
            freed = True
        else:
            keep_in.append(2 + k)
            keep_out.append(1 + k)
    if not freed:
        return []
    inputs, outputs = [body.input[i] for i in keep_in], [body.output[i] for i in keep_out + list(
        range(1 + carried, len(body.output)))]
    del body.input[:], body.output[:]
    body.input.extend(inputs)
    body.output.extend(outputs)
    new_loop_inputs = [loop.input[i] for i in keep_in]
    new_loop_outputs = [loop.output[i - 1] for i in keep_out[1:]] + scan_outputs
    del loop.input[:], loop.output[:]
    loop.input.extend(new_loop_inputs)
    loop.output.extend(new_loop_outputs)
    return finals


def _hoist(graph_names: set[str], body: onnx.GraphProto
           ) -> tuple[list[onnx.NodeProto], list[onnx.TensorProto]]:
    """Moves the body's invariant nodes out (see the module doc); returns them and the body
    initializers they read (renamed where the outer graph has the name)."""
    initializers = {t.name: t for t in body.initializer}
    defined = {v.name for v in body.input} | set(initializers)
    supported = set(supported_op_types())
    for node in body.node:
        defined.update(node.output)
    body_outputs = {v.name for v in body.output}
    constant_only: set[str] = set(initializers)  # values that depend on no outer value
    invariant: set[str] = set(initializers)      # values that depend on nothing iteration-specific
    hoisted, reads_outer = [], set()
    for node in body.node:
        graphs = (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
        has_body = any(a.type in graphs for a in node.attribute)
        # (sequences and optionals stay: a body reads them through inputs of their own kind)
        kept_kind = "Sequence" in node.op_type or "Optional" in node.op_type
        # (an op the converter refuses stays too: its refusal then names it where the user put it)
        refused = node.op_type in _NOT_HOISTED or node.op_type not in supported
        if (refused or node.domain not in ("", "ai.onnx") or has_body or kept_kind or
                any(o in body_outputs or o in graph_names for o in node.output)):
            continue
        ins = [n for n in node.input if n]
        if not all(n in invariant or n not in defined for n in ins):
            continue
        invariant.update(node.output)
        if all(n in constant_only for n in ins):
            constant_only.update(node.output)
        else:
            reads_outer.add(id(node))
        hoisted.append(node)
    # keep the nodes reading an outer value and the constant nodes they need
    needed: set[str] = set()
    moved = []
    for node in reversed(hoisted):
        if id(node) in reads_outer or any(o in needed for o in node.output):
            moved.append(node)
            needed.update(n for n in node.input if n)
    moved.reverse()
    if not any(id(n) in reads_outer for n in moved):
        return [], []
    moved_ids = {id(n) for n in moved}
    kept = [n for n in body.node if id(n) not in moved_ids]
    del body.node[:]
    body.node.extend(kept)
    renames, weights = {}, []
    for name in sorted(needed & set(initializers)):
        tensor = onnx.TensorProto()
        tensor.CopyFrom(initializers[name])
        if name in graph_names:
            tensor.name = renames[name] = f"{name}__hoisted"
        weights.append(tensor)
    for node in moved:
        for i, n in enumerate(node.input):
            node.input[i] = renames.get(n, n)
    still_read = {n for node in body.node for n in node.input} | body_outputs
    for attr_node in body.node:  # nested bodies read by name too
        for attr in attr_node.attribute:
            for inner in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
                still_read |= {n for inner_node in inner.node for n in inner_node.input}
    kept_inits = [t for t in body.initializer if t.name in still_read or t.name not in needed]
    del body.initializer[:]
    body.initializer.extend(kept_inits)
    return moved, weights


def hoist_loop_invariants(model: onnx.ModelProto) -> bool:
    """Rewrites every top-level Loop of ``model`` in place (module doc); True when any changed."""
    graph = model.graph
    changed = False
    names = {t.name for t in graph.initializer} | {v.name for v in graph.input}
    names |= {o for node in graph.node for o in node.output}
    new_nodes: list[onnx.NodeProto] = []
    for node in graph.node:
        body = next((a.g for a in node.attribute if a.name == "body"), None)
        if node.op_type != "Loop" or node.domain not in ("", "ai.onnx") or body is None:
            new_nodes.append(node)
            continue
        inputs_before = len(node.input)
        finals = _free_pass_throughs(node, body)
        moved, weights = _hoist(names, body)
        graph.initializer.extend(weights)
        names |= {t.name for t in weights}
        new_nodes.extend(moved)
        new_nodes.append(node)
        new_nodes.extend(finals)
        changed = changed or bool(finals or moved) or len(node.input) < inputs_before
    if changed:
        del graph.node[:]
        graph.node.extend(new_nodes)
    return changed
