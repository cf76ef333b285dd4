"""Model compression on the converter IR (issue 4). Post-training int8 quantization in two lines::

    import slim
    slim.compress("model.onnx", "model.lite", data=calibration_data, config="int8")

``slim.analyze(model, data, config)`` reports each int8 layer's SQNR / cosine against fp32;
``QuantConfig(sqnr_target=...)`` or ``(accuracy_target=..., eval_fn=...)`` keeps the most sensitive
layers in fp32 until the target holds; ``QuantConfig(bias_correction=True)`` corrects int8 biases.
The scheme, its exact arithmetic and the algorithms: docs/QUANTIZATION.md.
"""

from slim.analysis import AnalysisReport, analyze
from slim.calibration_data import CalibrationDataError
from slim.compress import CompressResult, compress
from slim.config import QuantConfig

__all__ = ["AnalysisReport", "CalibrationDataError", "CompressResult", "QuantConfig", "analyze", "compress"]
