"""Torch nets of tests/models as ONNX (the legacy exporter: BatchNormalization kept, opset 17), and
BatchNorm statistics drawn at random so an untrained net has the spread of activations a trained
one has (unit-variance inputs to each SiLU would leave its table's negative half unused)."""

from __future__ import annotations

import io

import onnx
import torch
from torch import nn


def randomize_batch_norm(model: nn.Module, seed: int) -> nn.Module:
    """Draws each BatchNorm's running mean / variance and affine parameters (eval mode afterwards)."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.BatchNorm2d):
                n = module.num_features
                module.running_mean.copy_(torch.randn(n, generator=generator) * 0.2)
                module.running_var.copy_(torch.rand(n, generator=generator) * 1.5 + 0.5)
                module.weight.copy_(torch.rand(n, generator=generator) * 1.5 + 0.5)
                module.bias.copy_(torch.randn(n, generator=generator) * 0.5)
    return model.eval()


def to_onnx(model: nn.Module, input_shape: tuple[int, ...]) -> onnx.ModelProto:
    """``model`` (in eval mode) exported with input "x" and output "y"."""
    buffer = io.BytesIO()
    with torch.no_grad():
        torch.onnx.export(model.eval(), (torch.zeros(input_shape),), buffer, input_names=["x"],
                          output_names=["y"], opset_version=17, dynamo=False)
    return onnx.load_from_string(buffer.getvalue())
