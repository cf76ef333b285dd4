"""torch exports with control flow (torch.cond -> ONNX If, while_loop -> ONNX Loop), converted and run
against onnxruntime on the exported file. Kept apart from test_control_flow.py so that the ASan run
(Makefile ASAN_RUNTIME_TESTS), which covers the same runtime paths there, does not export again.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest

from tests.test_control_flow import _check


def test_torch_cond_export_against_onnxruntime(tmp_path):
    """torch.cond on a value computed from the input exports as an ONNX If (dynamo exporter): converted
    and run for inputs taking each branch, against onnxruntime on the exported file."""
    torch = pytest.importorskip("torch")

    class Gate(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(4, 4)

        def forward(self, x):  # noqa: ANN001, ANN202 - torch's signature
            return torch.cond(x.sum() > 0, lambda v: torch.relu(self.linear(v)), lambda v: v.sin() * 3, (x,))

    torch.manual_seed(0)
    x = torch.randn(3, 4)
    program = torch.onnx.export(Gate().eval(), (x,), dynamo=True)
    path = tmp_path / "gate.onnx"
    program.save(str(path))
    model = onnx.load(str(path))
    assert any(node.op_type == "If" for node in model.graph.node)
    name = model.graph.input[0].name
    _check(model, [{name: np.abs(x.numpy())}, {name: -np.abs(x.numpy())}])


def test_torch_while_loop_export_against_onnxruntime(tmp_path):
    """torch's while_loop (condition on a carried counter) exports as an ONNX Loop."""
    torch = pytest.importorskip("torch")
    from torch._higher_order_ops.while_loop import while_loop

    class Grow(torch.nn.Module):
        def forward(self, i, x):  # noqa: ANN001, ANN202 - torch's signature
            return while_loop(lambda i, x: i < 5, lambda i, x: (i + 1, x * 1.5 + 0.25), (i, x))

    program = torch.onnx.export(Grow(), (torch.tensor(0), torch.randn(3)), dynamo=True)
    path = tmp_path / "grow.onnx"
    program.save(str(path))
    model = onnx.load(str(path))
    assert any(node.op_type == "Loop" for node in model.graph.node)
    names = [v.name for v in model.graph.input]
    x = np.array([1.0, -2.0, 0.5], np.float32)
    _check(model, [{names[0]: np.array(start, np.int64), names[1]: x} for start in (0, 3, 7)])
