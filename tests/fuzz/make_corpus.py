"""Writes the seed corpora of the fuzz targets (generated, never committed): the .lite files of
tests/test_fuzz_models.py's seeds (a conv net, a shape subgraph, one model of many ops with every
option field written, slim's int8 ops, grouped and transposed convolutions, the real PaddleOCR classifier
when the zoo has it) and of a
sample of ONNX's own node test cases for the C API target; their ONNX sources for the ONNX reader;
small .tflite files for the TFLite reader.

    python -m tests.fuzz.make_corpus OUT_DIR    (makes OUT_DIR/{c_api,onnx,tflite,paddle})
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import onnx

NODE_CASES = 120  # ONNX node test cases converted (those the converter supports)
PADDLE_EVERY = 3  # every third exported Paddle op case is a paddle reader seed
# Node cases always seeded: the recurrent ops, the control-flow ops (whose files hold subgraphs) and the
# sequence / optional ops (values of a non-tensor kind, whose buffers the fuzzer's inputs overwrite).
ALWAYS_SEEDED = ("test_lstm", "test_gru", "test_rnn", "test_if", "test_loop", "test_scan9", "test_sequence_",
                 "test_split_to_sequence", "test_optional_")


def _node_case_models() -> list[tuple[str, onnx.ModelProto]]:
    """ONNX's node cases spread evenly over the whole (alphabetical) list, so the seeds reach every op
    family (the first few hundred cases are mostly Attention) and the recurrent ops."""
    from onnx.backend.test.case.node import collect_testcases

    cases = [(case.name, case.model) for case in collect_testcases(None) if case.model is not None]
    step = max(1, len(cases) // (NODE_CASES * 3))
    sampled = cases[::step]
    chosen = {name for name, _ in sampled}
    sampled += [(name, model) for name, model in cases
                if name.startswith(ALWAYS_SEEDED) and name not in chosen]
    return sampled


def _grouped_and_transposed_seeds() -> list[tuple[str, bytes]]:
    """Grouped convolutions (one GEMM per group, fp32 and int8) and int8 transposed convolutions by
    output phase: the fuzzer's mutants then reach their geometry checks and per-group / per-phase state."""
    import numpy as np

    import slim
    from lite_converter.convert import convert_onnx
    from tests.test_cross_arm import grouped_conv_net
    from tests.test_int8_conv_transpose import OVERLAP_INPUT, overlapping_net
    from tests.test_int8_op_families import GROUPED_SHAPES_INPUT, grouped_shapes_net

    rng = np.random.default_rng(9)
    seeds = [("grouped_fp32", convert_onnx(grouped_conv_net()))]
    for name, model, shape in (("grouped_int8", grouped_shapes_net(), GROUPED_SHAPES_INPUT),
                               ("transposed_int8", overlapping_net(), OVERLAP_INPUT)):
        data = [rng.standard_normal(shape).astype(np.float32) for _ in range(2)]
        seeds.append((name, slim.compress(model, None, data, slim.QuantConfig(progress=False)).lite_bytes))
    return seeds


def main(out: Path) -> None:
    from lite_converter.convert import convert_onnx
    from lite_converter.ir import ConversionError
    from tests.conftest import shape_subgraph_net, small_conv_net
    from tests.test_fuzz_models import every_option_field_written, int8_seed, shape_ops_net

    dirs = {name: out / name for name in ("c_api", "onnx", "tflite", "paddle")}
    for d in dirs.values():
        d.mkdir(parents=True, exist_ok=True)
    sources = [("conv", small_conv_net()), ("shape", shape_subgraph_net()), ("ops", shape_ops_net())]
    lite_count = 0
    with every_option_field_written():
        for name, model in sources:
            (dirs["onnx"] / f"{name}.onnx").write_bytes(model.SerializeToString())
            (dirs["c_api"] / f"{name}.lite").write_bytes(convert_onnx(model))
            lite_count += 1
        int8 = int8_seed()
        if int8 is not None:
            (dirs["c_api"] / "int8.lite").write_bytes(int8)
            lite_count += 1
        for name, data in _grouped_and_transposed_seeds():
            (dirs["c_api"] / f"{name}.lite").write_bytes(data)
            lite_count += 1
        converted = 0
        for name, model in _node_case_models():
            if converted >= NODE_CASES and not name.startswith(ALWAYS_SEEDED):
                continue
            try:
                data = convert_onnx(model)
            except (ConversionError, ValueError, KeyError, TypeError, IndexError):
                continue
            (dirs["c_api"] / f"node_{name}.lite").write_bytes(data)
            if converted < 40:
                (dirs["onnx"] / f"node_{name}.onnx").write_bytes(model.SerializeToString())
            converted += 1
    try:
        from lite_converter.app import zoo

        cls = zoo.fetch("cls")
        (dirs["c_api"] / "ppocr_cls.lite").write_bytes(convert_onnx(cls))
        lite_count += 1
    except Exception as error:  # noqa: BLE001 - the zoo is optional here
        warnings.warn(f"corpus without the PaddleOCR classifier: {error}", stacklevel=1)
    from tests.tflite_int8_net import tflite_int8_net

    (dirs["tflite"] / "int8.tflite").write_bytes(tflite_int8_net())
    from tests.test_control_flow import _loop_model, _tflite_while

    with every_option_field_written():  # a LOOP over a body subgraph: the fuzzer mutates its indices
        (dirs["c_api"] / "loop.lite").write_bytes(convert_onnx(_loop_model()))
    (dirs["tflite"] / "while.tflite").write_bytes(_tflite_while())
    (dirs["paddle"] / "empty.pdmodel").write_bytes(b"")
    _paddle_programs(dirs["paddle"])
    print(f"corpus in {out}: {lite_count + converted} .lite, {len(list(dirs['onnx'].iterdir()))} .onnx")


def _paddle_programs(out: Path) -> None:
    """ProgramDesc seeds for the paddle reader: the exported op cases' inference.pdmodel files (the
    test suite exports and caches them anyway). Without them the target never gets past the parser."""
    try:
        from tests.paddle_fixtures import export_fixtures

        programs = sorted((export_fixtures() / "legacy").glob("*/inference.pdmodel"))
    except Exception as error:  # noqa: BLE001 - Paddle is optional here: fuzz with the empty seed
        warnings.warn(f"paddle seeds without exported programs: {error}", stacklevel=1)
        return
    for program in programs[::PADDLE_EVERY]:
        (out / f"{program.parent.name}.pdmodel").write_bytes(program.read_bytes())


if __name__ == "__main__":
    main(Path(sys.argv[1]))
