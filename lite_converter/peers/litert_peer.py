"""LiteRT (pip ``ai-edge-litert``, the successor of tflite-runtime) on a .tflite of the same model.

LiteRT needs a .tflite file. The converters that make one from ONNX or torch (onnx2tf, ai-edge-torch /
litert-torch) all require TensorFlow or a torch/TF pairing that cannot be installed next to the pinned
CPU torch here, so a .tflite is used only when one sits next to the ONNX file (``model.tflite`` beside
``model.onnx``); otherwise the peer reports why it was not run.
"""

from __future__ import annotations

import numpy as np

from lite_converter.peers.base import PeerRequest, PeerUnavailable

NO_CONVERTER = ("no .tflite converter available here (onnx2tf and ai-edge-torch need TensorFlow); "
                "put MODEL.tflite next to MODEL.onnx")


class LiteRtSession:
    def __init__(self, request: PeerRequest) -> None:
        try:
            from ai_edge_litert.interpreter import Interpreter
        except ImportError:
            raise PeerUnavailable("not installed (make bench-deps)") from None
        tflite = request.onnx_path.with_suffix(".tflite")
        if not tflite.is_file():
            raise PeerUnavailable(NO_CONVERTER)
        self._interpreter = Interpreter(model_path=str(tflite), num_threads=request.threads)
        details = self._interpreter.get_input_details()
        self._inputs = []
        for detail, array in zip(details, request.feeds.values(), strict=True):
            value = array
            if tuple(detail["shape"]) != array.shape and array.ndim == 4:
                value = np.ascontiguousarray(array.transpose(0, 2, 3, 1))  # NCHW -> NHWC
            self._interpreter.resize_tensor_input(detail["index"], value.shape)
            self._inputs.append((detail["index"], value.astype(detail["dtype"])))
        self._interpreter.allocate_tensors()
        self._outputs = self._interpreter.get_output_details()
        self.version = "ai-edge-litert"

    def run(self) -> dict[str, np.ndarray]:
        for index, value in self._inputs:
            self._interpreter.set_tensor(index, value)
        self._interpreter.invoke()
        return {d["name"]: self._interpreter.get_tensor(d["index"]) for d in self._outputs}
