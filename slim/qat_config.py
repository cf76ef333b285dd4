"""``slim.QatConfig``: quantization-aware training (slim/qat.py), the ``int8_qat`` preset.

Kept free of torch (like slim/finetune_config.py) so that the preset resolves and the CLI parses
without the ``torch`` extra; training needs it.
"""

from __future__ import annotations

import dataclasses

from slim.config import QuantConfig, resolve_config
from slim.finetune_config import FinetuneConfig

QAT_PRESET = "int8_qat"


def _default_quant() -> QuantConfig:
    return resolve_config("int8")


def _default_finetune() -> FinetuneConfig:
    return FinetuneConfig(epochs=2.0, time_budget_s=900.0, learning_rate=1e-3, batch_size=32)


@dataclasses.dataclass
class QatConfig:
    """How quantization-aware training runs.

    quant: the PTQ settings of the starting point (calibration algorithm, skipped nodes; the
      ``int8`` preset's by default): QAT starts from that model and trains it.
    finetune: the distillation run (slim.FinetuneConfig: steps / epochs / time budget, learning
      rate of the weights, batch size, loss, labels and task loss, checkpoints, progress bar).
      Default: 2 epochs of the data, at most 15 minutes, learning rate 1e-3 (what the Fashion-MNIST
      benchmark measured; not tuned on larger models).
    calibration_batches: the PTQ starting point calibrates on the first this many batches of the data
      (unless ``quant.max_batches`` says otherwise): QAT's data is training data, often thousands
      of samples, and the ranges are trained afterwards anyway.
    learn_ranges: train each int8 tensor's range (LSQ / PACT-like); False keeps the PTQ ranges.
    range_learning_rate: the ranges' AdamW learning rate, in units of each range's initial span
      (1e-2: a range moves by at most ~1% of its width per step; on the Fashion-MNIST benchmark 1e-3
      left the PTQ ranges nearly where they were, -1.6 points after 30-100 steps, 1e-2 recovered to
      -0.02 in 60 steps, 3e-2 overshot to -0.8).
    equalize: start from a cross-layer-equalized model (slim/equalize.py; ``quant.equalize`` for PTQ):
      QAT's small steps cannot move channel scales that BatchNorm folding spread over decades, while
      equalization removes the spread exactly. Fashion-MNIST depthwise nets with per-tensor weights
      (benchmarks/qat_fashion_mnist.py): without it QAT ended -0.4 to -2.1 points from fp32 over seeds;
      from the equalized start -0.12 to +0.29.
    distill_logits: an output computed by a softmax is distilled on the softmax's input (the
      logits; slim.qat.LogitsView) with ``finetune.loss`` (``auto``: the scale-free l2 there),
      rather than on the probabilities.
    layerwise: layer-wise reconstruction (slim/qat_layerwise.py): every int8 tensor distilled towards
      the fp32 one of its name (at ``finetune.feature_weight``, 1.0 when left at 0), each conv / fully
      connected layer from its quantized input without gradient.
    validation_batches: the last this many batches of the data are held out of training and score
      the student label-free (slim/qat_validation.py: its int8 decisions against fp32's) every
      ``finetune.validate_every`` steps; the best-scoring state is exported (0: none, the last state).
    """

    quant: QuantConfig = dataclasses.field(default_factory=_default_quant)
    finetune: FinetuneConfig = dataclasses.field(default_factory=_default_finetune)
    calibration_batches: int = 8
    learn_ranges: bool = True
    range_learning_rate: float = 1e-2
    equalize: bool = True
    distill_logits: bool = True
    validation_batches: int = 0
    layerwise: bool = False

    def __post_init__(self) -> None:
        if self.validation_batches < 0:
            raise ValueError(f"validation_batches must be >= 0, got {self.validation_batches}")
        if self.range_learning_rate <= 0:
            raise ValueError(f"range_learning_rate must be > 0, got {self.range_learning_rate}")
        if self.quant.mixed_precision:
            raise ValueError(
                "QAT starts from an all-int8 model: give skip_nodes instead of a mixed-precision "
                "target in QatConfig.quant"
            )
