"""`lite check`: a converted ONNX model against onnxruntime (a .tflite one against LiteRT), outputs
first, then layer by layer.

The passing cases run the real thing end to end (conversion, runtime, onnxruntime or LiteRT). The
failing cases
inject a fault into our side's values (the runtime's run() adds 0.5 to chosen tensors), since a model
we convert wrongly is a bug to fix, not a fixture to keep: the check must then name the first tensor
over its bound in node order, with the node that writes it, and exit with status 1.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from lite_converter.app.cli import main
from runtime_arm.interpreter import Interpreter
from tests.test_bad_input_cli import assert_user_error
from tests.test_cli import lite


def small_cnn(path: Path, gate_input: str = "c2") -> Path:
    """conv 3x3 + ReLU, depthwise 3x3, SiLU as Sigmoid * x, global pool, FC: x [N, 3, 16, 16] -> y [N, 10].
    ``gate_input="r1"`` gates the ReLU's output instead (no SiLU: what the .tflite exporter writes)."""
    rng = np.random.default_rng(0)

    def weight(name: str, *shape: int) -> onnx.TensorProto:
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)

    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
             helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1, 1, 1, 1], group=8, name="dw"),
             helper.make_node("Sigmoid", ["c2"], ["s2"], name="gate"),
             helper.make_node("Mul", [gate_input, "s2"], ["m2"], name="silu"),
             helper.make_node("GlobalAveragePool", ["m2"], ["g"], name="pool"),
             helper.make_node("Flatten", ["g"], ["f"], name="flat"),
             helper.make_node("Gemm", ["f", "w3"], ["y"], transB=1, name="fc")]
    graph = helper.make_graph(
        nodes, "small_cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])],
        [weight("w1", 8, 3, 3, 3), weight("b1", 8), weight("w2", 8, 1, 3, 3), weight("w3", 10, 8)])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return path


