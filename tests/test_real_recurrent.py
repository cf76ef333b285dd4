"""Stacked bidirectional LSTM / GRU models exported from torch, against onnxruntime.

The models carry what exported recurrent models carry and one-node tests do not: initial states
built from the input's shape (Shape, Gather, ConstantOfShape), per-layer Transpose/Reshape between
the stacked layers, and a dynamic time axis, fed here at several lengths through one interpreter
(each new length resizes the input and re-plans). Tolerance as in test_ops_recurrent.py:
1e-5 * max(1, max|expected|).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")  # the training extra (installed by `make test`)

from lite_converter.convert import convert_onnx  # noqa: E402
from runtime_arm import Interpreter  # noqa: E402
from tests.models.recurrent_nets import NETS, export_recurrent  # noqa: E402
from tests.test_ops_recurrent import assert_close, run_onnxruntime  # noqa: E402


@pytest.mark.parametrize("name", sorted(NETS))
def test_exported_model_matches_onnxruntime_at_every_length(name, tmp_path):
    import onnx

    net = NETS[name]
    model = onnx.load(export_recurrent(net, tmp_path))
    ops = {node.op_type for node in model.graph.node}
    assert ops & {"LSTM", "GRU"}, ops
    interpreter = Interpreter(model_content=convert_onnx(model), threads=2)
    rng = np.random.default_rng(1)
    for time_steps in (50, 7, 120, 1):
        x = rng.standard_normal((time_steps, net.batch, net.features)).astype(np.float32)
        assert_close(interpreter.run({"x": x}), run_onnxruntime(model, {"x": x}))
