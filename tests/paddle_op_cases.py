"""Paddle models the Paddle frontend tests convert: one small model per op (or op variant), and
three whole networks in the style of PP-LCNet, PP-PicoDet and SVTR.

Each case is built in Paddle (so only tests/paddle_oracle.py, in a subprocess with paddlepaddle,
calls ``export``) and exported in both formats: ``paddle.jit.save`` writes PIR (``inference.json``)
by default and a ProgramDesc (``inference.pdmodel``) with FLAGS_enable_pir_api=0. Ops the Paddle 3
Python API no longer emits (fc, mul, matmul v1, the v1 interpolations, elementwise ops with an
explicit ``axis``) are built as legacy static programs with ``append_op``: ProgramDesc only.

``ops`` lists the legacy op types a case is there to cover (docs/PADDLE_OPS.md is made from it).
"""

from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np


@dataclasses.dataclass(frozen=True)
class Input:
    name: str
    shape: tuple[int, ...]
    dtype: str = "float32"
    low: float = -2.0
    high: float = 2.0
    dynamic: tuple[int, ...] = ()  # dims exported as None (-1)


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    ops: tuple[str, ...]
    inputs_spec: tuple[Input, ...]
    build: Callable[[], Any]  # -> a paddle.nn.Layer, or a static builder when ``static``
    static: bool = False
    # The legacy static program for ops that Paddle 3's API emits only in PIR form.
    legacy: Callable[[], Any] | None = None

    def exports(self, fmt: str) -> bool:
        return fmt == "legacy" or not self.static

    def inputs(self) -> dict[str, np.ndarray]:
        rng = np.random.default_rng(zlib.crc32(self.name.encode()))
        arrays = {}
        for spec in self.inputs_spec:
            if spec.dtype.startswith("int"):
                value = rng.integers(int(spec.low), int(spec.high), size=spec.shape)
            elif spec.dtype == "bool":
                value = rng.random(spec.shape) > 0.5
            else:
                value = rng.uniform(spec.low, spec.high, size=spec.shape)
            arrays[spec.name] = np.asarray(value).astype(spec.dtype)
        return arrays

    def export(self, fmt: str, prefix: Path) -> None:
        import paddle

        paddle.seed(1000 + len(self.name))
        np.random.seed(len(self.name))
        if self.static or (fmt == "legacy" and self.legacy is not None):
            _export_static(self.legacy or self.build, self.inputs_spec, prefix)
            return
        layer = self.build()
        _randomize_norm_statistics(layer)
        layer.eval()
        specs = [
            paddle.static.InputSpec(
                [None if i in s.dynamic else d for i, d in enumerate(s.shape)], s.dtype, s.name
            )
            for s in self.inputs_spec
        ]
        paddle.jit.save(layer, str(prefix), input_spec=specs)


def _randomize_norm_statistics(layer: Any) -> None:
    """Running mean / variance that are not 0 / 1, so a wrong formula shows."""
    import paddle

    rng = np.random.default_rng(7)
    for sub in layer.sublayers(include_self=True):
        if isinstance(sub, (paddle.nn.BatchNorm2D, paddle.nn.BatchNorm1D)):
            channels = sub._mean.shape[0]
            sub._mean.set_value(rng.uniform(-0.5, 0.5, channels).astype("float32"))
            sub._variance.set_value(rng.uniform(0.5, 2.0, channels).astype("float32"))
            sub.weight.set_value(rng.uniform(0.5, 1.5, channels).astype("float32"))
            sub.bias.set_value(rng.uniform(-0.5, 0.5, channels).astype("float32"))


def _export_static(build: Callable[[], Any], inputs: tuple[Input, ...], prefix: Path) -> None:
    import paddle

    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            feeds = [paddle.static.data(s.name, list(s.shape), s.dtype) for s in inputs]
            fetches = build()(main.global_block(), *feeds)
        executor = paddle.static.Executor(paddle.CPUPlace())
        executor.run(startup)
        paddle.static.save_inference_model(str(prefix), feeds, fetches, executor, program=main)
    finally:
        paddle.disable_static()


