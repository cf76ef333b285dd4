"""onnxruntime on the source ONNX model (all graph optimizations, CPU provider)."""

from __future__ import annotations

import os

import numpy as np

from lite_converter.app.peers.base import PeerRequest, PeerUnavailable, source_onnx


class OnnxRuntimeSession:
    def __init__(self, request: PeerRequest) -> None:
        try:
            import onnxruntime
        except ImportError:
            raise PeerUnavailable("not installed (pip install onnxruntime)") from None
        path = source_onnx(request)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = request.threads
        options.inter_op_num_threads = 1
        # Its workers spin while a run is under way (its default) but stop when the run returns: by
        # default they keep spinning for hundreds of ms afterwards, which on a 2-core host slows
        # whichever runtime is interleaved next (measured in benchmarks/RESULTS.md's method note).
        options.add_session_config_entry("session.force_spinning_stop", "1")
        try:
            self._session = onnxruntime.InferenceSession(
                os.fspath(path), options, providers=["CPUExecutionProvider"])
        except Exception as error:  # noqa: BLE001 - onnxruntime raises its own exception types
            raise PeerUnavailable(f"cannot load the model: {error}") from None
        self._feeds = request.feeds
        self._names = [output.name for output in self._session.get_outputs()]
        self.version = onnxruntime.__version__

    def run(self) -> dict[str, np.ndarray]:
        return dict(zip(self._names, self._session.run(self._names, self._feeds), strict=True))
