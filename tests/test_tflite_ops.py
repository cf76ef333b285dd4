"""Each TFLite builtin the frontend imports, on a one- or two-op .tflite, against LiteRT's reference
kernels (fp32 within 1e-5 of max(1, max|ref|): one op, rounding differences only; integer and bool
outputs exactly). The models are written with LiteRT's schema (tests/tflite_builder.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert", reason="needs the tflite extra (ai-edge-litert)")
from ai_edge_litert import schema_py_generated as s  # noqa: E402

from tests.tflite_builder import TfliteModel, assert_matches_litert, options, run_litert, run_ours  # noqa: E402

Case = Callable[[np.random.Generator], tuple[bytes, list[np.ndarray]]]
CASES: dict[str, Case] = {}


def case(name: str) -> Callable[[Case], Case]:
    def register(build: Case) -> Case:
        CASES[name] = build
        return build

    return register


def _one_op(
    opcode: str,
    in_shapes: list[list[int]],
    out_shapes: list[list[int]],
    rng: np.random.Generator,
    opts: object = None,
    constants: list[np.ndarray] = (),
    in_dtype: object = np.float32,
    out_dtype: object = np.float32,
    version: int = 1,
) -> tuple[bytes, list[np.ndarray]]:
    """A model of one op: graph inputs first, then ``constants`` as further op inputs."""
    m = TfliteModel()
    xs = [m.tensor(f"x{i}", shape, in_dtype) for i, shape in enumerate(in_shapes)]
    cs = [m.constant(f"c{i}", value) for i, value in enumerate(constants)]
    ys = [m.tensor(f"y{i}", shape, out_dtype) for i, shape in enumerate(out_shapes)]
    m.op(opcode, [*xs, *cs], ys, opts, version=version)
    feeds = [
        (rng.standard_normal(shape) * 2).astype(in_dtype)
        if np.dtype(in_dtype).kind == "f"
        else rng.integers(-5, 6, shape).astype(in_dtype)
        for shape in in_shapes
    ]
    return m.finish(xs, ys), feeds


# -- elementwise ----------------------------------------------------------------------------------
@case("PRELU")
def _prelu(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    alpha = rng.standard_normal((1, 1, 6)).astype(np.float32)
    return _one_op("PRELU", [[1, 5, 7, 6]], [[1, 5, 7, 6]], rng, constants=[alpha])


@case("LEAKY_RELU")
def _leaky(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    return _one_op("LEAKY_RELU", [[2, 3, 4]], [[2, 3, 4]], rng, options(s.LeakyReluOptionsT(), alpha=0.3))


@case("SQUARED_DIFFERENCE")
def _squared_difference(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    return _one_op("SQUARED_DIFFERENCE", [[2, 3, 4], [3, 1]], [[2, 3, 4]], rng)


@pytest.mark.parametrize(
    "opcode",
    [
        "ABS",
        "CEIL",
        "COS",
        "SIN",
        "EXP",
        "FLOOR",
        "NEG",
        "ROUND",
        "SIGN",
        "ELU",
        "RELU_N1_TO_1",
        "RELU_0_TO_1",
        "SQUARE",
        "HARD_SWISH",
        "LOGISTIC",
        "TANH",
        "RELU",
        "RELU6",
        "LOG",
        "SQRT",
        "RSQRT",
    ],
)
def test_unary_matches_litert(opcode: str, tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    data, feeds = _one_op(opcode, [[2, 3, 5]], [[2, 3, 5]], rng)
    if opcode in ("LOG", "SQRT", "RSQRT"):
        feeds = [np.abs(f) + 0.1 for f in feeds]
    if opcode == "ROUND":  # halves included: both round to even
        feeds = [np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5] * 5, np.float32).reshape(2, 3, 5)]
    assert_matches_litert(data, feeds, tmp_path)


@pytest.mark.parametrize("opcode", ["MAXIMUM", "MINIMUM", "POW", "FLOOR_DIV", "SQUARED_DIFFERENCE"])
def test_binary_matches_litert(opcode: str, tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    data, feeds = _one_op(opcode, [[2, 3, 4], [1, 4]], [[2, 3, 4]], rng)
    if opcode == "POW":
        feeds = [np.abs(feeds[0]) + 0.1, feeds[1]]
    if opcode == "FLOOR_DIV":
        feeds[1] = np.where(np.abs(feeds[1]) < 0.2, 0.5, feeds[1]).astype(np.float32)
    assert_matches_litert(data, feeds, tmp_path)


@pytest.mark.parametrize("opcode", ["EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL"])
def test_comparison_matches_litert(opcode: str, tmp_path: Path) -> None:
    data, feeds = _one_op(
        opcode, [[3, 4], [3, 4]], [[3, 4]], np.random.default_rng(3), in_dtype=np.int32, out_dtype=np.bool_
    )
    assert_matches_litert(data, feeds, tmp_path)


@case("SELECT_V2")
def _select(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    m = TfliteModel()
    c, a, b = m.tensor("c", [3, 4], np.bool_), m.tensor("a", [3, 4]), m.tensor("b", [1, 4])
    y = m.tensor("y", [3, 4])
    m.op("SELECT_V2", [c, a, b], [y])
    feeds = [
        rng.integers(0, 2, (3, 4)).astype(bool),
        rng.standard_normal((3, 4)).astype(np.float32),
        rng.standard_normal((1, 4)).astype(np.float32),
    ]
    return m.finish([c, a, b], [y]), feeds


@case("ADD_N")
def _add_n(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    return _one_op("ADD_N", [[2, 5], [2, 5], [2, 5]], [[2, 5]], rng)


@case("GELU")
def _gelu(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    return _one_op("GELU", [[4, 6]], [[4, 6]], rng, options(s.GeluOptionsT(), approximate=True))


@case("CAST")
def _cast(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    return _one_op("CAST", [[4, 6]], [[4, 6]], rng, in_dtype=np.int32, out_dtype=np.float32)


# -- resize ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("opcode", ["RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR"])
@pytest.mark.parametrize(
    "flags",
    [(False, False), (True, False), (False, True)],
    ids=["asymmetric", "align_corners", "half_pixel_centers"],
)
@pytest.mark.parametrize(
    "sizes",
    [((5, 7), (10, 14)), ((5, 7), (8, 11)), ((9, 12), (4, 5)), ((3, 3), (1, 1))],
    ids=["x2", "up_odd", "down", "to_1x1"],
)
def test_resize_matches_litert(
    opcode: str, flags: tuple[bool, bool], sizes: tuple[tuple[int, int], ...], tmp_path: Path
) -> None:
    (h, w), (oh, ow) = sizes
    opts = options(
        s.ResizeBilinearOptionsT() if opcode == "RESIZE_BILINEAR" else s.ResizeNearestNeighborOptionsT(),
        alignCorners=flags[0],
        halfPixelCenters=flags[1],
    )
    data, feeds = _one_op(
        opcode,
        [[2, h, w, 3]],
        [[2, oh, ow, 3]],
        np.random.default_rng(4),
        opts,
        constants=[np.array([oh, ow], np.int32)],
    )
    assert_matches_litert(data, feeds, tmp_path)


# -- strided slice --------------------------------------------------------------------------------
STRIDED = {  # name: (input shape, begin, end, strides, masks)
    "plain": ([4, 6, 5], [1, 0, 2], [3, 6, 5], [1, 2, 1], {}),
    "negative_stride": ([4, 6, 5], [-1, 5, 4], [0, 0, 0], [-1, -2, -1], {"endMask": 0b100}),
    "negative_indices": ([4, 6, 5], [-3, -5, 0], [-1, -1, 5], [1, 2, 2], {}),
    "begin_end_masks": ([4, 6, 5], [3, 9, 1], [0, 0, 4], [1, -1, 3], {"beginMask": 0b011, "endMask": 0b001}),
    "shrink": ([4, 6, 5], [2, 1, 0], [3, 5, 5], [1, 1, 1], {"shrinkAxisMask": 0b001}),
    "shrink_negative": ([4, 6, 5], [0, -1, 0], [4, 0, 5], [1, 1, 1], {"shrinkAxisMask": 0b010}),
    "ellipsis": ([2, 3, 4, 6], [0, 1], [0, 5], [1, 2], {"ellipsisMask": 0b01}),
    "ellipsis_new_axis": (
        [2, 3, 4, 6],
        [0, 0, 1],
        [1, 0, 5],
        [1, 1, 2],
        {"ellipsisMask": 0b010, "newAxisMask": 0b001},
    ),
    "new_axis_middle": (
        [4, 6],
        [1, 0, 0],
        [3, 0, 6],
        [1, 1, -1],
        {"newAxisMask": 0b010, "endMask": 0b100, "beginMask": 0b100},
    ),
    "clamped": ([4, 6], [-10, 2], [10, 100], [1, 1], {}),
    "empty": ([4, 6], [3, 0], [1, 6], [1, 1], {}),
}


def _strided_model(name: str, out_shape: list[int]) -> bytes:
    shape, begin, end, strides, masks = STRIDED[name]
    m = TfliteModel()
    x, y = m.tensor("x", shape), m.tensor("y", out_shape)
    m.op(
        "STRIDED_SLICE",
        [
            x,
            *(
                m.constant(n, np.array(v, np.int32))
                for n, v in (("begin", begin), ("end", end), ("strides", strides))
            ),
        ],
        [y],
        options(s.StridedSliceOptionsT(), **masks),
    )
    return m.finish([x], [y])


@pytest.mark.parametrize("name", sorted(STRIDED))
def test_strided_slice_matches_litert(name: str, tmp_path: Path) -> None:
    """The output shape in the file is the one LiteRT computes (a first run with a placeholder)."""
    from tests.tflite_builder import run_litert

    x = np.random.default_rng(5).standard_normal(STRIDED[name][0]).astype(np.float32)
    probe = tmp_path / "probe.tflite"
    probe.write_bytes(_strided_model(name, [1]))
    shape = list(run_litert(probe, [x])[0].shape)
    assert_matches_litert(_strided_model(name, shape), [x], tmp_path)


# -- data movement --------------------------------------------------------------------------------
@case("SLICE")
def _slice(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    return _one_op(
        "SLICE",
        [[3, 5, 4]],
        [[2, 3, 4]],
        rng,
        constants=[np.array([1, 2, 0], np.int32), np.array([2, -1, 4], np.int32)],
    )


@case("SPLIT")
def _split(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    m = TfliteModel()
    axis, x = m.constant("axis", np.array(-1, np.int32)), m.tensor("x", [2, 3, 6])
    ys = [m.tensor(f"y{i}", [2, 3, 2]) for i in range(3)]
    m.op("SPLIT", [axis, x], ys, options(s.SplitOptionsT(), numSplits=3))
    return m.finish([x], ys), [rng.standard_normal((2, 3, 6)).astype(np.float32)]


@case("SPLIT_V")
def _split_v(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    m = TfliteModel()
    x = m.tensor("x", [2, 7, 3])
    sizes, axis = (
        m.constant("sizes", np.array([2, -1, 1], np.int32)),
        m.constant("axis", np.array([1], np.int32)),
    )
    ys = [m.tensor(f"y{i}", [2, n, 3]) for i, n in enumerate((2, 4, 1))]
    m.op("SPLIT_V", [x, sizes, axis], ys, options(s.SplitVOptionsT(), numSplits=3))
    return m.finish([x], ys), [rng.standard_normal((2, 7, 3)).astype(np.float32)]


@case("PACK")
def _pack(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    return _one_op(
        "PACK", [[3, 4], [3, 4]], [[3, 2, 4]], rng, options(s.PackOptionsT(), valuesCount=2, axis=1)
    )


@case("UNPACK")
def _unpack(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    return _one_op("UNPACK", [[3, 2, 4]], [[3, 4], [3, 4]], rng, options(s.UnpackOptionsT(), num=2, axis=-2))


@case("GATHER")
def _gather(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    return _one_op(
        "GATHER",
        [[4, 5, 3]],
        [[4, 2, 3, 3]],
        rng,
        options(s.GatherOptionsT(), axis=1),
        constants=[np.array([[4, 0, 2], [1, 1, 3]], np.int32)],
    )


@case("GATHER_ND")
def _gather_nd(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    return _one_op("GATHER_ND", [[4, 5, 3]], [[2, 3]], rng, constants=[np.array([[3, 1], [0, 4]], np.int32)])


@case("EXPAND_DIMS")
def _expand_dims(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    return _one_op("EXPAND_DIMS", [[3, 4]], [[3, 1, 4]], rng, constants=[np.array([-2], np.int32)])


@case("TILE")
def _tile(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    return _one_op("TILE", [[2, 3]], [[4, 9]], rng, constants=[np.array([2, 3], np.int32)])


@case("BROADCAST_TO")
def _broadcast_to(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    return _one_op(
        "BROADCAST_TO", [[3, 1]], [[2, 3, 4]], rng, constants=[np.array([2, 3, 4], np.int32)], version=2
    )  # LiteRT registers BROADCAST_TO from version 2


@case("REVERSE_V2")
def _reverse(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    return _one_op("REVERSE_V2", [[3, 4, 5]], [[3, 4, 5]], rng, constants=[np.array([1, 2], np.int32)])


@case("MIRROR_PAD")
def _mirror_pad(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    return _one_op(
        "MIRROR_PAD",
        [[1, 5, 6, 2]],
        [[1, 8, 7, 2]],
        rng,
        options(s.MirrorPadOptionsT(), mode=s.MirrorPadMode.REFLECT),
        constants=[np.array([[0, 0], [2, 1], [0, 1], [0, 0]], np.int32)],
    )


@pytest.mark.parametrize("opcode", ["SUM", "MEAN", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD"])
@pytest.mark.parametrize("keep", [False, True])
def test_reduction_matches_litert(opcode: str, keep: bool, tmp_path: Path) -> None:
    out = [2, 1, 5, 1] if keep else [2, 5]
    data, feeds = _one_op(
        opcode,
        [[2, 3, 5, 4]],
        [out],
        np.random.default_rng(6),
        options(s.ReducerOptionsT(), keepDims=keep),
        constants=[np.array([1, -1], np.int32)],
    )
    assert_matches_litert(data, feeds, tmp_path)


@pytest.mark.parametrize("opcode", ["ARG_MAX", "ARG_MIN"])
def test_arg_matches_litert(opcode: str, tmp_path: Path) -> None:
    opts = options(
        s.ArgMaxOptionsT() if opcode == "ARG_MAX" else s.ArgMinOptionsT(), outputType=s.TensorType.INT32
    )
    data, feeds = _one_op(
        opcode,
        [[3, 7, 4]],
        [[3, 4]],
        np.random.default_rng(7),
        opts,
        constants=[np.array([1], np.int32)],
        out_dtype=np.int32,
    )
    assert_matches_litert(data, feeds, tmp_path)


# -- spatial and matrix ---------------------------------------------------------------------------
@pytest.mark.parametrize("opcode", ["DEPTH_TO_SPACE", "SPACE_TO_DEPTH"])
def test_depth_space_matches_litert(opcode: str, tmp_path: Path) -> None:
    shapes = ([1, 3, 4, 8], [1, 6, 8, 2]) if opcode == "DEPTH_TO_SPACE" else ([1, 6, 8, 2], [1, 3, 4, 8])
    opts = options(
        s.DepthToSpaceOptionsT() if opcode == "DEPTH_TO_SPACE" else s.SpaceToDepthOptionsT(), blockSize=2
    )
    data, feeds = _one_op(opcode, [shapes[0]], [shapes[1]], np.random.default_rng(8), opts)
    assert_matches_litert(data, feeds, tmp_path)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize(
    "geometry",
    [
        ((5, 6), 2, 3, (10, 12)),
        ((5, 6), 2, 3, (9, 11)),
        ((4, 4), 3, 2, (12, 12)),
        ((3, 5), 1, 3, (3, 5)),
        ((4, 5), 2, 4, (7, 9)),
    ],
    ids=["s2k3", "s2k3_odd", "s3k2", "s1k3", "s2k4"],
)
@pytest.mark.parametrize("bias", [False, True])
def test_transpose_conv_matches_litert(padding: str, geometry: tuple, bias: bool, tmp_path: Path) -> None:
    (h, w), stride, k, (oh, ow) = geometry
    if padding == "VALID":
        oh, ow = (h - 1) * stride + k, (w - 1) * stride + k
    rng = np.random.default_rng(9)
    m = TfliteModel()
    x, y = m.tensor("x", [1, h, w, 3]), m.tensor("y", [1, oh, ow, 4])
    inputs = [
        m.constant("output_shape", np.array([1, oh, ow, 4], np.int32)),
        m.constant("w", rng.standard_normal((4, k, k, 3)).astype(np.float32)),
        x,
    ]
    if bias:
        inputs.append(m.constant("b", rng.standard_normal(4).astype(np.float32)))
    opts = options(
        s.TransposeConvOptionsT(), padding=getattr(s.Padding, padding), strideH=stride, strideW=stride
    )
    m.op("TRANSPOSE_CONV", inputs, [y], opts)
    feeds = [rng.standard_normal((1, h, w, 3)).astype(np.float32)]
    assert_matches_litert(m.finish([x], [y]), feeds, tmp_path)


@pytest.mark.parametrize("padding", [1, 2], ids=["SAME", "VALID"])
def test_mediapipe_transpose_conv_bias_matches_litert_transpose_conv(padding: int, tmp_path: Path) -> None:
    """MediaPipe's custom Convolution2DTransposeBias (LiteRT has no kernel for it) against its documented
    meaning run by LiteRT: the builtin TRANSPOSE_CONV with the same weights and bias."""
    rng = np.random.default_rng(15)
    weights = rng.standard_normal((4, 4, 4, 3)).astype(np.float32)
    bias = rng.standard_normal(4).astype(np.float32)
    out_hw = [10, 12] if padding == 1 else [12, 14]
    custom, reference = TfliteModel(), TfliteModel()
    for m in (custom, reference):
        x, y = m.tensor("x", [1, 5, 6, 3]), m.tensor("y", [1, *out_hw, 4])
        w, b = m.constant("w", weights), m.constant("b", bias)
        if m is custom:
            params = np.array([padding, 2, 2], "<i4").tobytes()  # TfLiteTransposeConvParams
            m.op("CUSTOM", [x, w, b], [y], custom="Convolution2DTransposeBias", custom_options=params)
        else:
            opts = options(
                s.TransposeConvOptionsT(),
                padding=s.Padding.SAME if padding == 1 else s.Padding.VALID,
                strideH=2,
                strideW=2,
            )
            m.op(
                "TRANSPOSE_CONV",
                [m.constant("shape", np.array([1, *out_hw, 4], np.int32)), w, x, b],
                [y],
                opts,
            )
        m.end_subgraph([x], [y])
    feeds = [rng.standard_normal((1, 5, 6, 3)).astype(np.float32)]
    path = tmp_path / "reference.tflite"
    path.write_bytes(reference.finish())
    expected = run_litert(path, feeds)[0]
    mine = run_ours(custom.finish(), feeds)[0]
    assert float(np.abs(mine - expected).max()) <= 1e-5 * max(1.0, float(np.abs(expected).max()))


@pytest.mark.parametrize("adjoint", [(False, False), (True, False), (False, True), (True, True)])
def test_batch_matmul_matches_litert(adjoint: tuple[bool, bool], tmp_path: Path) -> None:
    a = [2, 5, 3] if adjoint[0] else [2, 3, 5]
    b = [1, 4, 5] if adjoint[1] else [1, 5, 4]
    data, feeds = _one_op(
        "BATCH_MATMUL",
        [a, b],
        [[2, 3, 4]],
        np.random.default_rng(10),
        options(s.BatchMatMulOptionsT(), adjX=adjoint[0], adjY=adjoint[1]),
    )
    assert_matches_litert(data, feeds, tmp_path)


@case("LOG_SOFTMAX")
def _log_softmax(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    return _one_op("LOG_SOFTMAX", [[3, 7]], [[3, 7]], rng)


@case("LOCAL_RESPONSE_NORMALIZATION")
def _lrn(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    return _one_op(
        "LOCAL_RESPONSE_NORMALIZATION",
        [[1, 3, 4, 9]],
        [[1, 3, 4, 9]],
        rng,
        options(s.LocalResponseNormalizationOptionsT(), radius=2, bias=1.5, alpha=0.3, beta=0.6),
    )


@case("L2_NORMALIZATION")
def _l2(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    return _one_op("L2_NORMALIZATION", [[2, 3, 6]], [[2, 3, 6]], rng, options(s.L2NormOptionsT()))


@pytest.mark.parametrize(
    "geometry",
    [
        ([1, 6, 8, 3], [2, 2], [[0, 0], [0, 0]]),
        ([2, 5, 7, 3], [2, 3], [[1, 0], [0, 2]]),
        ([1, 9, 4], [3], [[0, 0]]),
    ],
    ids=["plain", "padded", "one_spatial_dim"],
)
def test_space_batch_round_trip_matches_litert(geometry: tuple, tmp_path: Path) -> None:
    """SPACE_TO_BATCH_ND, a per-batch op, BATCH_TO_SPACE_ND with crops undoing the pads (TF's dilated
    convolution)."""
    shape, block, pads = geometry
    padded = [shape[0]] + [shape[1 + i] + sum(pads[i]) for i in range(len(block))] + shape[1 + len(block) :]
    batched = (
        [shape[0] * int(np.prod(block))]
        + [padded[1 + i] // block[i] for i in range(len(block))]
        + shape[1 + len(block) :]
    )
    m = TfliteModel()
    x, mid, act, y = (
        m.tensor("x", shape),
        m.tensor("batched", batched),
        m.tensor("act", batched),
        m.tensor("y", shape),
    )
    block_t, pads_t = (
        m.constant("block", np.array(block, np.int32)),
        m.constant("pads", np.array(pads, np.int32)),
    )
    m.op("SPACE_TO_BATCH_ND", [x, block_t, pads_t], [mid])
    m.op("TANH", [mid], [act])
    m.op("BATCH_TO_SPACE_ND", [act, block_t, pads_t], [y])
    feeds = [np.random.default_rng(13).standard_normal(shape).astype(np.float32)]
    assert_matches_litert(m.finish([x], [mid, y]), feeds, tmp_path)


@case("CUMSUM")
def _cumsum(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    opts = options(s.CumsumOptionsT(), exclusive=True, reverse=True)
    return _one_op("CUMSUM", [[3, 5, 2]], [[3, 5, 2]], rng, opts, constants=[np.array(1, np.int32)])


@case("TOPK_V2")
def _top_k(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    m = TfliteModel()
    x, values, indices = (
        m.tensor("x", [3, 9]),
        m.tensor("values", [3, 4]),
        m.tensor("indices", [3, 4], np.int32),
    )
    m.op("TOPK_V2", [x, m.constant("k", np.array(4, np.int32))], [values, indices])
    return m.finish([x], [values, indices]), [rng.permutation(27).reshape(3, 9).astype(np.float32)]


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_floor_mod_matches_litert(dtype: type, tmp_path: Path) -> None:
    data, feeds = _one_op(
        "FLOOR_MOD", [[4, 5], [4, 5]], [[4, 5]], np.random.default_rng(14), in_dtype=dtype, out_dtype=dtype
    )
    feeds[1] = (
        np.where(feeds[1] == 0, 3, feeds[1]).astype(dtype)
        if dtype == np.int32
        else np.where(np.abs(feeds[1]) < 0.3, 1.5, feeds[1]).astype(dtype)
    )
    assert_matches_litert(data, feeds, tmp_path)


@case("SCATTER_ND")
def _scatter_nd(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    """Duplicate indices: TFLite sums their updates."""
    m = TfliteModel()
    updates, y = m.tensor("updates", [4, 3]), m.tensor("y", [5, 3])
    indices = m.constant("indices", np.array([[1], [3], [1], [0]], np.int32))
    m.op("SCATTER_ND", [indices, updates, m.constant("shape", np.array([5, 3], np.int32))], [y])
    return m.finish([updates], [y]), [rng.standard_normal((4, 3)).astype(np.float32)]


@pytest.mark.parametrize("axes", [(1, 0), (0, 1)], ids=["time_major", "batch_major"])
def test_reverse_sequence_matches_litert(axes: tuple[int, int], tmp_path: Path) -> None:
    seq_dim, batch_dim = axes
    shape = [5, 3, 2] if seq_dim == 0 else [3, 5, 2]
    m = TfliteModel()
    x, y = m.tensor("x", shape), m.tensor("y", shape)
    lengths = m.constant("lengths", np.array([5, 0, 3], np.int32))
    m.op(
        "REVERSE_SEQUENCE",
        [x, lengths],
        [y],
        options(s.ReverseSequenceOptionsT(), seqDim=seq_dim, batchDim=batch_dim),
    )
    feeds = [np.random.default_rng(16).standard_normal(shape).astype(np.float32)]
    assert_matches_litert(m.finish([x], [y]), feeds, tmp_path)


@case("SHAPE")
def _shape(rng: np.random.Generator) -> tuple[bytes, list[np.ndarray]]:
    """SHAPE -> STRIDED_SLICE -> REVERSE_V2 -> MUL -> the new shape of a RESHAPE: [2,3,4] -> [6, 4]."""
    m = TfliteModel()
    x, shape, y = m.tensor("x", [2, 3, 4]), m.tensor("shape", [3], np.int32), m.tensor("y", [6, 4])
    m.op("SHAPE", [x], [shape], options(s.ShapeOptionsT(), outType=s.TensorType.INT32))
    sizes, reversed_sizes = m.tensor("sizes", [2], np.int32), m.tensor("reversed", [2], np.int32)
    bounds = [m.constant(n, np.array(v, np.int32)) for n, v in (("b", [0]), ("e", [2]), ("st", [1]))]
    m.op("STRIDED_SLICE", [shape, *bounds], [sizes], options(s.StridedSliceOptionsT()))
    m.op("REVERSE_V2", [sizes, m.constant("axis", np.array([0], np.int32))], [reversed_sizes])
    new_shape = m.tensor("new_shape", [2], np.int32)
    m.op(
        "MUL",
        [reversed_sizes, m.constant("scale", np.array([2, 2], np.int32))],
        [new_shape],
        options(s.MulOptionsT()),
    )
    m.op("RESHAPE", [x, new_shape], [y])
    return m.finish([x], [y]), [rng.standard_normal((2, 3, 4)).astype(np.float32)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_op_matches_litert(name: str, tmp_path: Path) -> None:
    data, feeds = CASES[name](np.random.default_rng(11))
    assert_matches_litert(data, feeds, tmp_path)


# -- int8 models: the same imports with the file's scales ----------------------------------------
def _int8_model(
    opcode: str,
    in_shape: list[int],
    out_shapes: list[list[int]],
    out_quant: tuple[float, int],
    opts: object = None,
    constants: list[int] | None = None,
    build=None,
) -> tuple[bytes, list[np.ndarray]]:
    m = TfliteModel()
    x = m.tensor("x", in_shape, np.int8, quant=(0.05, 3))
    extra = build(m) if build else []
    ys = [m.tensor(f"y{i}", shape, np.int8, quant=out_quant) for i, shape in enumerate(out_shapes)]
    m.op(opcode, [x, *extra], ys, opts)
    feeds = [np.random.default_rng(12).integers(-128, 128, in_shape).astype(np.int8)]
    return m.finish([x], ys), feeds


# name: (opcode, input shape, output shapes, output (scale, zero point), options, extra inputs, steps)
INT8 = {
    "PRELU": (
        "PRELU",
        [1, 5, 6, 4],
        [[1, 5, 6, 4]],
        (0.04, -20),
        None,
        lambda m: [m.tensor("alpha", [4], np.int8, np.array([25, -50, 100, 3], np.int8), quant=(0.01, 0))],
        1,
    ),
    "LEAKY_RELU": (
        "LEAKY_RELU",
        [2, 7, 3],
        [[2, 7, 3]],
        (0.03, -40),
        options(s.LeakyReluOptionsT(), alpha=0.2),
        None,
        1,
    ),
    "RESIZE_BILINEAR": (
        "RESIZE_BILINEAR",
        [1, 5, 6, 3],
        [[1, 9, 11, 3]],
        (0.05, 3),
        options(s.ResizeBilinearOptionsT(), halfPixelCenters=True),
        lambda m: [m.constant("size", np.array([9, 11], np.int32))],
        1,
    ),
    "RESIZE_NEAREST_NEIGHBOR": (
        "RESIZE_NEAREST_NEIGHBOR",
        [1, 5, 6, 3],
        [[1, 10, 12, 3]],
        (0.05, 3),
        options(s.ResizeNearestNeighborOptionsT()),
        lambda m: [m.constant("size", np.array([10, 12], np.int32))],
        0,
    ),
    "STRIDED_SLICE": (
        "STRIDED_SLICE",
        [2, 6, 5],
        [[6, 2]],
        (0.05, 3),
        options(s.StridedSliceOptionsT(), shrinkAxisMask=0b001, endMask=0b010),
        lambda m: [
            m.constant("begin", np.array([1, 0, 4], np.int32)),
            m.constant("end", np.array([2, 0, 0], np.int32)),
            m.constant("strides", np.array([1, 1, -2], np.int32)),
        ],
        0,
    ),
    "SPLIT_V": (
        "SPLIT_V",
        [2, 7, 3],
        [[2, 3, 3], [2, 4, 3]],
        (0.05, 3),
        options(s.SplitVOptionsT(), numSplits=2),
        lambda m: [
            m.constant("sizes", np.array([3, 4], np.int32)),
            m.constant("axis", np.array(1, np.int32)),
        ],
        0,
    ),
    "MIRROR_PAD": (
        "MIRROR_PAD",
        [1, 4, 5, 2],
        [[1, 6, 7, 2]],
        (0.05, 3),
        options(s.MirrorPadOptionsT(), mode=s.MirrorPadMode.REFLECT),
        lambda m: [m.constant("pads", np.array([[0, 0], [1, 1], [1, 1], [0, 0]], np.int32))],
        0,
    ),
    "SUM": (
        "SUM",
        [2, 3, 4],
        [[2, 4]],
        (0.2, 0),
        options(s.ReducerOptionsT(), keepDims=False),
        lambda m: [m.constant("axes", np.array([1], np.int32))],
        1,
    ),
}


@pytest.mark.parametrize("name", sorted(INT8))
def test_int8_op_matches_litert(name: str, tmp_path: Path) -> None:
    """Within the stated quantization steps of LiteRT's integer kernels: 0 for ops that move bytes,
    1 where LiteRT rescales in fixed point and we in fp32 (both round to nearest)."""
    opcode, in_shape, out_shapes, out_quant, opts, build, steps = INT8[name]
    data, feeds = _int8_model(opcode, in_shape, out_shapes, out_quant, opts, build=build)
    assert_matches_litert(data, feeds, tmp_path, int_steps=steps)


def test_every_import_is_documented() -> None:
    """docs/TFLITE_OPS.md lists every builtin the frontend imports (and only those in its table)."""
    import re

    from lite_converter.frontends.tflite_op_table import CONVERTERS

    doc = (Path(__file__).resolve().parents[1] / "docs" / "TFLITE_OPS.md").read_text()
    table = "\n".join(
        line.split("|")[1] for line in doc.splitlines() if line.startswith("| ") and "---" not in line
    )
    listed = set(re.findall(r"\bCUSTOM:\w+|\b[A-Z][A-Z0-9_]+\b", table)) - {"TFLite"}
    assert sorted(set(CONVERTERS) - listed) == [] and sorted(listed - set(CONVERTERS) - {"TFL"}) == []
