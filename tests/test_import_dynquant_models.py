"""onnxruntime's ``quantize_dynamic`` applied to real architectures (docs/IMPORT_INT8.md, "Dynamic
quantization"): a BERT-like encoder block and MobileNetV2, written in torch and exported. Oracle: ONNX's
reference implementation of the quantized model (exact integer ops); onnxruntime is compared too, and
held to the same bound where its kernels are exact (uint8 weights). The per-op tests are in
tests/test_import_dynquant.py (kept apart so that they also run under ASan in ``make test``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnxruntime import quantization

from lite_converter.convert import convert_onnx
from tests.test_import_dynquant import SIZE_BOUND, run_lite, run_onnxruntime, run_reference


# -- quantize_dynamic'd models --------------------------------------------------------------------------
def _transformer_block(path: Path) -> Path:
    """A BERT-like encoder block (attention + GELU feed-forward, LayerNorms) in torch, exported."""
    torch = pytest.importorskip("torch")
    nn = torch.nn

    class Block(nn.Module):
        def __init__(self, width: int = 256, heads: int = 4) -> None:
            super().__init__()
            self.heads = heads
            self.qkv, self.out = nn.Linear(width, 3 * width), nn.Linear(width, width)
            self.up, self.down = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)
            self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            b, t, c = x.shape
            q, k, v = self.qkv(x).reshape(b, t, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
            attention = torch.softmax(q @ k.transpose(-1, -2) / (c // self.heads) ** 0.5, dim=-1)
            x = self.norm1(x + self.out((attention @ v).transpose(1, 2).reshape(b, t, c)))
            return self.norm2(x + self.down(nn.functional.gelu(self.up(x))))

    torch.manual_seed(0)
    model = Block().eval()
    with torch.no_grad():
        torch.onnx.export(model, (torch.randn(1, 16, 256),), str(path), input_names=["x"], output_names=["y"],
                          opset_version=17, dynamo=False)
    return path


def _mobilenet_v2(path: Path) -> Path:
    torch = pytest.importorskip("torch")
    from tests.models import ARCHITECTURES, build_seeded

    model = build_seeded(ARCHITECTURES["mobilenet_v2_legacy"])
    with torch.no_grad():
        torch.onnx.export(model, (torch.randn(1, 3, 96, 96),), str(path), input_names=["x"],
                          output_names=["y"], opset_version=13, dynamo=False)
    return path


# Against ONNX's reference implementation of the quantized model: DynamicQuantizeLinear is bit-exact
# and the integer products exact, so only the fp32 ops (Mul by the scales, LayerNorm, Softmax, GELU)
# differ by rounding (measured: 1.3e-7 relative on the transformer, 0 on MobileNetV2) -- unless an
# fp32 rounding moves a value across a rounding boundary of the next DynamicQuantizeLinear, which
# the bound of the real-model tests leaves room for.
DYNAMIC_TOLERANCE = 1e-4


# quantize_dynamic's default QInt8 weights for both; QUInt8 for the MatMul model (its conv path is the same)
@pytest.mark.parametrize(("kind", "weight_type"), [
    ("transformer", "QInt8"), ("transformer", "QUInt8"), ("mobilenet_v2", "QInt8")])
def test_quantize_dynamic_model_matches_reference(tmp_path: Path, kind: str, weight_type: str) -> None:
    source = (_transformer_block if kind == "transformer" else _mobilenet_v2)(tmp_path / f"{kind}.onnx")
    quantized = tmp_path / f"{kind}_dynamic.onnx"
    quantization.quantize_dynamic(source, quantized, weight_type=getattr(quantization.QuantType, weight_type))
    model = onnx.load(quantized)
    ops = {node.op_type for node in model.graph.node}
    assert "DynamicQuantizeLinear" in ops and ({"MatMulInteger", "ConvInteger"} & ops), ops
    lite = convert_onnx(quantized)
    print(f"{kind} {weight_type}: .onnx {quantized.stat().st_size} bytes, .lite {len(lite)}")
    assert len(lite) <= SIZE_BOUND * quantized.stat().st_size
    shape = (1, 16, 256) if kind == "transformer" else (1, 3, 96, 96)
    feeds = {"x": np.random.default_rng(3).standard_normal(shape).astype(np.float32)}
    expected = run_reference(model, feeds)["y"]
    ours = run_lite(lite, feeds)["y"]
    scale = max(1.0, float(np.abs(expected).max()))
    error = float(np.abs(ours - expected).max()) / scale
    onnxruntime_error = float(np.abs(run_onnxruntime(quantized, feeds)["y"] - expected).max()) / scale
    print(f"  max|diff| / max(1, max|ref|) from ONNX's reference: ours {error:.2e}, "
          f"onnxruntime {onnxruntime_error:.2e}")
    assert error <= DYNAMIC_TOLERANCE
    if weight_type == "QUInt8":  # u8 x u8: onnxruntime's kernels are exact on every CPU
        assert onnxruntime_error <= DYNAMIC_TOLERANCE