# -- building blocks ----------------------------------------------------------------------------------
def fn(function: Callable[..., Any], *layers: Any) -> Callable[[], Any]:
    """A case built from a function of the inputs (``layers`` are created inside the Layer).

    jit.save traces ``forward`` by its named parameters, so there is one class per input count.
    """

    def build() -> Any:
        import paddle

        class Function(paddle.nn.Layer):
            def __init__(self) -> None:
                super().__init__()
                self.parts = paddle.nn.LayerList([make() for make in layers])

        class One(Function):
            def forward(self, a: Any) -> Any:
                return function(a, *self.parts)

        class Two(Function):
            def forward(self, a: Any, b: Any) -> Any:
                return function(a, b, *self.parts)

        class Three(Function):
            def forward(self, a: Any, b: Any, c: Any) -> Any:
                return function(a, b, c, *self.parts)

        import inspect

        arity = len(inspect.signature(function).parameters) - len(layers)
        return {1: One, 2: Two, 3: Three}[arity]()

    return build


def F() -> Any:  # noqa: N802 - paddle.nn.functional, imported where Paddle is present
    import paddle.nn.functional as functional

    return functional


def P() -> Any:  # noqa: N802
    import paddle

    return paddle


def nn() -> Any:
    import paddle

    return paddle.nn


def image(
    name: str = "x", shape: tuple[int, ...] = (2, 4, 8, 8), dynamic: tuple[int, ...] = (0,), **kwargs: Any
) -> Input:
    return Input(name, shape, dynamic=dynamic, **kwargs)


X = (image(),)
XY = (image("x", (2, 4, 8, 8)), image("y", (2, 4, 8, 8)))
XY_BROADCAST = (image("x", (2, 4, 8, 8)), Input("y", (4, 1, 8)))
POSITIVE = (image(low=0.1, high=3.0),)
SEQ = (Input("x", (2, 6, 16), dynamic=(0,)),)


def _unary(
    op: str,
    call: Callable[[Any], Any],
    inputs: tuple[Input, ...] = X,
    legacy_attrs: dict[str, Any] | None = None,
) -> Case:
    """One activation; ``legacy_attrs`` given: the legacy program is the op alone, built statically."""
    legacy = None if legacy_attrs is None else _static_op(op, {"X": 0}, legacy_attrs)
    return Case(op, (op,), inputs, fn(call), legacy=legacy)


def _static_op(
    op_type: str,
    inputs: dict[str, Any],
    attrs: dict[str, Any],
    output_slot: str = "Out",
    extra_outputs: tuple[str, ...] = (),
    out_dtype: str = "float32",
) -> Callable[[], Any]:
    """A legacy static program of one ``op_type`` op over the feeds (and created parameters)."""

    def build() -> Any:
        def program(block: Any, *feeds: Any) -> list[Any]:
            import paddle

            slots = {}
            for slot, source in inputs.items():
                if isinstance(source, int):
                    slots[slot] = [feeds[source]]
                else:  # a parameter: (shape, seed)
                    shape, seed = source
                    value = np.random.default_rng(seed).uniform(-1, 1, shape).astype("float32")
                    slots[slot] = [
                        paddle.static.create_parameter(
                            list(shape), "float32", default_initializer=paddle.nn.initializer.Assign(value)
                        )
                    ]
            out = block.create_var(name=f"{op_type}_out", dtype=out_dtype)
            outputs = {output_slot: [out]}
            for extra in extra_outputs:
                outputs[extra] = [block.create_var(name=f"{op_type}_{extra}", dtype="float32")]
            block.append_op(type=op_type, inputs=slots, outputs=outputs, attrs=attrs)
            return [out]

        return program

    return build


