"""int8 convolutions on inputs with fewer channels than the GEMM's k-group (image stems).

A 3x3 stem on 3 channels has kernel rows of 9 bytes, not whole 4-byte k-groups of the x86 VNNI
kernel that reads kernel rows in place; the runtime pads such an input to 4 channels (zero weights
there) instead of copying every receptive field (im2col). Channel counts 1, 2, 5 and 6 keep im2col;
every count must give the fake-quant simulation's bytes exactly (0 LSB) on 1, 2 and 4 threads, with
a batch of two, odd sizes, asymmetric padding, strides 1 and 2, windows narrower than a GEMM tile
(im2col) and wide ones (in place with borders, and without padding no borders at all), and the same
bytes as the portable C paths (every CPU feature masked off).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import slim
from lite_converter.ir import Graph
from runtime_arm import Interpreter
from slim.calibrate import with_outputs
from tests.slim_oracle import simulation_mismatches
from tests.test_int8_kernels import _assert_equal_to_portable_paths


@dataclass(frozen=True)
class StemConv:
    """One convolution on the model's input: out_c kernel x kernel filters; pads top, left, bottom, right."""

    name: str
    out_c: int
    kernel: int
    stride: int
    pads: tuple[int, int, int, int]
    relu: bool = False


# Width 37 / 41 gives 15-35 output columns whose window is inside the input (the in-place kernel
# needs >= 8 of them); the 9-wide conv on a cropped view is too narrow and keeps im2col.
CONVS = (
    StemConv("s2_3x3", 16, 3, 2, (1, 1, 1, 1), relu=True),
    StemConv("s1_3x3", 40, 3, 1, (1, 1, 1, 1)),
    StemConv("s2_5x5_asym", 24, 5, 2, (2, 1, 1, 2)),
    StemConv("s2_3x3_nopad", 32, 3, 2, (0, 0, 0, 0)),
    StemConv("s1_5x5", 33, 5, 1, (2, 2, 2, 2), relu=True),
)
BATCH, HEIGHT, WIDTH = 2, 11, 37


def stem_net(in_c: int, seed: int) -> onnx.ModelProto:
    """The CONVS side by side on one [2, in_c, 11, 37] input, plus a 3x3 s2 conv on a 9-wide slice."""
    rng = np.random.default_rng(seed)
    nodes, inits, outputs = [], [], []
    for conv in CONVS:
        w = (rng.standard_normal((conv.out_c, in_c, conv.kernel, conv.kernel)) * 0.4).astype(np.float32)
        b = (rng.standard_normal(conv.out_c) * 0.2).astype(np.float32)
        inits += [numpy_helper.from_array(w, f"w_{conv.name}"), numpy_helper.from_array(b, f"b_{conv.name}")]
        top, left, bottom, right = conv.pads
        out = f"c_{conv.name}" if conv.relu else conv.name
        nodes.append(helper.make_node("Conv", ["x", f"w_{conv.name}", f"b_{conv.name}"], [out],
                                      strides=[conv.stride] * 2, pads=[top, left, bottom, right],
                                      name=conv.name))
        if conv.relu:
            nodes.append(helper.make_node("Relu", [out], [conv.name], name=f"relu_{conv.name}"))
        outputs.append(helper.make_tensor_value_info(conv.name, TensorProto.FLOAT, None))
    w = (rng.standard_normal((8, in_c, 3, 3)) * 0.4).astype(np.float32)
    inits += [numpy_helper.from_array(w, "w_narrow"),
              numpy_helper.from_array(np.array([0, 0, 0, 0], np.int64), "starts"),
              numpy_helper.from_array(np.array([BATCH, in_c, HEIGHT, 9], np.int64), "ends")]
    nodes += [helper.make_node("Slice", ["x", "starts", "ends"], ["x_narrow"], name="crop"),
              helper.make_node("Conv", ["x_narrow", "w_narrow"], ["narrow"], strides=[2, 2],
                               pads=[1, 1, 1, 1], name="narrow")]
    outputs.append(helper.make_tensor_value_info("narrow", TensorProto.FLOAT, None))
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [BATCH, in_c, HEIGHT, WIDTH])
    graph = helper.make_graph(nodes, f"int8_stem_{in_c}", [x], outputs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def _quantized(in_c: int) -> tuple[Graph, dict[str, np.ndarray]]:
    rng = np.random.default_rng(100 + in_c)
    data = [rng.standard_normal((BATCH, in_c, HEIGHT, WIDTH)).astype(np.float32) for _ in range(3)]
    result = slim.compress(stem_net(in_c, seed=in_c), None, data, slim.QuantConfig(progress=False))
    names = {conv.name for conv in CONVS} | {"narrow"}
    assert names <= set(result.int8_nodes)
    return result.graph, {"x": data[0]}


@pytest.mark.parametrize("in_c", [1, 2, 3, 5, 6])
def test_small_channel_convs_equal_simulation_on_any_thread_count(in_c: int, tmp_path: Path) -> None:
    graph, feeds = _quantized(in_c)
    names = [t for node in graph.nodes for t in (*node.inputs, *node.outputs) if t]
    names = [t for t in dict.fromkeys(names) if not graph.tensors[t].is_constant]
    model = with_outputs(graph, names)
    convs = {conv.name for conv in CONVS} | {"narrow"}
    for threads in (1, 2, 4):
        with Interpreter(model_content=model, threads=threads) as interpreter:
            values = {name: np.array(value) for name, value in interpreter.run(feeds).items()}
        values.update(feeds)
        values.update({name: t.data for name, t in graph.tensors.items() if t.data is not None})
        errors = simulation_mismatches(graph, values)
        assert convs <= set(errors)
        assert max(errors[name] for name in convs) == 0.0, (threads, errors)
    _assert_equal_to_portable_paths(model, feeds, tmp_path, min_int8_outputs=len(convs))
