"""TFLite FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D and BATCH_MATMUL whose weights are computed
(a graph input, an op's output, or an IF branch's argument), against LiteRT's builtin kernels; and
weights that reach an IF branch or a WHILE body as constant arguments (as onnx-tf writes
openWakeWord's heads), which become constants of the body.

Such weights cannot be packed at conversion: they run in fp32 and the runtime packs them at every
eval. Tolerance: 1e-5 relative to max(1, max|ref|) (the same fp32 products, summed in another order).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert", reason="needs the tflite extra (ai-edge-litert)")

from ai_edge_litert import schema_py_generated as s  # noqa: E402

from tests.tflite_builder import TfliteModel, assert_matches_litert, options  # noqa: E402

RNG = np.random.default_rng(15)


def _normal(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def _fc_options(relu: bool = False) -> object:
    act = s.ActivationFunctionType.RELU if relu else s.ActivationFunctionType.NONE
    return options(s.FullyConnectedOptionsT(), fusedActivationFunction=act)


def _branch_args(m: TfliteModel) -> tuple[int, int, int, int]:
    """A branch's x, W, b and its output y."""
    return m.tensor("x", [1, 4, 6]), m.tensor("w", [8, 24]), m.tensor("b", [8]), m.tensor("y", [1, 8])


def _fc_in_if_branches(weight_is_input: bool = False) -> bytes:
    """y = IF(cond, x, W, b): then FC(x, W, b) + RELU; else FC(x, W * 0.5) + b. x is [1, 4, 6]
    (flattened to K = 24 by FC), W [8, 24] and b [8] reach the branches as arguments: constants of
    the main graph (become constants of both branches), or W a graph input (stays computed)."""
    m = TfliteModel()
    cond, x, y = m.tensor("cond", [1], np.bool_), m.tensor("x", [1, 4, 6]), m.tensor("y", [1, 8])
    w = m.tensor("w", [8, 24]) if weight_is_input else m.constant("w", _normal(8, 24))
    b = m.constant("b", _normal(8))
    m.op("IF", [cond, x, w, b], [y], options(s.IfOptionsT(), thenSubgraphIndex=1, elseSubgraphIndex=2))
    m.end_subgraph([cond, x, w] if weight_is_input else [cond, x], [y], "main")
    tx, tw, tb, ty = _branch_args(m)
    m.op("FULLY_CONNECTED", [tx, tw, tb], [ty], _fc_options(relu=True))
    m.end_subgraph([tx, tw, tb], [ty], "then")
    ex, ew, eb, ey = _branch_args(m)
    half = m.constant("half", np.array(0.5, np.float32))
    scaled, mm = m.tensor("w_half", [8, 24]), m.tensor("mm", [1, 8])
    m.op("MUL", [ew, half], [scaled], s.MulOptionsT())
    m.op("FULLY_CONNECTED", [ex, scaled, -1], [mm], _fc_options())
    m.op("ADD", [mm, eb], [ey], s.AddOptionsT())
    m.end_subgraph([ex, ew, eb], [ey], "else")
    return m.finish()


def _fc_weights_are_constants(data: bytes) -> list[bool]:
    """For each FULLY_CONNECTED of the converted model's bodies: whether its weight is a constant
    (packed at load) rather than a value computed at run time."""
    from lite_converter.convert import convert_tflite
    from lite_converter.reader import read_model

    model = read_model(convert_tflite(data))
    return [graph.tensors[op.inputs[1]].is_constant for graph in model.subgraphs
            for op in graph.operators if op.opcode == "FULLY_CONNECTED"]


@pytest.mark.parametrize("weight_is_input", [False, True])
def test_fully_connected_with_weights_from_if_arguments(tmp_path, weight_is_input: bool):
    """Constant arguments become constants of the branches: then's FC packs W at load (else's
    W * 0.5 stays an op's output: the TFLite import folds nothing); W a graph input stays an
    argument, packed at every eval."""
    x = _normal(1, 4, 6)
    w = _normal(8, 24)
    data = _fc_in_if_branches(weight_is_input)
    for cond in (True, False):
        assert_matches_litert(data, [np.array([cond]), x, *([w] if weight_is_input else [])], tmp_path)
    assert _fc_weights_are_constants(data) == [not weight_is_input, False]
    if not weight_is_input:  # both branches read W: the file stores its bytes once
        from lite_converter.convert import convert_tflite

        model = s.ModelT.InitFromPackedBuf(data, 0)
        (weight,) = [b for b in model.buffers if b.data is not None and len(b.data) == 8 * 24 * 4]
        assert convert_tflite(data).count(np.asarray(weight.data, np.uint8).tobytes()) == 1