# -- the cases ----------------------------------------------------------------------------------------
CASES: list[Case] = [
    # convolutions and pooling
    Case("conv2d", ("conv2d",), X, fn(lambda x, c: c(x), lambda: nn().Conv2D(4, 6, 3, stride=2, padding=1))),
    Case(
        "conv2d_same_dilated",
        ("conv2d",),
        X,
        fn(lambda x, c: c(x), lambda: nn().Conv2D(4, 5, 3, padding="SAME", dilation=2, bias_attr=False)),
    ),
    Case(
        "conv2d_asymmetric_pad",
        ("conv2d",),
        X,
        fn(lambda x, c: c(x), lambda: nn().Conv2D(4, 3, (3, 2), padding=[1, 0, 2, 1], groups=1)),
    ),
    Case("conv2d_grouped", ("conv2d",), X, fn(lambda x, c: c(x), lambda: nn().Conv2D(4, 8, 3, groups=2))),
    Case(
        "depthwise_conv2d",
        ("depthwise_conv2d",),
        X,
        fn(lambda x, c: c(x), lambda: nn().Conv2D(4, 4, 3, padding=1, groups=4)),
    ),
    Case(
        "conv2d_transpose",
        ("conv2d_transpose",),
        X,
        fn(lambda x, c: c(x), lambda: nn().Conv2DTranspose(4, 6, 4, stride=2, padding=1)),
    ),
    Case(
        "conv2d_transpose_output_padding",
        ("conv2d_transpose",),
        X,
        fn(lambda x, c: c(x), lambda: nn().Conv2DTranspose(4, 3, 3, stride=2, padding=1, output_padding=1)),
    ),
    Case(
        "depthwise_conv2d_transpose",
        ("depthwise_conv2d_transpose",),
        X,
        fn(lambda x, c: c(x), lambda: nn().Conv2DTranspose(4, 4, 3, stride=2, groups=4)),
    ),
    Case("batch_norm", ("batch_norm",), X, fn(lambda x, b: b(x), lambda: nn().BatchNorm2D(4))),
    Case("pool2d_max", ("pool2d",), X, fn(lambda x: F().max_pool2d(x, 3, 2, 1))),
    Case("pool2d_max_ceil", ("pool2d",), X, fn(lambda x: F().max_pool2d(x, 3, 2, 0, ceil_mode=True))),
    Case("pool2d_avg_exclusive", ("pool2d",), X, fn(lambda x: F().avg_pool2d(x, 3, 2, 1, exclusive=True))),
    Case("pool2d_avg_inclusive", ("pool2d",), X, fn(lambda x: F().avg_pool2d(x, 2, 2, 1, exclusive=False))),
    Case("pool2d_adaptive", ("pool2d",), (image(dynamic=()),), fn(lambda x: F().adaptive_avg_pool2d(x, 2))),
    Case(
        "pool2d_adaptive_max",
        ("max_pool2d_with_index",),
        (image(dynamic=()),),
        fn(lambda x: F().adaptive_max_pool2d(x, 4)),
    ),
    Case("pool2d_global", ("pool2d",), X, fn(lambda x: F().adaptive_avg_pool2d(x, 1))),
    Case("instance_norm", ("instance_norm",), X, fn(lambda x, n: n(x), lambda: nn().InstanceNorm2D(4))),
    Case("group_norm", ("group_norm",), X, fn(lambda x, n: n(x), lambda: nn().GroupNorm(2, 4))),
    Case("layer_norm", ("layer_norm",), SEQ, fn(lambda x, n: n(x), lambda: nn().LayerNorm(16))),
    Case("layer_norm_2d", ("layer_norm",), SEQ, fn(lambda x, n: n(x), lambda: nn().LayerNorm([6, 16]))),
    Case("pixel_shuffle", ("pixel_shuffle",), X, fn(lambda x: F().pixel_shuffle(x, 2))),
    Case("pad3d_constant", ("pad3d",), X, fn(lambda x: F().pad(x, [1, 2, 0, 1], value=0.5))),
    Case("pad3d_reflect", ("pad3d",), X, fn(lambda x: F().pad(x, [1, 2, 2, 1], mode="reflect"))),
    Case("pad3d_replicate", ("pad3d",), X, fn(lambda x: F().pad(x, [2, 0, 1, 1], mode="replicate"))),
    # interpolation
    Case(
        "nearest_interp_v2_scale",
        ("nearest_interp_v2",),
        X,
        fn(lambda x: F().interpolate(x, scale_factor=2, mode="nearest")),
    ),
    Case(
        "nearest_interp_v2_size",
        ("nearest_interp_v2",),
        X,
        fn(lambda x: F().interpolate(x, size=[12, 5], mode="nearest")),
    ),
    Case(
        "bilinear_interp_v2_half_pixel",
        ("bilinear_interp_v2",),
        X,
        fn(lambda x: F().interpolate(x, size=[11, 6], mode="bilinear", align_corners=False, align_mode=0)),
    ),
    Case(
        "bilinear_interp_v2_asymmetric",
        ("bilinear_interp_v2",),
        X,
        fn(
            lambda x: F().interpolate(x, scale_factor=1.5, mode="bilinear", align_corners=False, align_mode=1)
        ),
    ),
    Case(
        "bilinear_interp_v2_align",
        ("bilinear_interp_v2",),
        X,
        fn(lambda x: F().interpolate(x, size=[15, 4], mode="bilinear", align_corners=True)),
    ),
    Case(
        "bicubic_interp_v2",
        ("bicubic_interp_v2",),
        X,
        fn(lambda x: F().interpolate(x, size=[10, 12], mode="bicubic", align_corners=False)),
    ),
    Case(
        "nearest_interp_v1",
        ("nearest_interp",),
        (image(dynamic=()),),
        _static_op(
            "nearest_interp",
            {"X": 0},
            {"out_h": 16, "out_w": 12, "interp_method": "nearest", "align_corners": False},
        ),
        static=True,
    ),
    Case(
        "bilinear_interp_v1",
        ("bilinear_interp",),
        (image(dynamic=()),),
        _static_op(
            "bilinear_interp",
            {"X": 0},
            {"out_h": 12, "out_w": 16, "interp_method": "bilinear", "align_corners": False, "align_mode": 0},
        ),
        static=True,
    ),
    # elementwise arithmetic
    Case("elementwise_add", ("elementwise_add",), XY_BROADCAST, fn(lambda x, y: x + y)),
    Case("elementwise_sub", ("elementwise_sub",), XY, fn(lambda x, y: x - y)),
    Case("elementwise_mul", ("elementwise_mul",), XY_BROADCAST, fn(lambda x, y: x * y)),
    Case(
        "elementwise_div",
        ("elementwise_div",),
        (image("x"), image("y", low=0.5, high=2.0)),
        fn(lambda x, y: x / y),
    ),
    Case(
        "elementwise_max",
        ("elementwise_max",),
        XY,
        fn(lambda x, y: P().maximum(x, y)),
        legacy=_static_op("elementwise_max", {"X": 0, "Y": 1}, {"axis": -1}),
    ),
    Case(
        "elementwise_min",
        ("elementwise_min",),
        XY,
        fn(lambda x, y: P().minimum(x, y)),
        legacy=_static_op("elementwise_min", {"X": 0, "Y": 1}, {"axis": -1}),
    ),
    Case(
        "elementwise_pow",
        ("elementwise_pow",),
        (image("x", low=0.1, high=2.0), image("y")),
        fn(lambda x, y: P().pow(x, y)),
    ),
    Case(
        "elementwise_floordiv",
        ("elementwise_floordiv",),
        (Input("x", (3, 5), "int64", -20, 20), Input("y", (3, 5), "int64", 1, 6)),
        fn(lambda x, y: P().floor_divide(x, y)),
    ),
    Case(
        "elementwise_mod",
        ("elementwise_mod",),
        (Input("x", (3, 5), "int64", -20, 20), Input("y", (3, 5), "int64", 1, 6)),
        fn(lambda x, y: P().remainder(x, y)),
    ),
    Case(
        "elementwise_axis",
        ("elementwise_add", "elementwise_mul"),
        (image(dynamic=()), Input("y", (4,))),
        lambda: _elementwise_axis_program,
        static=True,
    ),
    Case("scale", ("scale",), X, fn(lambda x: P().scale(x, 1.5, 0.25))),
    Case("scale_bias_first", ("scale",), X, fn(lambda x: P().scale(x, -2.0, 1.0, bias_after_scale=False))),
    Case("clip", ("clip",), X, fn(lambda x: P().clip(x, -0.5, 0.75))),
    Case("pow", ("pow",), POSITIVE, fn(lambda x: P().pow(x, 2.5))),
    Case("sum", ("sum",), XY, fn(lambda x, y: P().add_n([x, y, x]))),
    Case("where", ("where", "greater_than"), XY, fn(lambda x, y: P().where(x > y, x, y))),
    Case(
        "compare",
        (
            "equal",
            "not_equal",
            "less_than",
            "less_equal",
            "greater_equal",
            "logical_and",
            "logical_or",
            "logical_not",
            "cast",
        ),
        (Input("x", (3, 6), "int32", -3, 3), Input("y", (3, 6), "int32", -3, 3)),
        fn(
            lambda x, y: (
                P().cast(P().logical_or(P().logical_and(x == y, x <= y), P().logical_not(x != y)), "int32")
                + P().cast(x < y, "int32")
                + P().cast(x >= y, "int32")
            )
        ),
        legacy=lambda: _compare_program,
    ),
    # activations
    _unary("relu", lambda x: F().relu(x)),
    _unary("relu6", lambda x: F().relu6(x * 4)),
    _unary("sigmoid", lambda x: F().sigmoid(x), legacy_attrs={}),
    _unary("tanh", lambda x: P().tanh(x), legacy_attrs={}),
    _unary("hard_swish", lambda x: F().hardswish(x * 3)),
    _unary("hard_sigmoid", lambda x: F().hardsigmoid(x * 3)),
    Case(
        "hard_sigmoid_custom",
        ("hard_sigmoid",),
        X,
        fn(lambda x: F().hardsigmoid(x * 3, slope=0.2, offset=0.5)),
    ),
    _unary("swish", lambda x: F().swish(x)),
    _unary("silu", lambda x: F().silu(x)),
    _unary("gelu", lambda x: F().gelu(x), legacy_attrs={"approximate": False}),
    Case(
        "gelu_tanh",
        ("gelu",),
        X,
        fn(lambda x: F().gelu(x, approximate=True)),
        legacy=_static_op("gelu", {"X": 0}, {"approximate": True}),
    ),
    _unary("leaky_relu", lambda x: F().leaky_relu(x, 0.15)),
    Case("prelu_channel", ("prelu",), X, fn(lambda x, p: p(x), lambda: nn().PReLU(4, 0.1))),
    Case("prelu_all", ("prelu",), X, fn(lambda x, p: p(x), lambda: nn().PReLU(1, 0.3))),
    _unary("elu", lambda x: F().elu(x, 0.7)),
    _unary("selu", lambda x: F().selu(x)),
    _unary("celu", lambda x: F().celu(x, 1.3)),
    Case(
        "softplus",
        ("softplus",),
        (image(low=-10, high=10),),
        fn(lambda x: F().softplus(x, beta=2, threshold=15)),
        legacy=_static_op("softplus", {"X": 0}, {"beta": 2.0, "threshold": 15.0}),
    ),
    _unary("mish", lambda x: F().mish(x)),
    _unary("softsign", lambda x: F().softsign(x)),
    _unary("logsigmoid", lambda x: F().log_sigmoid(x)),
    _unary("tanh_shrink", lambda x: F().tanhshrink(x)),
    _unary("thresholded_relu", lambda x: F().thresholded_relu(x, 0.5)),
    _unary("hard_shrink", lambda x: F().hardshrink(x, 0.6)),
    _unary("softshrink", lambda x: F().softshrink(x, 0.4)),
    _unary("brelu", lambda x: F().hardtanh(x, -0.5, 1.2)),
    _unary("exp", lambda x: P().exp(x), legacy_attrs={}),
    _unary("log", lambda x: P().log(x), POSITIVE, legacy_attrs={}),
    _unary("sqrt", lambda x: P().sqrt(x), POSITIVE, legacy_attrs={}),
    _unary("rsqrt", lambda x: P().rsqrt(x), POSITIVE, legacy_attrs={}),
    _unary("abs", lambda x: P().abs(x), legacy_attrs={}),
    _unary("floor", lambda x: P().floor(x), (image(low=-6, high=6),), legacy_attrs={}),
    _unary("ceil", lambda x: P().ceil(x), (image(low=-6, high=6),), legacy_attrs={}),
    _unary("round", lambda x: P().round(x), (image(low=-4, high=4),), legacy_attrs={}),
    _unary("sin", lambda x: P().sin(x), legacy_attrs={}),
    _unary("cos", lambda x: P().cos(x), legacy_attrs={}),
    _unary("erf", lambda x: P().erf(x)),
    _unary("reciprocal", lambda x: P().reciprocal(x), POSITIVE),
    _unary("square", lambda x: P().square(x)),
    _unary("sign", lambda x: P().sign(x), legacy_attrs={}),
    _unary("softmax", lambda x: F().softmax(x, axis=1)),
    _unary("log_softmax", lambda x: F().log_softmax(x, axis=-1)),
    # matrix products
    Case(
        "matmul_v2",
        ("matmul_v2",),
        (Input("x", (2, 3, 5, 4), dynamic=(0,)), Input("y", (2, 3, 6, 4))),
        fn(lambda x, y: P().matmul(x, y, transpose_y=True)),
        legacy=_static_op("matmul_v2", {"X": 0, "Y": 1}, {"trans_x": False, "trans_y": True}),
    ),
    Case(
        "matmul_v2_transpose_x",
        ("matmul_v2",),
        (Input("x", (4, 5)), Input("y", (4, 3))),
        fn(lambda x, y: P().matmul(x, y, transpose_x=True)),
        legacy=_static_op("matmul_v2", {"X": 0, "Y": 1}, {"trans_x": True, "trans_y": False}),
    ),
    Case("linear", ("matmul_v2", "elementwise_add"), SEQ, fn(lambda x, f: f(x), lambda: nn().Linear(16, 7))),
    Case(
        "bmm",
        ("bmm",),
        (Input("x", (3, 4, 5)), Input("y", (3, 5, 2))),
        fn(lambda x, y: P().bmm(x, y)),
        legacy=_static_op("bmm", {"X": 0, "Y": 1}, {}),
    ),
    Case(
        "matmul_v1",
        ("matmul",),
        (Input("x", (2, 5, 4)), Input("y", (2, 6, 4))),
        _static_op("matmul", {"X": 0, "Y": 1}, {"transpose_X": False, "transpose_Y": True, "alpha": 0.5}),
        static=True,
    ),
    Case(
        "mul",
        ("mul",),
        (Input("x", (3, 4, 2, 3)),),
        _static_op("mul", {"X": 0, "Y": ((24, 5), 3)}, {"x_num_col_dims": 1, "y_num_col_dims": 1}),
        static=True,
    ),
    Case(
        "fc",
        ("fc",),
        (Input("x", (3, 2, 6)),),
        _static_op(
            "fc",
            {"Input": 0, "W": ((6, 4), 4), "Bias": ((4,), 5)},
            {"in_num_col_dims": 2, "activation_type": "relu"},
        ),
        static=True,
    ),
    # reductions
    Case("reduce_mean", ("reduce_mean",), X, fn(lambda x: P().mean(x, axis=[2, 3], keepdim=True))),
    Case(
        "reduce_sum",
        ("reduce_sum",),
        X,
        fn(lambda x: P().sum(x, axis=1)),
        legacy=_static_op("reduce_sum", {"X": 0}, {"dim": [1], "keep_dim": False, "reduce_all": False}),
    ),
    Case("reduce_max", ("reduce_max",), X, fn(lambda x: P().max(x, axis=-1, keepdim=True))),
    Case("reduce_min", ("reduce_min",), X, fn(lambda x: P().min(x, axis=[1, 2]))),
    Case("reduce_prod", ("reduce_prod",), (image(low=0.5, high=1.5),), fn(lambda x: P().prod(x, axis=3))),
    Case("mean_all", ("reduce_mean",), X, fn(lambda x: P().mean(x))),
    Case(
        "arg_max",
        ("arg_max",),
        X,
        fn(lambda x: P().argmax(x, axis=1)),
        legacy=_static_op(
            "arg_max",
            {"X": 0},
            {"axis": 1, "keepdims": False, "flatten": False, "dtype": 3},
            out_dtype="int64",
        ),
    ),
    Case(
        "arg_min",
        ("arg_min",),
        X,
        fn(lambda x: P().argmin(x, axis=-1, keepdim=True)),
        legacy=_static_op(
            "arg_min",
            {"X": 0},
            {"axis": -1, "keepdims": True, "flatten": False, "dtype": 3},
            out_dtype="int64",
        ),
    ),
    Case("p_norm", ("p_norm",), X, fn(lambda x: P().linalg.norm(x, p=2, axis=1))),
    Case("cumsum", ("cumsum",), X, fn(lambda x: P().cumsum(x, axis=2))),
    Case("top_k_v2", ("top_k_v2",), SEQ, fn(lambda x: P().topk(x, 3, axis=-1)[0])),
    # tensor plumbing
    Case("reshape2", ("reshape2",), X, fn(lambda x: P().reshape(x, [0, -1, 16]))),
    Case(
        "reshape2_shape_tensor",
        ("reshape2", "shape", "slice"),
        X,
        fn(lambda x: P().reshape(x, [P().shape(x)[0], 4, -1])),
    ),
    Case("transpose2", ("transpose2",), X, fn(lambda x: P().transpose(x, [0, 2, 3, 1]))),
    Case("flatten_contiguous_range", ("flatten_contiguous_range",), X, fn(lambda x: P().flatten(x, 1, 2))),
    Case(
        "flatten2",
        ("flatten2",),
        (image(dynamic=()),),
        _static_op("flatten2", {"X": 0}, {"axis": 2}, extra_outputs=("XShape",)),
        static=True,
    ),
    Case("squeeze2", ("squeeze2",), (Input("x", (2, 1, 5, 1)),), fn(lambda x: P().squeeze(x, [1, 3]))),
    Case("unsqueeze2", ("unsqueeze2",), SEQ, fn(lambda x: P().unsqueeze(x, [1, -1]))),
    Case("concat", ("concat",), XY, fn(lambda x, y: P().concat([x, y, x], axis=1))),
    Case("split", ("split",), X, fn(lambda x: P().split(x, [1, -1, 2], axis=1)[1] * 2)),
    Case("split_num", ("split",), X, fn(lambda x: P().split(x, 2, axis=3)[0] - P().split(x, 2, axis=3)[1])),
    Case("slice", ("slice",), X, fn(lambda x: x[:, 1:3, -5:, ::1])),
    Case("slice_decrease", ("slice",), X, fn(lambda x: x[:, 2])),
    Case("strided_slice", ("strided_slice",), X, fn(lambda x: x[:, ::2, 7:0:-3, 1::3])),
    Case("stack", ("stack",), XY, fn(lambda x, y: P().stack([x, y], axis=2))),
    Case("unstack", ("unstack",), X, fn(lambda x: P().unstack(x, axis=1)[2])),
    Case("tile", ("tile",), SEQ, fn(lambda x: P().tile(x, [2, 1, 3]))),
    Case("expand_v2", ("expand_v2",), (Input("x", (3, 1, 5)),), fn(lambda x: P().expand(x, [2, 3, 4, 5]))),
    Case(
        "expand_as_v2",
        ("expand_as_v2",),
        (Input("x", (1, 5)), Input("y", (4, 5))),
        fn(lambda x, y: P().expand_as(x, y)),
        legacy=_static_op("expand_as_v2", {"X": 0, "Y": 1}, {"target_shape": [4, 5]}),
    ),
    Case(
        "gather",
        ("gather",),
        (image(), Input("i", (3,), "int64", 0, 4)),
        fn(lambda x, i: P().gather(x, i, axis=1)),
    ),
    Case(
        "gather_nd",
        ("gather_nd",),
        (Input("x", (4, 5, 6)), Input("i", (3, 2), "int64", 0, 4)),
        fn(lambda x, i: P().gather_nd(x, i)),
    ),
    Case(
        "index_select",
        ("index_select",),
        (image(), Input("i", (5,), "int64", 0, 8)),
        fn(lambda x, i: P().index_select(x, i, axis=3)),
    ),
    Case(
        "lookup_table_v2",
        ("lookup_table_v2",),
        (Input("ids", (2, 7), "int64", 0, 10),),
        fn(lambda ids, e: e(ids), lambda: nn().Embedding(10, 6, padding_idx=3)),
    ),
    Case(
        "one_hot_v2",
        ("one_hot_v2",),
        (Input("ids", (2, 7), "int64", 0, 9),),
        fn(lambda ids: F().one_hot(ids, 9)),
    ),
    Case("flip", ("flip",), X, fn(lambda x: P().flip(x, [1, 3]))),
    Case("fill_constant", ("fill_constant",), X, fn(lambda x: x + P().full([1, 4, 1, 1], 0.5))),
    Case("fill_any_like", ("fill_any_like",), X, fn(lambda x: x * P().full_like(x, 2.0))),
    Case("size", ("size",), X, fn(lambda x: P().cast(P().numel(x), "float32") + x)),
    Case("shape_int", ("shape", "cast"), X, fn(lambda x: P().cast(P().shape(x), "float32"))),
    Case("range", ("range",), (Input("x", (3, 5)),), fn(lambda x: x * P().arange(0, 10, 2, dtype="float32"))),
    Case("cast", ("cast",), X, fn(lambda x: P().cast(P().cast(x * 3, "int32"), "float32"))),
    Case("assign", ("assign",), X, fn(lambda x: P().assign(x) + 1)),
    Case(
        "dropout",
        ("dropout",),
        X,
        fn(lambda x: F().dropout(x, 0.3, training=False, mode="downscale_in_infer")),
    ),
    Case(
        "affine_channel",
        ("affine_channel",),
        (image(dynamic=()),),
        _static_op(
            "affine_channel", {"X": 0, "Scale": ((4,), 8), "Bias": ((4,), 9)}, {"data_layout": "NCHW"}
        ),
        static=True,
    ),
]


