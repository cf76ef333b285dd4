"""MNN (pip ``MNN``): the ONNX model converted by MNN's compiled converter module, run with a session.

The converter is called as ``_tools.mnnconvert(argv)`` in a child process, never through the
``mnnconvert`` console wrapper (it pip-installs packages and sends usage data). The input is copied
into MNN's input tensor before every run: MNN returns garbage when an input is reused without it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from lite_converter.app.peers.base import PeerRequest, PeerUnavailable, set_openmp_spin, source_onnx

_CONVERT = "import sys, _tools; sys.exit(0 if _tools.mnnconvert(sys.argv[1:]) else 1)"


def convert_to_mnn(onnx_path: Path, workdir: Path) -> Path:
    """``workdir/<stem>.mnn`` from the ONNX file (reused when already converted)."""
    target = workdir / f"{onnx_path.stem}.mnn"
    if target.is_file():
        return target
    argv = ["mnnconvert", "-f", "ONNX", "--modelFile", str(onnx_path), "--MNNModel", str(target),
            "--bizCode", "lite-bench"]
    done = subprocess.run([sys.executable, "-c", _CONVERT, *argv], capture_output=True, text=True,
                          timeout=900, check=False)
    if done.returncode != 0 or not target.is_file():
        tail = (done.stdout + done.stderr).strip().splitlines()[-3:]
        raise PeerUnavailable(f"MNN's converter failed: {' / '.join(tail)}")
    return target


class MnnSession:
    def __init__(self, request: PeerRequest) -> None:
        set_openmp_spin()
        try:
            import MNN
        except ImportError:
            raise PeerUnavailable("not installed (make bench-deps)") from None
        self._mnn = MNN
        path = convert_to_mnn(source_onnx(request), request.workdir)
        self._interpreter = MNN.Interpreter(str(path))
        self._session = self._interpreter.createSession(
            {"backend": "CPU", "numThread": request.threads, "precision": "high"})
        self._inputs = {}
        for name, array in request.feeds.items():
            tensor = self._interpreter.getSessionInput(self._session, name)
            if tensor is None:
                raise PeerUnavailable(f"the converted model has no input {name!r}")
            self._interpreter.resizeTensor(tensor, tuple(array.shape))
            self._inputs[name] = (tensor, np.ascontiguousarray(array, dtype=np.float32))
        self._interpreter.resizeSession(self._session)
        self.version = MNN.version()

    def run(self) -> dict[str, np.ndarray]:
        mnn = self._mnn
        for tensor, array in self._inputs.values():
            host = mnn.Tensor(array.shape, mnn.Halide_Type_Float, array, mnn.Tensor_DimensionType_Caffe)
            tensor.copyFrom(host)
        self._interpreter.runSession(self._session)
        outputs = {}
        for name, tensor in self._interpreter.getSessionOutputAll(self._session).items():
            shape = tuple(tensor.getShape())
            host = mnn.Tensor(shape, mnn.Halide_Type_Float, np.zeros(shape, np.float32),
                              mnn.Tensor_DimensionType_Caffe)
            tensor.copyToHostTensor(host)
            outputs[name] = np.array(host.getNumpyData(), copy=True).reshape(shape)
        return outputs
