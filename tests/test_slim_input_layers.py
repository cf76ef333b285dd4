"""The input-side layers kept in fp32 (``QuantConfig.fp32_input_share``, slim/input_layers.py).

The oracle for the prefix is the multiply-accumulates of each conv written out from its definition
(output pixels x output channels x kernel taps x input channels per group), not our MAC count; the
oracle for "kept in fp32" is the source model's own weights, which an fp32 layer must carry unchanged
(no int8 weight copy). The accuracy effect on PP-OCRv4 rec is measured in benchmarks/COMPRESSION.md
("Session ptq14") and guarded by tests/test_int8_default_hard.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import slim
from lite_converter.app import cli
from slim.pipeline import prepare
from tests.slim_oracle import assert_exact, int8_mismatches

SIDE = 16
# name: (input channels, output channels, kernel, groups)
CONVS = {"stem": (3, 8, 3, 1), "depthwise": (8, 8, 3, 8), "pointwise": (8, 16, 1, 1)}
MACS = {name: SIDE * SIDE * co * k * k * (ci // g) for name, (ci, co, k, g) in CONVS.items()}
TOTAL = sum(MACS.values())  # 55,296 + 18,432 + 32,768


def chain_model(rng: np.random.Generator) -> tuple[bytes, dict[str, np.ndarray]]:
    """stem 3x3 -> ReLU -> depthwise 3x3 -> ReLU -> pointwise 1x1, 'same' padding, 16x16."""
    nodes, weights, previous = [], {}, "x"
    for name, (ci, co, k, g) in CONVS.items():
        weights[name] = rng.normal(0.0, 0.5, (co, ci // g, k, k)).astype(np.float32)
        out = f"{name}_out"
        nodes.append(helper.make_node("Conv", [previous, f"{name}_w"], [out], name=name, group=g,
                                      pads=[k // 2] * 4))
        if name != "pointwise":
            nodes.append(helper.make_node("Relu", [out], [f"{name}_relu"], name=f"{name}_relu"))
            out = f"{name}_relu"
        previous = out
    graph = helper.make_graph(
        nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, SIDE, SIDE])],
        [helper.make_tensor_value_info(previous, TensorProto.FLOAT, [1, 16, SIDE, SIDE])],
        [numpy_helper.from_array(w, f"{name}_w") for name, w in weights.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    return model.SerializeToString(), weights


@pytest.fixture(scope="module")
def chain(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, np.ndarray], list[np.ndarray]]:
    rng = np.random.default_rng(5)
    content, weights = chain_model(rng)
    path = tmp_path_factory.mktemp("input_layers") / "chain.onnx"
    path.write_bytes(content)
    data = [rng.normal(0.0, 1.0, (1, 3, SIDE, SIDE)).astype(np.float32) for _ in range(4)]
    return str(path), weights, data


@pytest.mark.parametrize("share, kept", [
    (0.0, []),
    (MACS["stem"] / TOTAL - 0.01, []),  # the first conv alone is over the share: nothing kept
    (MACS["stem"] / TOTAL + 0.01, ["stem"]),
    ((MACS["stem"] + MACS["depthwise"]) / TOTAL + 0.01, ["stem", "depthwise"]),
    (0.99, ["stem", "depthwise"]),  # the last conv would take it to 100%
])
def test_prefix_stays_within_the_share_of_macs(chain, share: float, kept: list[str]) -> None:  # noqa: ANN001
    path, _, data = chain
    config = slim.QuantConfig(algorithm="hist", fp32_input_share=share, progress=False)
    prepared = prepare(path, data, config)
    assert prepared.input_weighted == kept
    assert set(kept) <= set(prepared.input_layers)


def test_kept_layers_run_fp32_with_the_source_weights(chain) -> None:  # noqa: ANN001
    path, weights, data = chain
    share = (MACS["stem"] + MACS["depthwise"]) / TOTAL + 0.01
    result = slim.compress(path, None, data, slim.QuantConfig(algorithm="hist", fp32_input_share=share,
                                                               progress=False))
    assert "pointwise" in result.int8_nodes
    assert not {"stem", "depthwise"} & set(result.int8_nodes)
    for name in ("stem", "depthwise"):
        node = next(n for n in result.graph.nodes if n.name == name)
        stored = result.graph.constant(node.inputs[1])
        assert stored is not None and stored.dtype == np.float32, name  # no int8 weight + DEQUANTIZE
        np.testing.assert_array_equal(stored, weights[name].transpose(0, 2, 3, 1))  # OIHW -> OHWI


def test_share_must_be_a_fraction() -> None:
    with pytest.raises(ValueError, match="fp32_input_share"):
        slim.QuantConfig(fp32_input_share=1.0)


def test_int8_part_after_the_fp32_prefix_equals_the_simulation(chain) -> None:  # noqa: ANN001
    """The border the prefix adds (a QUANTIZE of the fp32 depthwise output) and the int8 conv after it
    give the fake-quant simulation's bytes exactly (tests/slim_oracle.py), as every int8 node must."""
    path, _, data = chain
    share = (MACS["stem"] + MACS["depthwise"]) / TOTAL + 0.01
    result = slim.compress(path, None, data, slim.QuantConfig(algorithm="hist", fp32_input_share=share,
                                                               progress=False))
    errors = int8_mismatches(result.graph, {"x": data[0]})
    assert any(node.op_type == "QUANTIZE" and node.name in errors for node in result.graph.nodes)
    assert_exact(errors, minimum_nodes=2)


def test_command_line_share(chain, tmp_path, capsys) -> None:  # noqa: ANN001
    """``lite compress --fp32-input-share``: 0 puts every conv in int8 (the int8 preset's behaviour
    before session ptq14), a share over the first two convs' keeps them in fp32."""
    path, _, data = chain
    (tmp_path / "calib").mkdir()
    for i, batch in enumerate(data):
        np.save(tmp_path / "calib" / f"{i}.npy", batch)
    counts = []
    for share in ("0", "0.7"):
        status = cli.main(["compress", path, "-o", str(tmp_path / f"{share}.lite"), "--data",
                           str(tmp_path / "calib"), "--config", "int8", "--fp32-input-share", share])
        out = capsys.readouterr().out
        assert status == 0, out
        counts.append(next(line for line in out.splitlines() if "int8 ops:" in line))
    assert "fp32 ops: 0" in counts[0] and "fp32 ops: 0" not in counts[1], counts
