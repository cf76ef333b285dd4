"""The converter's arena planner: valid (no live tensors overlap), aligned, and tight on simple cases."""

from __future__ import annotations

import numpy as np

from lite_converter.ir import Graph, Node, Tensor
from lite_converter.passes.memory_plan import plan_memory


def chain_graph(sizes: list[int], ops: list[str] | None = None) -> Graph:
    """x0 -> op -> x1 -> op -> ... with float32 tensors of ``sizes`` elements."""
    g = Graph()
    for i, size in enumerate(sizes):
        g.tensors[f"x{i}"] = Tensor(f"x{i}", np.dtype(np.float32), [size])
    ops = ops or ["RELU"] * (len(sizes) - 1)
    for i, op in enumerate(ops):
        g.nodes.append(Node(op, f"n{i}", [f"x{i}"], [f"x{i + 1}"]))
    g.inputs = ["x0"]
    g.outputs = [f"x{len(sizes) - 1}"]
    return g


def lifetimes(g: Graph) -> dict[str, tuple[int, int]]:
    """Independent lifetime computation: [first op writing or -1 for inputs, last op reading]."""
    life: dict[str, list[int]] = {n: [-1, -1] for n in g.inputs}
    for i, node in enumerate(g.nodes):
        for n in node.outputs:
            life.setdefault(n, [i, i])
        for n in node.inputs:
            if n in life:
                life[n][1] = max(life[n][1], i)
    for n in (*g.inputs, *g.outputs):
        life[n][1] = len(g.nodes)
    return {k: (v[0], v[1]) for k, v in life.items()}


def assert_valid(g: Graph, aliases: set[frozenset[str]] = frozenset()) -> None:
    plan = plan_memory(g)
    assert plan is not None
    life = lifetimes(g)
    sizes = {n: int(np.prod(g.tensors[n].shape)) * g.tensors[n].dtype.itemsize for n in life}
    for name, offset in plan.offsets.items():
        assert offset % 64 == 0
        assert offset + sizes[name] <= plan.arena_bytes
    names = sorted(plan.offsets)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if frozenset((a, b)) in aliases:
                continue
            live_together = life[a][0] <= life[b][1] and life[b][0] <= life[a][1]
            apart = (plan.offsets[a] + sizes[a] <= plan.offsets[b]) or (
                plan.offsets[b] + sizes[b] <= plan.offsets[a]
            )
            assert not live_together or apart, (a, b)


def test_chain_reuses_memory_two_buffers_and_the_input_suffice():
    g = chain_graph([256, 256, 256, 256, 256])  # 1 KiB each; the input stays readable after the run
    plan = plan_memory(g)
    assert plan is not None and plan.arena_bytes == 3072
    assert_valid(g)


def test_offsets_are_64_byte_aligned_for_odd_sizes():
    g = chain_graph([3, 5, 7, 11, 13])
    plan = plan_memory(g)
    assert plan is not None
    assert all(o % 64 == 0 for o in plan.offsets.values())
    assert plan.arena_bytes == 192  # three 64-byte slots: the input, then two alternating
    assert_valid(g)


def test_reshape_like_ops_alias_their_input():
    g = chain_graph([64, 64, 64, 64], ["RELU", "RESHAPE", "RELU"])
    g.nodes[1].inputs.append("shape")
    g.tensors["shape"] = Tensor("shape", np.dtype(np.int64), [1], np.array([64], np.int64))
    plan = plan_memory(g)
    assert plan is not None
    assert plan.offsets["x1"] == plan.offsets["x2"]  # RESHAPE output shares the input's memory
    assert plan.offsets["x3"] != plan.offsets["x2"]  # x2 (hence x1) is read by the last RELU
    assert "shape" not in plan.offsets  # constants are not in the arena
    assert_valid(g, {frozenset(("x1", "x2"))})


def test_branches_keep_live_tensors_apart():
    g = Graph()
    for name, size in [("x", 100), ("a", 300), ("b", 50), ("c", 300), ("y", 300)]:
        g.tensors[name] = Tensor(name, np.dtype(np.float32), [size])
    g.nodes = [
        Node("RELU", "n0", ["x"], ["a"]),
        Node("RELU", "n1", ["x"], ["b"]),
        Node("RELU", "n2", ["b"], ["c"]),
        Node("ADD", "n3", ["a", "c"], ["y"]),
    ]
    g.inputs, g.outputs = ["x"], ["y"]
    assert_valid(g)
    plan = plan_memory(g)
    # lower bound: at n3, a, c and y are live: 3 * 1200 bytes
    assert plan is not None and plan.arena_bytes >= 3 * 1216


def test_dynamic_shapes_give_no_plan():
    g = chain_graph([4, 4, 4])
    g.tensors["x1"].shape = ["N"]
    assert plan_memory(g) is None


def test_graph_outputs_stay_live_to_the_end():
    g = chain_graph([256, 256, 256])
    g.outputs = ["x1", "x2"]
    plan = plan_memory(g)
    assert plan is not None and plan.offsets["x1"] != plan.offsets["x2"]
    assert_valid(g)


def test_plan_in_the_file_matches_the_runtime_arena():
    """The stored plan is what `lite inspect` shows: it should be the arena the runtime allocates."""
    from lite_converter.app import zoo
    from lite_converter.convert import convert_onnx
    from lite_converter.reader import read_model
    from runtime_arm import Interpreter

    path = zoo.fetch("cls")
    data = convert_onnx(path, input_shapes={"x": [1, 3, 48, 192]})
    plan = read_model(data).memory_plan
    with Interpreter(model_content=data) as interpreter:
        interpreter.run({"x": np.zeros((1, 3, 48, 192), np.float32)})
        assert plan is not None and plan.arena_bytes == interpreter.arena_bytes