def test_while_carrying_a_constant_weight_unchanged(tmp_path):
    """(i, h) -> while i < 4: (i + 1, tanh(FC(h, W))), with W [6, 6] a constant carried through the
    body unchanged (as converters write a recurrent cell's weights): W becomes a constant of the body
    and of cond, and the loop still returns it."""
    m = TfliteModel()
    i, h, w = m.tensor("i", [1], np.int32), m.tensor("h", [1, 6]), m.constant("w", _normal(6, 6) * 0.5)
    i_out, h_out = m.tensor("i_out", [1], np.int32), m.tensor("h_out", [1, 6])
    w_out = m.tensor("w_out", [6, 6])
    m.op("WHILE", [i, h, w], [i_out, h_out, w_out],
         options(s.WhileOptionsT(), condSubgraphIndex=1, bodySubgraphIndex=2))
    m.end_subgraph([i, h], [i_out, h_out, w_out], "main")
    ci, ch, cw, c = m.tensor("i", [1], np.int32), m.tensor("h", [1, 6]), m.tensor("w", [6, 6]), \
        m.tensor("c", [1], np.bool_)
    m.op("LESS", [ci, m.constant("four", np.array([4], np.int32))], [c])
    m.end_subgraph([ci, ch, cw], [c], "cond")
    bi, bh, bw = m.tensor("i", [1], np.int32), m.tensor("h", [1, 6]), m.tensor("w", [6, 6])
    bi2, mm, bh2 = m.tensor("i2", [1], np.int32), m.tensor("mm", [1, 6]), m.tensor("h2", [1, 6])
    m.op("ADD", [bi, m.constant("one", np.array([1], np.int32))], [bi2], s.AddOptionsT())
    m.op("FULLY_CONNECTED", [bh, bw, -1], [mm], _fc_options())
    m.op("TANH", [mm], [bh2])
    m.end_subgraph([bi, bh, bw], [bi2, bh2, bw], "body")
    data = m.finish()
    for start in (0, 2, 7):
        assert_matches_litert(data, [np.array([start], np.int32), _normal(1, 6)], tmp_path)
    assert _fc_weights_are_constants(data) == [True]


def test_fully_connected_with_weight_and_bias_as_graph_inputs(tmp_path):
    m = TfliteModel()
    x, w, b, y = m.tensor("x", [3, 5]), m.tensor("w", [4, 5]), m.tensor("b", [4]), m.tensor("y", [3, 4])
    m.op("FULLY_CONNECTED", [x, w, b], [y], _fc_options())
    data = m.finish([x, w, b], [y])
    assert_matches_litert(data, [_normal(3, 5), _normal(4, 5), _normal(4)], tmp_path)


@pytest.mark.parametrize("depthwise", [False, True])
@pytest.mark.parametrize("padding, stride", [("SAME", 2), ("VALID", 1)])
def test_convolution_with_computed_weights(tmp_path, depthwise: bool, padding: str, stride: int):
    """Weights = a graph input * a constant (a computed [O, KH, KW, I] or depthwise [1, KH, KW, C*m]
    tensor), constant bias, fused RELU6; the depthwise one with a channel multiplier of 2."""
    m = TfliteModel()
    channels, out_c = 3, 6
    w_shape = [1, 3, 3, out_c] if depthwise else [out_c, 3, 3, channels]
    out_hw = 3 if stride == 2 else 4
    x, w_in = m.tensor("x", [1, 6, 6, channels]), m.tensor("w_in", w_shape)
    per_out = np.linspace(0.5, 1.5, out_c).astype(np.float32)  # one gain per output channel
    gain = m.constant("gain", per_out if depthwise else per_out.reshape(out_c, 1, 1, 1))
    w = m.tensor("w", w_shape)
    bias, y = m.constant("bias", _normal(out_c)), m.tensor("y", [1, out_hw, out_hw, out_c])
    m.op("MUL", [w_in, gain], [w], s.MulOptionsT())
    fields = {"padding": getattr(s.Padding, padding), "strideH": stride, "strideW": stride,
              "dilationHFactor": 1, "dilationWFactor": 1,
              "fusedActivationFunction": s.ActivationFunctionType.RELU6}
    if depthwise:
        m.op("DEPTHWISE_CONV_2D", [x, w, bias], [y],
             options(s.DepthwiseConv2DOptionsT(), depthMultiplier=out_c // channels, **fields))
    else:
        m.op("CONV_2D", [x, w, bias], [y], options(s.Conv2DOptionsT(), **fields))
    data = m.finish([x, w_in], [y])
    assert_matches_litert(data, [_normal(1, 6, 6, channels), _normal(*w_shape)], tmp_path)


def test_batch_matmul_of_two_computed_operands(tmp_path):
    """y = BATCH_MATMUL(a * 2, bᵀ) with adj_y: both operands computed, the second transposed."""
    m = TfliteModel()
    a, b = m.tensor("a", [2, 3, 5]), m.tensor("b", [2, 4, 5])
    two = m.constant("two", np.array(2.0, np.float32))
    a2, y = m.tensor("a2", [2, 3, 5]), m.tensor("y", [2, 3, 4])
    m.op("MUL", [a, two], [a2], s.MulOptionsT())
    m.op("BATCH_MATMUL", [a2, b], [y], options(s.BatchMatMulOptionsT(), adjX=False, adjY=True))
    data = m.finish([a, b], [y])
    assert_matches_litert(data, [_normal(2, 3, 5), _normal(2, 4, 5)], tmp_path)
