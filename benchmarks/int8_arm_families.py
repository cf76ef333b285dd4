"""int8 against fp32 on ARM, per layer family: does int8 pay on every kind of net, not only the ones we tune?

Each net is built in torch with random weights (BatchNorm statistics drawn at random: instruction counts do
not depend on training), exported to ONNX, converted to our fp32 .lite and compressed by slim's default int8
config (4 random calibration batches). Both are counted under qemu-user (instructions per inference, 1 thread,
`lite_converter.qemu_count`, the cross builds of `make cross`) on a Raspberry Pi 4's core (cortex-a72, no
dotprod), a Pi 5's (cortex-a76, dotprod) and 32-bit Pi OS (armv7 cortex-a7). The ratio int8 / fp32 below 1
means int8 pays.

    nice -n 5 .venv/bin/python -m benchmarks.int8_arm_families --workdir /tmp/int8_families
    nice -n 5 .venv/bin/python -m benchmarks.int8_arm_families --nets resnext unet --cpus cortex-a72

The families: ResNeXt-style grouped 3x3 convs (32 groups of 4 and 8 channels), a DeepLab-style dilated
stack, a U-Net-style decoder (transposed convs 2x2/2 and 4x4/2 pad 1, skip concats), a keyword-spotting 1-D
conv net, dense 5x5 convs, a VGG-style 3x3 stack, an MLP and a 2-layer transformer encoder.
"""
from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
from torch import nn

CPUS = {"cortex-a72": "aarch64", "cortex-a76": "aarch64", "cortex-a7": "armv7"}


def _cbr(ci: int, co: int, k: int = 3, s: int = 1, g: int = 1, d: int = 1) -> nn.Module:
    return nn.Sequential(nn.Conv2d(ci, co, k, s, padding=d * (k // 2), groups=g, dilation=d, bias=False),
                         nn.BatchNorm2d(co), nn.ReLU())


class _ResNeXtBlock(nn.Module):
    def __init__(self, c: int, mid: int, groups: int) -> None:
        super().__init__()
        self.body = nn.Sequential(_cbr(c, mid, 1), _cbr(mid, mid, 3, g=groups), nn.Conv2d(mid, c, 1),
                                  nn.BatchNorm2d(c))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.body(x))


def _resnext() -> nn.Module:
    return nn.Sequential(_cbr(3, 64, 3, 2), _cbr(64, 256, 3, 2), _ResNeXtBlock(256, 128, 32),
                         _ResNeXtBlock(256, 128, 32), _cbr(256, 512, 3, 2), _ResNeXtBlock(512, 256, 32),
                         _ResNeXtBlock(512, 256, 32))


def _dilated() -> nn.Module:
    return nn.Sequential(_cbr(3, 32, 3, 2), _cbr(32, 64, 3, 2), _cbr(64, 128, 3, 2), _cbr(128, 128, 3, d=2),
                         _cbr(128, 128, 3, d=4), _cbr(128, 128, 3, d=8), nn.Conv2d(128, 21, 1))


class _UNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.e1, self.e2, self.e3 = _cbr(3, 32, 3, 2), _cbr(32, 64, 3, 2), _cbr(64, 128, 3, 2)
        self.u2, self.u1 = nn.ConvTranspose2d(128, 64, 2, 2), nn.ConvTranspose2d(128, 64, 4, 2, 1)
        self.d2, self.d1, self.out = _cbr(64, 64), _cbr(64, 32), nn.ConvTranspose2d(64, 8, 2, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = self.e1(x)
        b = self.e2(a)
        y = self.d2(torch.relu(self.u2(self.e3(b))))
        y = self.d1(torch.relu(self.u1(torch.cat([y, b], 1))))
        return self.out(torch.cat([y, a], 1))


class _Conv1d(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Conv1d(40, 128, 5, padding=2), nn.ReLU(),
                                 nn.Conv1d(128, 128, 3, padding=1), nn.ReLU(),
                                 nn.Conv1d(128, 128, 3, padding=2, dilation=2), nn.ReLU(),
                                 nn.Conv1d(128, 256, 3, stride=2, padding=1), nn.ReLU())
        self.fc = nn.Linear(256, 12)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.net(x).mean(-1))


def _dense5x5() -> nn.Module:
    return nn.Sequential(_cbr(3, 32, 5, 2), _cbr(32, 64, 5), _cbr(64, 64, 5), nn.MaxPool2d(2),
                         _cbr(64, 128, 5), _cbr(128, 128, 5))


def _vgg() -> nn.Module:
    return nn.Sequential(_cbr(3, 32), _cbr(32, 32), nn.MaxPool2d(2), _cbr(32, 64), _cbr(64, 64),
                         nn.MaxPool2d(2), _cbr(64, 128), _cbr(128, 128), nn.MaxPool2d(2), _cbr(128, 256),
                         _cbr(256, 256))


def _mlp() -> nn.Module:
    return nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, 1024), nn.ReLU(), nn.Linear(1024, 1024),
                         nn.ReLU(), nn.Linear(1024, 10))


