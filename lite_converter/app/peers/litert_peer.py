"""LiteRT (pip ``ai-edge-litert``, the successor of tflite-runtime) on a .tflite of the same model.

The .tflite is the benched model itself when it is one, ``MODEL.tflite`` beside ``MODEL.onnx`` (or beside
``MODEL.lite``) when the user has one; otherwise it is written
from our converted .lite graph by :mod:`lite_converter.app.peers.tflite_export` (no ONNX -> TFLite
converter installs here: onnx2tf and ai-edge-torch need TensorFlow). Models with ops the exporter does
not cover are reported as not run, with the ops named.
"""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

import numpy as np

from lite_converter.app.peers.base import PeerRequest, PeerUnavailable
from lite_converter.app.peers.tflite_export import ExportUnsupported, export_tflite
from lite_converter.reader import read_model


def tflite_for(request: PeerRequest) -> Path:
    if request.tflite_path is not None:
        return request.tflite_path
    if request.onnx_path is not None and request.onnx_path.with_suffix(".tflite").is_file():
        return request.onnx_path.with_suffix(".tflite")
    if request.lite_path is None:
        raise PeerUnavailable("no .tflite: put MODEL.tflite next to MODEL.onnx")
    try:
        data = export_tflite(read_model(request.lite_path))
    except ExportUnsupported as error:
        raise PeerUnavailable(f"no .tflite: our .lite -> .tflite exporter does not cover {error} "
                              "(and onnx2tf / ai-edge-torch need TensorFlow, not installable here)") from None
    target = request.workdir / f"{request.lite_path.stem}.tflite"
    target.write_bytes(data)
    return target


class LiteRtSession:
    def __init__(self, request: PeerRequest) -> None:
        try:
            from ai_edge_litert.interpreter import Interpreter
        except ImportError:
            raise PeerUnavailable("not installed (make bench-deps)") from None
        path = tflite_for(request)
        try:
            self._interpreter = Interpreter(model_path=str(path), num_threads=request.threads)
            details = self._interpreter.get_input_details()
            self._inputs = []
            for detail, array in zip(details, request.feeds.values(), strict=True):
                if tuple(detail["shape"]) != array.shape:
                    self._interpreter.resize_tensor_input(detail["index"], array.shape)
                self._inputs.append((detail["index"], np.ascontiguousarray(array, dtype=detail["dtype"])))
            self._interpreter.allocate_tensors()
        except (ValueError, RuntimeError) as error:
            raise PeerUnavailable(f"LiteRT cannot load {path.name}: {error}") from None
        self._outputs = self._interpreter.get_output_details()
        self.version = version("ai-edge-litert")

    def run(self) -> dict[str, np.ndarray]:
        for index, value in self._inputs:
            self._interpreter.set_tensor(index, value)
        self._interpreter.invoke()
        return {d["name"]: self._interpreter.get_tensor(d["index"]) for d in self._outputs}
