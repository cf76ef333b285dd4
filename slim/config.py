"""Typed configuration of post-training quantization, and the named presets (``config="int8"``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

ALGORITHMS = ("abs_max", "avg", "hist", "kl", "mse")


@dataclasses.dataclass
class QuantConfig:
    """How to quantize.

    algorithm: how a calibrated activation range is chosen (slim/observers.py; the ``int8`` preset
      uses ``hist``, a bare QuantConfig() ``abs_max``): ``abs_max``
      (the min and max seen over all batches), ``avg`` (moving average of per-batch min / max),
      ``hist`` (percentile of a histogram), ``kl`` and ``mse`` (histogram, range minimizing KL divergence /
      squared quantization error).
    skip_nodes: node names (as in the source model) kept in fp32.
    overrides: node name -> algorithm for that node's output tensor.
    percentile: for ``hist``, the range is [the (1 - percentile) quantile, the percentile quantile] of
      each batch's values, averaged over the batches (0.9999: each tail loses 0.01%).
    moving_average: for ``avg``, the weight of the past (0.9 = new batches move the range by 10%).
    max_batches: calibrate on at most this many batches (None: all).
    progress: draw a progress bar on stderr.
    bias_correction: add each int8 CONV_2D / FULLY_CONNECTED's expected weight-quantization error
      (measured on the calibration data) to its bias (slim/bias_correction.py). Off by default: with
      per-channel int8 weights the shift it removes is a fraction of an output step (see
      docs/QUANTIZATION.md for the measurements), and it makes the bias depend on the data.
    per_tensor_weights: one weight scale per layer instead of per output channel (for int8 targets
      without per-channel weights; loses accuracy on depthwise layers, which int8_qat recovers).
    equalize: cross-layer equalization before calibration (slim/equalize.py): the channels between two
      convolutions through ReLU / leaky ReLU / PReLU / no activation are rescaled so that neither
      layer keeps a channel with a tiny range. The fp32 function is unchanged. Off by default here
      (an opt-in, as in AIMET); ``int8_qat`` starts from an equalized model.
    sqnr_target: automatic mixed precision: keep the most sensitive layers in fp32, one at a time,
      until every graph output's SQNR (dB, int8 vs fp32 on the calibration data) reaches this.
    accuracy_target, eval_fn: automatic mixed precision on a metric of yours: ``eval_fn(lite_bytes)``
      returns it (higher is better; e.g. accuracy on held-out data); layers are kept in fp32 until it
      reaches ``accuracy_target``.
    max_fp32_layers: at most this many layers kept in fp32 by mixed precision (None: no limit).
    whole_decision_ranges: graph outputs and the logits a SOFTMAX / ARG_MAX / TOP_K reads get their
      whole observed range whatever ``algorithm`` says (slim/decision_tensors.py: their extremes are
      the prediction; a percentile clips the winners into ties). ``overrides`` still win.
    range_search: with ``algorithm="hist"``, choose among the candidate ranges (min / max, 99.9%,
      99.99%, 99.999% quantiles) for the whole model, then per group of tensors, the one whose int8
      model's outputs agree best with fp32 on the first ``search_batches`` calibration batches
      (slim/range_search.py); ``search_groups`` contiguous groups of tensors in graph order.
    pooled_percentile: with ``hist``, each range is the exact quantile of all calibration values
      together instead of the mean of per-batch quantiles (slim/observers.py). Off by default:
      wider where extremes come from few batches, which PP-OCRv4 det and the seg net of
      benchmarks/yolo_int8.py gain from and rec loses ~2 points with (docs/QUANTIZATION.md, "Pooled
      percentiles").
    percentile_samples: with ``hist``, take each quantile over groups of at least this many
      calibration inputs (consecutive batches merged until they hold that many; a batch holding as
      many or more is its own group) instead of over each batch as fed. None: per batch. Why: the
      mean of per-batch quantiles depends on how the caller batched the data: with one image per
      batch an extreme that only some images show is clipped in every batch that lacks it
      (docs/QUANTIZATION.md, "Quantiles over groups of inputs").
    fp32_input_share: keep in fp32 the layers nearest the input, in graph order, as long as their
      multiply-accumulates stay within this share of the model's (slim/input_layers.py; 0: none). Why:
      int8's extra errors on PP-OCRv4 rec sit on low-contrast and light-on-dark inputs, whose signal
      the first layers' per-tensor steps (sized by high-contrast inputs) leave a few levels; keeping
      the stem and first blocks in fp32 removes most of them at a bounded speed cost
      (docs/QUANTIZATION.md, "The input-side layers in fp32").
    search_rules: with ``range_search``, the candidate rules by name (``"abs_max"``, ``"hist 0.9999"``,
      ``"pooled 0.9999"``, ...: CalibrationResult.candidates); None: min / max and the per-batch
      quantiles.
    """

    algorithm: str = "abs_max"
    skip_nodes: list[str] = dataclasses.field(default_factory=list)
    overrides: dict[str, str] = dataclasses.field(default_factory=dict)
    percentile: float = 0.9999
    moving_average: float = 0.9
    max_batches: int | None = None
    progress: bool = True
    bias_correction: bool = False
    per_tensor_weights: bool = False
    equalize: bool = False
    sqnr_target: float | None = None
    accuracy_target: float | None = None
    eval_fn: Callable[[bytes], float] | None = None
    max_fp32_layers: int | None = None
    whole_decision_ranges: bool = True
    range_search: bool = False
    pooled_percentile: bool = False
    search_rules: tuple[str, ...] | None = None
    percentile_samples: int | None = None
    search_batches: int = 2
    search_groups: int = 4
    fp32_input_share: float = 0.0

    @property
    def mixed_precision(self) -> bool:
        """True when a target asks for automatic mixed precision."""
        return self.sqnr_target is not None or self.accuracy_target is not None

    def __post_init__(self) -> None:
        for name, algorithm in [("algorithm", self.algorithm), *self.overrides.items()]:
            if algorithm not in ALGORITHMS:
                raise ValueError(f"unknown calibration algorithm {algorithm!r} for {name}; "
                                 f"use one of {ALGORITHMS}")
        if not 0.0 < self.percentile <= 1.0:
            raise ValueError(f"percentile must be in (0, 1], got {self.percentile}")
        if not 0.0 <= self.moving_average < 1.0:
            raise ValueError(f"moving_average must be in [0, 1), got {self.moving_average}")
        if (self.accuracy_target is None) != (self.eval_fn is None):
            raise ValueError("accuracy_target and eval_fn go together: eval_fn(lite_bytes) measures what "
                             "accuracy_target asks for")
        if self.range_search and self.algorithm != "hist":
            raise ValueError(f"range_search chooses among hist quantiles and min / max: it needs "
                             f"algorithm='hist', got {self.algorithm!r}")
        if self.search_batches < 1 or self.search_groups < 0:
            raise ValueError(f"search_batches must be >= 1 and search_groups >= 0, got "
                             f"{self.search_batches} and {self.search_groups}")
        if self.percentile_samples is not None and self.percentile_samples < 1:
            raise ValueError(f"percentile_samples must be >= 1 or None, got {self.percentile_samples}")
        if not 0.0 <= self.fp32_input_share < 1.0:
            raise ValueError(f"fp32_input_share must be in [0, 1), got {self.fp32_input_share}")
        if self.max_fp32_layers is not None and self.max_fp32_layers < 0:
            raise ValueError(f"max_fp32_layers must be >= 0, got {self.max_fp32_layers}")


PRESETS: dict[str, QuantConfig] = {
    # The default: each activation's range is the mean of its exact 0.01% / 99.99% quantiles over
    # groups of 8 calibration inputs (a batch of 8 or more is its own group; graph outputs and
    # softmax / argmax inputs: min / max). Groups rather than batches as fed (session seg13,
    # docs/QUANTIZATION.md "Quantiles over groups of inputs"): with one image per batch, per-batch
    # quantiles clipped the extremes only some images show. Per batch -> groups of 8, two seeds:
    # YOLOX-style mAP -1.70 / -4.14 -> -0.41 / -0.12; PP-OCRv4 det line recall -1.34 / -1.90 ->
    # +0.57 / -0.19 (a third seed: -0.19 -> -0.58); the seg net's mIoU with fp32 0.928 / 0.920 ->
    # 0.974 / 0.975. rec and cls (calibrated in batches of 8) compress to the same bytes as
    # before: rec -1.29 points on 1,000 hard lines, issue 13's 1.0-point bound not met.
    # Session ptq14: and the layers nearest the input in fp32 up to 2% of the MACs (slim/input_layers.py;
    # on rec the stem and first two blocks, convs 0-4, 1.9%): int8's extra errors on rec sat on
    # low-contrast and light-on-dark lines; on two 600-line slices of the training seed -1.03 / -1.03
    # -> -0.22 / -0.13 points (docs/QUANTIZATION.md "The input-side layers in fp32").
    "int8": QuantConfig(algorithm="hist", percentile=0.9999, percentile_samples=8, fp32_input_share=0.02),
    # Today's behaviour before that choice: the whole range seen (cheapest, no sample kept).
    "int8_fast": QuantConfig(algorithm="abs_max"),
    # The ranges judged on the model's output (slim/range_search.py): on the hard data rec -0.85
    # points (evaluation seed, 1,000 lines; held-out seed -1.20) and det -0.38 (50 pages), but cls
    # 98.80% of fp32 predictions (bound 99%) and rec's compress time ~2.5x the default's; not the
    # default yet (docs/QUANTIZATION.md "Range search").
    # Candidates over groups of 8 inputs like the default (session seg13, 200 scenes / 50 pages):
    # seg net mIoU with fp32 0.928 -> 0.974, YOLOv8 +0.68 -> +0.94 mAP, YOLOX +0.40 -> +0.09, det
    # -0.38 either way; rec and cls (batches of 8) unchanged.
    "int8_search": QuantConfig(algorithm="hist", percentile=0.9999, range_search=True, percentile_samples=8),
}
PRESET_HELP = {
    "int8": "the default: percentile ranges (99.99%, over groups of 8 calibration inputs), int8 weights "
            "per channel, the layers nearest the input in fp32 up to 2% of the MACs",
    "int8_fast": "abs_max ranges: fastest calibration, loses accuracy where rare extremes occur",
    "int8_search": "ranges chosen per model and tensor group (min / max or a 99.9-99.999% quantile) by "
                   "the int8 model's output agreement with fp32 on the calibration data: slower",
    # A slim.QatConfig (slim/qat_config.py), resolved by slim.pruning.config.parse_config.
    "int8_qat": "quantization-aware training (torch): the int8 model's weights and ranges trained by "
                "label-free distillation against the fp32 model on the data (--epochs / --steps / "
                "--time-budget; default 2 epochs, at most 15 min)",
}


def resolve_config(config: str | QuantConfig) -> QuantConfig:
    """A QuantConfig from a preset name or a QuantConfig (returned as is)."""
    if isinstance(config, QuantConfig):
        return config
    if config in PRESETS:
        return dataclasses.replace(PRESETS[config])
    if config in PRESET_HELP:
        raise ValueError(f"{config!r} trains (slim.compress, lite compress); here a post-training preset is "
                         f"needed: {sorted(PRESETS)} (or a slim.QuantConfig)")
    raise ValueError(f"unknown config {config!r}; presets: {sorted(PRESET_HELP)} "
                     "(or pass a slim.QuantConfig)")