def _net(name: str) -> Callable[[], Any]:
    def build() -> Any:
        from tests import paddle_nets

        return getattr(paddle_nets, name)()

    return build


NETS = [
    Case(
        "net_pp_lcnet",
        (
            "conv2d",
            "depthwise_conv2d",
            "batch_norm",
            "hard_swish",
            "hard_sigmoid",
            "pool2d",
            "matmul_v2",
            "softmax",
        ),
        (Input("x", (2, 3, 64, 64), dynamic=(0,)),),
        _net("LCNetStyle"),
    ),
    Case(
        "net_picodet",
        (
            "conv2d",
            "depthwise_conv2d",
            "leaky_relu",
            "nearest_interp_v2",
            "concat",
            "split",
            "softmax",
            "matmul_v2",
            "range",
        ),
        (Input("x", (1, 3, 64, 64), dynamic=(0, 2, 3)),),
        _net("PicoDetStyle"),
    ),
    Case(
        "net_svtr",
        ("conv2d", "layer_norm", "matmul_v2", "softmax", "gelu", "reshape2", "transpose2", "slice", "scale"),
        (Input("x", (1, 3, 32, 64), dynamic=(0, 3)),),
        _net("SVTRStyle"),
    ),
]
CASES += NETS

# Quantized with paddle.quantization (PTQ): compared within 1 LSB of the output grid, not 1e-4.
QUANT_CASES = [
    Case(
        "quant_ptq_net",
        ("quantize_linear", "dequantize_linear", "conv2d", "depthwise_conv2d", "matmul_v2"),
        (Input("x", (8, 3, 32, 32), low=-1, high=1),),
        _net("quantized_net"),
    ),
]


