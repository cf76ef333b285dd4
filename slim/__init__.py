"""Model compression on the converter IR (issue 4). Post-training int8 quantization in two lines::

    import slim
    slim.compress("model.onnx", "model.lite", data=calibration_data, config="int8")

The scheme and its exact arithmetic: docs/QUANTIZATION.md.
"""

from slim.calibration_data import CalibrationDataError
from slim.compress import CompressResult, compress
from slim.config import QuantConfig

__all__ = ["CalibrationDataError", "CompressResult", "QuantConfig", "compress"]
