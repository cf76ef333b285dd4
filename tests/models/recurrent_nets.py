"""Recurrent models as people build them in torch (speech / sequence tagging shapes), exported with
the TorchScript exporter, which writes ONNX LSTM / GRU nodes (torch's gate order and biases
rearranged by the exporter, initial states computed from the input's shape, a dynamic time axis).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import torch
from torch import nn

SEED = 20261127


class SequenceTagger(nn.Module):
    """A stacked bidirectional LSTM or GRU over [time, batch, features] and a per-step classifier."""

    def __init__(self, cell: str, features: int, hidden: int, layers: int, classes: int) -> None:
        super().__init__()
        rnn = nn.LSTM if cell == "lstm" else nn.GRU
        self.rnn = rnn(features, hidden, num_layers=layers, bidirectional=True)
        self.head = nn.Linear(2 * hidden, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y, _ = self.rnn(x)
        return self.head(y)


@dataclasses.dataclass(frozen=True)
class RecurrentNet:
    """One exported model: cell type, sizes, and the time steps it is fed."""

    name: str
    cell: str
    features: int
    hidden: int
    layers: int
    classes: int = 32
    batch: int = 1


NETS = {net.name: net for net in [
    RecurrentNet("bilstm_2x128", "lstm", features=64, hidden=128, layers=2),
    RecurrentNet("bigru_2x96_batch4", "gru", features=40, hidden=96, layers=2, batch=4),
]}


def export_recurrent(net: RecurrentNet, directory: Path, time_steps: int = 50) -> Path:
    """``directory/<name>.onnx`` with seeded weights; input "x" [time, batch, features], time dynamic."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{net.name}.onnx"
    torch.manual_seed(SEED)
    model = SequenceTagger(net.cell, net.features, net.hidden, net.layers, net.classes).eval()
    example = torch.randn(time_steps, net.batch, net.features)
    with torch.no_grad():
        torch.onnx.export(model, (example,), str(path), input_names=["x"], output_names=["y"],
                          opset_version=17, dynamo=False, dynamic_axes={"x": {0: "time"}, "y": {0: "time"}})
    return path