def _elementwise_axis_program(block: Any, x: Any, y: Any) -> list[Any]:
    """elementwise_add / elementwise_mul with axis 1: Y [C] aligned with X's channel dim."""
    added = block.create_var(name="axis_add", dtype="float32")
    block.append_op(
        type="elementwise_add", inputs={"X": [x], "Y": [y]}, outputs={"Out": [added]}, attrs={"axis": 1}
    )
    product = block.create_var(name="axis_mul", dtype="float32")
    block.append_op(
        type="elementwise_mul", inputs={"X": [added], "Y": [y]}, outputs={"Out": [product]}, attrs={"axis": 1}
    )
    return [product]


def _compare_program(block: Any, x: Any, y: Any) -> list[Any]:
    """The comparison and logical ops, chained into one int32 result (legacy static program)."""

    def op(op_type: str, inputs: dict[str, Any], dtype: str = "bool", **attrs: Any) -> Any:
        out = block.create_var(name=f"{op_type}_{len(block.ops)}", dtype=dtype)
        block.append_op(type=op_type, inputs=inputs, outputs={"Out": [out]}, attrs=attrs)
        return out

    both = {"X": [x], "Y": [y]}
    mixed = op(
        "logical_or",
        {
            "X": [
                op("logical_and", {"X": [op("equal", both, axis=-1)], "Y": [op("less_equal", both, axis=-1)]})
            ],
            "Y": [op("logical_not", {"X": [op("not_equal", both, axis=-1)]})],
        },
    )
    total = op("cast", {"X": [mixed]}, "int32", in_dtype=0, out_dtype=2)
    for kind in ("less_than", "greater_equal", "greater_than"):
        flag = op("cast", {"X": [op(kind, both, axis=-1)]}, "int32", in_dtype=0, out_dtype=2)
        total = op("elementwise_add", {"X": [total], "Y": [flag]}, "int32", axis=-1)
    return [total]