def test_a_correct_conversion_passes_output_and_layers(tmp_path: Path) -> None:
    model = small_cnn(tmp_path / "cnn.onnx")
    result = lite("check", str(model), "--input-shape", "x=2,3,16,16", "--layers")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    (row,) = [line for line in lines if line.strip().startswith("y ")]
    error, bound = float(row.split()[1]), float(row.split()[2])
    assert 0 < error < bound, row  # two different implementations: a difference, within the bound
    assert any(line.startswith("layers: 5 tensors compared (5 of 5 float ops)") for line in lines), lines
    assert "every compared tensor is within its bound" in result.stdout
    assert lines[-1] == "ok: the converted model matches its reference"

    np.savez(tmp_path / "in.npz", x=np.random.default_rng(3).random((1, 3, 16, 16), dtype=np.float32))
    result = lite("check", str(model), "--inputs", str(tmp_path / "in.npz"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"inputs: from {tmp_path / 'in.npz'}" in result.stdout and "layers:" not in result.stdout


@pytest.fixture
def fault(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """Names whose value our runtime returns 0.5 too high (filled by the test)."""
    faulty: set[str] = set()
    run = Interpreter.run

    def faulty_run(self: Interpreter, *args: object, **kwargs: object) -> dict[str, np.ndarray]:
        outputs = run(self, *args, **kwargs)
        return {name: value + np.float32(0.5) if name in faulty else value for name, value in outputs.items()}

    monkeypatch.setattr(Interpreter, "run", faulty_run)
    return faulty


def test_a_difference_names_the_first_layer_where_it_starts(tmp_path: Path, fault: set[str],
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    model = small_cnn(tmp_path / "cnn.onnx")
    fault.update({"m2", "y"})  # SiLU (Sigmoid and Mul, fused), and so (as a real fault would) the output
    assert main(["check", str(model), "--input-shape", "x=1,3,16,16"]) == 1
    out = capsys.readouterr().out
    (row,) = [line for line in out.splitlines() if line.strip().startswith("y ")]
    assert row.rstrip().endswith("DIFFERS") and float(row.split()[1]) == pytest.approx(0.5, rel=1e-3), row
    lines = out.splitlines()
    first = lines.index("  2 tensor(s) over their bound; the first in node order (where it starts):")
    assert lines[first + 1].startswith("    'm2' written by Mul 'silu': max |diff| 0.5 > bound "), lines
    assert lines[first + 2].startswith("  then 'y' written by Gemm 'fc': "), lines
    assert lines[-1] == "DIFFERS: 1 output(s) and intermediate tensors beyond the bound"


def test_a_fault_the_outputs_hide_is_found_with_layers(tmp_path: Path, fault: set[str],
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    model = small_cnn(tmp_path / "cnn.onnx")
    fault.add("r1")  # only the kept intermediate: the outputs agree, --layers finds it
    assert main(["check", str(model), "--input-shape", "x=1,3,16,16"]) == 0
    assert main(["check", str(model), "--input-shape", "x=1,3,16,16", "--layers"]) == 1
    out = capsys.readouterr().out.split("converted in memory")[-1]
    assert "    'r1' written by Relu 'relu1': max |diff| 0.5 > bound " in out, out
    assert out.splitlines()[-1] == "DIFFERS: intermediate tensors beyond the bound"


def test_a_lite_file_or_a_broken_model_is_refused(tmp_path: Path) -> None:
    model = small_cnn(tmp_path / "cnn.onnx")
    assert lite("convert", str(model), "--input-shape", "x=1,3,16,16").returncode == 0
    assert_user_error(lite("check", str(tmp_path / "cnn.lite")), "check", "takes the source model",
                      "not a .lite file")
    (tmp_path / "broken.onnx").write_bytes(b"\x08\x07not a model")
    assert_user_error(lite("check", str(tmp_path / "broken.onnx")), "check", "broken.onnx")
    assert_user_error(lite("check", str(model)), "check", "dynamic shape", "--input-shape x=")


def small_tflite(path: Path) -> Path:
    """small_cnn (ReLU-gated) as a float .tflite: converted, then written by the peers' exporter."""
    from lite_converter.app.peers.tflite_export import export_tflite
    from lite_converter.convert import convert
    from lite_converter.reader import read_model

    model = small_cnn(path.with_suffix(".onnx"), gate_input="r1")
    path.write_bytes(export_tflite(read_model(convert(model, input_shapes={"x": [1, 3, 16, 16]}))))
    return path


def test_tflite_models_are_checked_against_litert(tmp_path: Path) -> None:
    from tests.tflite_int8_net import tflite_int8_net

    for model, outputs in ((small_tflite(tmp_path / "cnn.tflite"), ["y"]),
                           (tmp_path / "int8.tflite", ["added", "probabilities"])):
        if not model.exists():
            model.write_bytes(tflite_int8_net())
        result = lite("check", str(model), "--layers")
        assert result.returncode == 0, result.stdout + result.stderr
        assert "against LiteRT 2.3.0 (builtin kernels)" in result.stdout
        rows = [line.split() for line in result.stdout.splitlines() if line.startswith("  ")]
        assert [row[0] for row in rows if row[-1] == "ok"] == outputs, result.stdout
        assert "every compared tensor is within its bound" in result.stdout
    (layers,) = [line for line in result.stdout.splitlines() if line.startswith("layers:")]
    assert layers.startswith("layers: 7 of the 8 op output tensors compared (the others do not"), layers


def test_a_tflite_difference_names_the_first_op(tmp_path: Path, fault: set[str],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    model = small_tflite(tmp_path / "cnn.tflite")
    fault.update({"m2", "y"})
    assert main(["check", str(model)]) == 1
    lines = capsys.readouterr().out.splitlines()
    first = lines.index("  2 tensor(s) over their bound and over 10x their inputs' error; the first in op "
                        "order (where it starts):")
    assert lines[first + 1].startswith("    'm2' written by MUL: max |diff| 0.5 > bound "), lines
    assert lines[first + 2].startswith("  then 'y' written by FULLY_CONNECTED: "), lines
    assert lines[-1] == "DIFFERS: 1 output(s) and intermediate tensors beyond the bound"


def test_a_difference_carried_through_the_tflite_graph_is_told_from_where_it_starts(
        tmp_path: Path, fault: set[str], capsys: pytest.CaptureFixture[str]) -> None:
    """m2 + 0.5 everywhere makes its mean g + 0.5 as well: g inherits the difference (its relative error
    is no larger than m2's), m2 is where it starts."""
    model = small_tflite(tmp_path / "cnn.tflite")
    fault.update({"m2", "g"})
    assert main(["check", str(model), "--layers"]) == 1
    lines = capsys.readouterr().out.splitlines()
    carried = [line for line in lines if "carry their inputs' difference" in line]
    assert len(carried) == 1 and carried[0].startswith("  1 tensor(s) over their bound carry"), lines
    first = lines.index("  1 tensor(s) over their bound and over 10x their inputs' error; the first in op "
                        "order (where it starts):")
    assert lines[first + 1].startswith("    'm2' written by MUL: "), lines
    assert lines[-1] == "DIFFERS: intermediate tensors beyond the bound"


def qdq_cnn(tmp_path: Path) -> Path:
    """small_cnn quantized by onnxruntime's own quantize_static (QDQ, int8, 8 calibration batches)."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    float_model = onnx.load(small_cnn(tmp_path / "cnn.onnx"))
    float_model.graph.input[0].type.tensor_type.shape.dim[0].dim_value = 1
    onnx.save(float_model, tmp_path / "cnn1.onnx")

    class Batches(CalibrationDataReader):
        def __init__(self) -> None:
            self.seeds = iter(range(8))

        def get_next(self) -> dict[str, np.ndarray] | None:
            seed = next(self.seeds, None)
            rng = np.random.default_rng(seed)
            return None if seed is None else {"x": rng.standard_normal((1, 3, 16, 16)).astype(np.float32)}

    quantize_static(tmp_path / "cnn1.onnx", tmp_path / "qdq.onnx", Batches(),
                    quant_format=QuantFormat.QDQ, activation_type=QuantType.QInt8,
                    weight_type=QuantType.QInt8)
    return tmp_path / "qdq.onnx"


def test_a_qdq_model_is_held_to_quantization_steps(tmp_path: Path, fault: set[str],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """In the int8 .lite a tensor X that a QuantizeLinear -> DequantizeLinear pair reads *is* that pair's
    value (the quantizer's ReLU folded into the range clamps X at 0), so X is compared with it, within
    one quantization step. Before, conv1's output was compared with onnxruntime's unclamped X: 18.8 off."""
    model = qdq_cnn(tmp_path)
    assert main(["check", str(model), "--layers"]) == 0
    out = capsys.readouterr().out
    assert "a quantized (QDQ) model" in out and "every compared tensor is within its bound" in out, out
    fault.add("r1")
    assert main(["check", str(model), "--layers"]) == 1
    lines = capsys.readouterr().out.splitlines()
    expected = "    'r1' written by Conv 'conv1': max |diff| 0.5 > "
    (first,) = [line for line in lines if line.startswith(expected)]
    step = float(first.split("> bound ")[1].split()[0])
    assert 0.01 < step < 0.5, first  # the bound is r1's quantization step, not fp32's 1e-4 * scale


def test_sequence_outputs_are_compared_tensor_by_tensor(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """SplitToSequence's output is a list of tensors on both sides: compared as their concatenation."""
    graph = helper.make_graph(
        [helper.make_node("SplitToSequence", ["x"], ["s"], axis=0), helper.make_node("Relu", ["x"], ["y"])],
        "sequence", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 3])],
        [helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 3])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), tmp_path / "seq.onnx")
    assert main(["check", str(tmp_path / "seq.onnx")]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.startswith("  s ")]
    assert rows and rows[0][1] == "0" and rows[0][-1] == "ok", rows


def test_pinned_inputs_are_fed_to_onnxruntime(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An If on an int64 input (silero-vad's sample-rate switch): --input-value pins it at conversion
    (the If folds to its branch) and onnxruntime gets the same value; the other value takes the other
    branch on both sides."""
    def branch(op: str) -> onnx.GraphProto:
        return helper.make_graph([helper.make_node(op, ["x"], ["b"])], op,
                                 [], [helper.make_tensor_value_info("b", TensorProto.FLOAT, [2, 3])])

    graph = helper.make_graph(
        [helper.make_node("Constant", [], ["rate"], value=numpy_helper.from_array(np.array(16000, np.int64))),
         helper.make_node("Equal", ["sr", "rate"], ["is_16k"]),
         helper.make_node("If", ["is_16k"], ["y"], then_branch=branch("Relu"), else_branch=branch("Neg"))],
        "switch", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
                   helper.make_tensor_value_info("sr", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    path = tmp_path / "switch.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    for rate in ("16000", "8000"):
        assert main(["check", str(path), "--input-value", f"sr={rate}"]) == 0
        out = capsys.readouterr().out
        assert "input sr" not in out and out.splitlines()[-1].startswith("ok:"), out
    assert_user_error(lite("check", str(small_tflite(tmp_path / "cnn.tflite")), "--input-value", "sr=1"),
                      "check", "--input-value pins ONNX inputs")


@pytest.mark.parametrize("fmt", ["legacy", "pir"])
def test_paddle_models_are_checked_against_paddle_inference(fmt: str, fault: set[str],
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """The PP-LCNet-style net of tests/paddle_nets.py as Paddle exported it (ProgramDesc and PIR), on its
    own inputs: Paddle inference runs in a subprocess; our output 0.5 off is a difference."""
    from tests.paddle_fixtures import export_fixtures

    model = export_fixtures() / fmt / "net_pp_lcnet"
    args = ["check", str(model), "--inputs", str(model / "inputs.npz")]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "against Paddle inference (the program as saved)" in out and out.splitlines()[-1].startswith("ok:")
    (row,) = [line.split() for line in out.splitlines() if line.startswith("  ") and line.endswith(" ok")]
    fault.add(row[0])
    assert main(args) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2].startswith("layers: not compared for a Paddle model"), lines
    assert lines[-1] == "DIFFERS: 1 output(s) beyond the bound"


def test_mediapipe_custom_transpose_conv_runs_on_litert_as_its_builtin(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """LiteRT's package lacks MediaPipe's Convolution2DTransposeBias: lite check runs its rewrite into
    the builtin TRANSPOSE_CONV + bias on LiteRT's side (litert_custom_ops.py), while our converter imports
    the custom op itself: two independent readings of MediaPipe's definition, layer by layer."""
    from tests.tflite_builder import TfliteModel

    rng = np.random.default_rng(15)
    model = TfliteModel()
    x = model.tensor("x", [1, 5, 6, 3])
    y, z = model.tensor("y", [1, 10, 12, 4]), model.tensor("z", [1, 10, 12, 4])
    weights = model.constant("w", rng.standard_normal((4, 4, 4, 3)).astype(np.float32))
    bias = model.constant("b", rng.standard_normal(4).astype(np.float32))
    params = np.array([1, 2, 2], "<i4").tobytes()  # TfLiteTransposeConvParams: SAME, stride 2 x 2
    model.op("CUSTOM", [x, weights, bias], [y], custom="Convolution2DTransposeBias", custom_options=params)
    model.op("RELU", [y], [z])
    path = tmp_path / "custom.tflite"
    path.write_bytes(model.finish([x], [z]))
    assert main(["check", str(path), "--layers"]) == 0
    out = capsys.readouterr().out
    assert "Convolution2DTransposeBias runs on LiteRT's side as its builtin TRANSPOSE_CONV" in out
    assert "layers: 2 of the 2 op output tensors compared" in out, out