def _encoder() -> nn.Module:
    layer = nn.TransformerEncoderLayer(192, 3, 768, batch_first=True, dropout=0.0)
    return nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)


NETS: dict[str, tuple[Callable[[], nn.Module], tuple[int, ...]]] = {
    "resnext": (_resnext, (1, 3, 160, 160)), "dilated": (_dilated, (1, 3, 256, 256)),
    "unet": (_UNet, (1, 3, 192, 192)), "conv1d": (_Conv1d, (1, 40, 200)),
    "dense5x5": (_dense5x5, (1, 3, 128, 128)),
    "vgg": (_vgg, (1, 3, 128, 128)), "mlp": (_mlp, (1, 3, 32, 32)), "encoder": (_encoder, (1, 64, 192)),
}


def build(name: str, workdir: Path) -> tuple[Path, Path]:
    """The net's fp32 .lite and slim int8 .lite (made once per workdir)."""
    import slim
    from lite_converter.convert import convert

    fp32, int8 = workdir / f"{name}_fp32.lite", workdir / f"{name}_int8.lite"
    if fp32.exists() and int8.exists():
        return fp32, int8
    make, shape = NETS[name]
    torch.manual_seed(0)
    model = make().eval()
    generator = torch.Generator().manual_seed(1)
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            with torch.no_grad():
                module.running_mean.uniform_(-0.2, 0.2, generator=generator)
                module.running_var.uniform_(0.5, 2.0, generator=generator)
    onnx_path = workdir / f"{name}.onnx"
    torch.onnx.export(model, (torch.randn(*shape),), str(onnx_path), input_names=["x"], opset_version=17,
                      dynamo=False)
    convert(str(onnx_path), fp32)
    rng = np.random.default_rng(0)
    data = [{"x": rng.standard_normal(shape).astype(np.float32)} for _ in range(4)]
    slim.compress(onnx_path, int8, data=data, config=slim.QuantConfig(progress=False))
    return fp32, int8


def main() -> None:
    from lite_converter.qemu_count import count_instructions

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/int8_families"))
    parser.add_argument("--nets", nargs="+", choices=list(NETS), default=list(NETS))
    parser.add_argument("--cpus", nargs="+", choices=list(CPUS), default=list(CPUS))
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    print("| net | qemu -cpu | fp32 | int8 | int8 / fp32 |")
    print("| --- | --- | --- | --- | --- |")
    for name in args.nets:
        fp32, int8 = build(name, args.workdir)
        for cpu in args.cpus:
            counts = [count_instructions(path, CPUS[cpu], 1, cpu, {}, 1)["instructions_per_inference"]
                      for path in (fp32, int8)]
            print(f"| {name} | {cpu} | {counts[0] / 1e6:.1f} M | {counts[1] / 1e6:.1f} M | "
                  f"{counts[1] / counts[0]:.2f} |", flush=True)


if __name__ == "__main__":
    main()
