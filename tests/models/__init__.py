"""Real CNN architectures written in torch, exported to ONNX, for end-to-end conversion tests.

Each architecture lives in its own module and only builds an ``nn.Module``; this package adds what
every test needs around it: deterministic weights, BatchNorm layers with non-trivial running
statistics (an identity BatchNorm would let a broken Conv+BN folding pass go unnoticed), and the
ONNX export through both torch exporters:

* the dynamo exporter writes external ``.onnx.data`` files, which the frontend must load; its
  optimizer already folds BatchNorm into the convolutions;
* the legacy TorchScript exporter writes one self-contained file; run without constant folding it
  keeps the BatchNormalization nodes (so the converter's own folding is tested) and computes shapes
  with Shape/Gather/Slice subgraphs the way older exported models do.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import torch
from torch import nn

from tests.models.efficientnet_b0 import efficientnet_b0
from tests.models.mobilenet_v2 import mobilenet_v2
from tests.models.mobilenet_v3_small import mobilenet_v3_small
from tests.models.resnet18 import resnet18
from tests.models.shufflenet_v2 import shufflenet_v2

SEED = 20240601


@dataclasses.dataclass(frozen=True)
class Architecture:
    """One model to test: how to build it, what it is fed, and which torch exporter writes it."""

    name: str
    build: Callable[[], nn.Module]
    input_shape: tuple[int, ...]
    dynamo: bool
    opset: int


ARCHITECTURES: dict[str, Architecture] = {
    arch.name: arch
    for arch in [
        Architecture("mobilenet_v2", mobilenet_v2, (1, 3, 224, 224), dynamo=True, opset=18),
        Architecture("mobilenet_v2_legacy", mobilenet_v2, (1, 3, 224, 224), dynamo=False, opset=13),
        Architecture("resnet18", resnet18, (1, 3, 224, 224), dynamo=False, opset=13),
        Architecture("shufflenet_v2", shufflenet_v2, (1, 3, 224, 224), dynamo=True, opset=18),
        Architecture("efficientnet_b0", efficientnet_b0, (1, 3, 224, 224), dynamo=True, opset=18),
        Architecture("mobilenet_v3_small", mobilenet_v3_small, (1, 3, 224, 224), dynamo=False, opset=17),
    ]
}


def randomize_batchnorm(model: nn.Module, generator: torch.Generator) -> None:
    """Gives every BatchNorm random running statistics and affine parameters.

    Freshly constructed BatchNorm layers are the identity in eval mode (mean 0, var 1, weight 1,
    bias 0), so folding them into the preceding convolution could be wrong without any test failing.
    """
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            channels = module.num_features
            with torch.no_grad():
                module.running_mean.copy_(torch.randn(channels, generator=generator) * 0.2)
                module.running_var.copy_(torch.rand(channels, generator=generator) * 1.5 + 0.5)
                module.weight.copy_(torch.rand(channels, generator=generator) + 0.5)
                module.bias.copy_(torch.randn(channels, generator=generator) * 0.2)


def build_seeded(arch: Architecture, seed: int = SEED) -> nn.Module:
    """The architecture with reproducible random weights, in eval mode (BatchNorm uses running stats)."""
    torch.manual_seed(seed)
    model = arch.build()
    randomize_batchnorm(model, torch.Generator().manual_seed(seed + 1))
    return model.eval()


def export_onnx(arch: Architecture, directory: Path, seed: int = SEED) -> Path:
    """Exports the seeded architecture to ``directory/<name>.onnx`` (plus external data if dynamo)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{arch.name}.onnx"
    model = build_seeded(arch, seed)
    example = torch.randn(*arch.input_shape, generator=torch.Generator().manual_seed(seed))
    with torch.no_grad():
        torch.onnx.export(
            model,
            (example,),
            str(path),
            input_names=["input"],
            output_names=["logits"],
            opset_version=arch.opset,
            dynamo=arch.dynamo,
            # legacy exporter only (the dynamo exporter ignores it): keep BatchNormalization nodes
            do_constant_folding=False,
        )
    return path
