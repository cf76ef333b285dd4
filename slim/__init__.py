"""Model compression on the converter IR: quantization, structured pruning, distillation::

    import slim
    slim.compress("model.onnx", "model.lite", data=calibration_data, config="int8")
    slim.compress("model.onnx", "model.lite", data=unlabeled_inputs, config="prune_0.5")  # 50% FLOPs
    slim.compress("model.onnx", "model.lite", data=unlabeled_inputs, config="prune_0.5+int8")
    slim.compress("model.onnx", "model.lite", data=unlabeled_inputs, config="int8_qat")  # QAT

``slim.analyze(model, data, config)`` reports each int8 layer's SQNR / cosine against fp32;
``QuantConfig(sqnr_target=...)`` or ``(accuracy_target=..., eval_fn=...)`` keeps the most sensitive
layers in fp32 until the target holds; ``QuantConfig(bias_correction=True)`` corrects int8 biases.
The scheme, its exact arithmetic and the algorithms: docs/QUANTIZATION.md.

``slim.prune(model, data, config)`` prunes by dependency groups and fine-tunes by label-free
distillation against the original; ``slim.sensitivity(model, data)`` sweeps each group's pruning
ratio; ``slim.prune_groups(model, data)`` lists the groups (docs/PRUNING.md). They need the
``torch`` extra, imported only when called (slim/extras.py).
"""

from __future__ import annotations

import os
from typing import Any

from slim.analysis import AnalysisReport, analyze
from slim.auto_compress import AutoConfig
from slim.calibration_data import CalibrationDataError
from slim.compress import CompressResult, compress
from slim.config import QuantConfig
from slim.extras import MissingExtraError, training_half
from slim.finetune_config import FinetuneConfig
from slim.pruning.config import PruneConfig
from slim.qat_config import QatConfig


def prune(model: Any, data: Any, config: str | PruneConfig = "prune_0.5",  # noqa: ANN401
          input_shapes: dict[str, list[int]] | None = None,
          output_path: str | os.PathLike | None = None) -> Any:
    """Structured pruning + distillation fine-tuning (slim/pruning/pruner.py); returns a PruneResult."""
    return training_half("slim.pruning.pruner").prune(model, data, config, input_shapes, output_path)


def sensitivity(model: Any, data: Any = None, **options: Any) -> Any:  # noqa: ANN401
    """Per-group pruning sensitivity sweep (slim/sensitivity_sweep.py); returns a SensitivityReport."""
    return training_half("slim.sensitivity_sweep").sensitivity(model, data, **options)


def prune_groups(model: Any, data: Any, input_shapes: dict[str, list[int]] | None = None) -> Any:  # noqa: ANN401
    """The dependency groups of ``model`` (slim/pruning/groups.py); ``.report()`` lists them."""
    return training_half("slim.pruning.analysis").analyze(model, data, input_shapes).dependencies


__all__ = ["AnalysisReport", "AutoConfig", "CalibrationDataError", "CompressResult", "FinetuneConfig",
           "MissingExtraError", "PruneConfig", "QatConfig",
           "QuantConfig", "analyze", "compress", "prune", "prune_groups", "sensitivity"]
