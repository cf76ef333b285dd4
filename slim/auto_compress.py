"""``config="auto"``: search compression strategies for the fastest model within an accuracy bound.

In the spirit of PaddleSlim's ACT: candidates are tried in order of cost, each measured for
accuracy and speed, and the fastest one meeting both bounds wins:

1. post-training int8: the ``int8`` preset (percentile ranges), ``int8_search`` (ranges searched per
   tensor group for output agreement, slower to compress) and ``int8_fast`` (abs_max ranges);
2. only when no stage-1 candidate meets both bounds but one is fast enough: the most accurate such
   candidate's ranges with automatic mixed precision (slim/mixed_precision.py) keeping the fewest
   sensitive layers in fp32 until the accuracy drop is within the bound (it cannot be faster than
   plain int8, so it is skipped when int8 alone misses the speed-up);
3. only when a fine-tune budget is given (``AutoConfig.finetune``) and still nothing meets both:
   pruning to each ``prune_flops`` fraction + int8 (slim.pruning; pruning without fine-tuning wrecks
   accuracy, benchmarks/COMPRESSION.md).

Accuracy: the user's ``eval_fn(lite_bytes)`` (higher is better, e.g. accuracy in % on held-apart
data; the drop is fp32's value minus the candidate's), or without one the agreement with fp32 on the
calibration data: % of the argmax over each output's last axis that equal fp32's (classes, CTC time
steps), per sample, so fp32 scores 100. When eval_fn returns one score per sample (a 1-D array whose
mean is the metric) a candidate meets ``max_accuracy_drop`` only when the one-sided upper confidence
bound of its drop, paired against fp32 on the same samples, does (slim/auto_stats.py; ``confidence``,
0.95 by default); mixed precision stops on the same criterion. A scalar eval_fn gives no margin: the
measured drop is compared as it is, and the report says so. Speed: slim/auto_speed.py (host: interleaved wall
time; ``aarch64:CPU``: exact qemu instruction counts).

Each stage's candidates run through slim/executor.py (``executor=None`` in process, ``"process:N"``,
``"ray"``); the report (slim/auto_report.py) is written beside the model.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from lite_converter.convert import ModelSource, load_model, lower, to_lite_bytes
from lite_converter.ir import Graph
from runtime_arm import Interpreter
from slim.auto_report import AutoReport, CandidateResult
from slim.auto_speed import Batch, SpeedTarget, instructions, measure_speed
from slim.auto_stats import DEFAULT_CONFIDENCE, BoundedAccuracy, Measured, measure, paired_drop, z_score
from slim.calibration_data import CalibrationInput, InputSpec, load_batches
from slim.config import QuantConfig, resolve_config
from slim.executor import Executor, make_executor
from slim.extras import training_half
from slim.finetune_config import FinetuneConfig
from slim.mixed_precision import choose_fp32_layers
from slim.pipeline import prepare, quantize
from slim.pruning.config import PruneConfig

EvalFn = Callable[[bytes], Any]  # a float, or a 1-D array of per-sample scores (slim/auto_stats.py)


@dataclasses.dataclass
class AutoConfig:
    """The bounds and the search's knobs (see the module docstring).

    max_accuracy_drop: the most the accuracy may fall below fp32's (the eval_fn's unit; points of
      agreement with fp32 without one); target_speedup: fp32 cost / candidate cost at least this.
    speed_target: "host" or "aarch64:CPU" (slim/auto_speed.py). timing_rounds: host runs per model.
    timing_input: the input speed is measured on (an array for a one-input model, or name -> array;
      default: the first data batch). One sample is the deployment case of most edge models.
    executor: where candidates run (slim/executor.py). prune_flops / finetune: stage 3.
    confidence: one-sided level of the drop's upper bound when eval_fn gives per-sample scores
      (slim/auto_stats.py). 0.95: the usual level, a 5% risk that an accepted model's true drop
      exceeds the bound; 0.9 accepts more (z 1.28 against 1.64 standard errors).
    """

    max_accuracy_drop: float = 1.0
    target_speedup: float = 1.0
    speed_target: str = "host"
    eval_fn: EvalFn | None = None
    executor: str | Executor | None = None
    prune_flops: Sequence[float] = (0.75, 0.5)
    finetune: FinetuneConfig | None = None
    timing_rounds: int = 20
    timing_input: np.ndarray | Batch | None = None
    progress: bool = True
    confidence: float = DEFAULT_CONFIDENCE

    def __post_init__(self) -> None:
        if self.max_accuracy_drop < 0:
            raise ValueError(f"max_accuracy_drop must be >= 0, got {self.max_accuracy_drop}")
        if self.target_speedup <= 0:
            raise ValueError(f"target_speedup must be > 0, got {self.target_speedup}")
        SpeedTarget.parse(self.speed_target)
        z_score(self.confidence)  # validates it


@dataclasses.dataclass(frozen=True)
class Candidate:
    """One strategy: ``kind`` "int8" (a QuantConfig), "mixed" (int8 + mixed precision) or "prune"."""

    name: str
    kind: str
    quant: QuantConfig
    flops_target: float | None = None


class OutputAgreement:
    """Per sample (each batch's first axis), % of argmax positions (each output's last axis) equal
    to fp32's on the given batches: an accuracy without labels, one score per sample so the drop gets
    its confidence bound. A batch whose outputs do not share a first axis counts as one sample. A
    class, not a closure, so a process pool can pickle it."""

    def __init__(self, fp32: bytes, batches: list[Batch]) -> None:
        self.batches = batches
        self.references = [_argmaxes(fp32, batch) for batch in batches]

    def __call__(self, model: bytes) -> np.ndarray:
        scores = []
        for batch, reference in zip(self.batches, self.references, strict=True):
            pairs = list(zip(_argmaxes(model, batch), reference, strict=True))
            rows = {ours.shape[0] if ours.ndim else 1 for ours, _ in pairs}
            count = rows.pop() if len(rows) == 1 else 1
            same = sum(np.count_nonzero((ours == theirs).reshape(count, -1), axis=1)
                       for ours, theirs in pairs)
            total = sum(ours.size // count for ours, _ in pairs)
            scores.append(100.0 * np.asarray(same, dtype=np.float64) / total)
        return np.concatenate([np.atleast_1d(score) for score in scores])


def _argmaxes(model: bytes, batch: Batch) -> list[np.ndarray]:
    with Interpreter(model_content=model) as interpreter:
        outputs = interpreter.run(batch)
    return [np.asarray(value).argmax(axis=-1) for value in outputs.values()]


@dataclasses.dataclass
class _Shared:
    """What every candidate job reads (sent to each worker once)."""

    model: ModelSource
    data: CalibrationInput
    input_shapes: dict[str, list[int]] | None
    fp32: bytes
    timing_batch: Batch
    accuracy: EvalFn
    fp32_accuracy: Measured
    max_accuracy_drop: float
    confidence: float
    speed_target: SpeedTarget
    fp32_instructions: float | None
    timing_rounds: int
    finetune: FinetuneConfig | None


@dataclasses.dataclass
class _Built:
    graph: Graph
    int8_nodes: list[str]
    lite_bytes: bytes
    kept_fp32: list[str]
    accuracy: Measured | None = None  # measured already (mixed precision's last step)


def _build(shared: _Shared, candidate: Candidate) -> _Built:
    quant = dataclasses.replace(candidate.quant, progress=False)
    model, data, input_shapes = shared.model, shared.data, shared.input_shapes
    if candidate.kind == "prune":  # as compress(PruneConfig(..., quantize=quant)) does
        config = PruneConfig(flops_target=candidate.flops_target, finetune=shared.finetune, progress=False)
        pruned = training_half("slim.pruning.pruner").prune(model, data, config, input_shapes)
        model, data, input_shapes = pruned.onnx_model(), pruned.calibration, None
    bounded = BoundedAccuracy(shared.accuracy, shared.fp32_accuracy, shared.confidence)
    if candidate.kind == "mixed":  # the same criterion as the report's: the drop's upper bound
        quant = dataclasses.replace(quant, eval_fn=bounded,
                                    accuracy_target=shared.fp32_accuracy.value - shared.max_accuracy_drop)
    prepared = prepare(model, data, quant, input_shapes)
    if candidate.kind == "mixed":
        mixed = choose_fp32_layers(prepared)  # it evaluated the model it returns: bounded kept the scores
        quantized = mixed.quantized
        lite_bytes = quantized.lite_bytes()
        return _Built(quantized.graph, quantized.int8_nodes, lite_bytes, mixed.fp32_layers,
                      bounded.lookup(lite_bytes))
    quantized = quantize(prepared)
    return _Built(quantized.graph, quantized.int8_nodes, quantized.lite_bytes(), [])


def evaluate_candidate(shared: _Shared, candidate: Candidate) -> CandidateResult:
    """Builds one candidate and measures it (an executor job: module level, picklable)."""
    start = time.perf_counter()
    built = _build(shared, candidate)
    accuracy = built.accuracy if built.accuracy is not None else measure(shared.accuracy, built.lite_bytes)
    drop = paired_drop(shared.fp32_accuracy, accuracy, shared.confidence)
    speed = measure_speed(shared.fp32, built.lite_bytes, shared.timing_batch, shared.speed_target,
                          shared.timing_rounds, shared.fp32_instructions)
    borders = ("QUANTIZE", "DEQUANTIZE")
    fp32_nodes = [n.name for n in built.graph.nodes
                  if n.name not in built.int8_nodes and n.op_type not in borders]
    return CandidateResult(candidate.name, accuracy.value, drop.value, speed.speedup,
                           speed.fp32_cost, speed.candidate_cost, len(built.lite_bytes), built.kept_fp32,
                           len(built.int8_nodes), len(fp32_nodes), time.perf_counter() - start,
                           built.lite_bytes, built.graph, built.int8_nodes, fp32_nodes,
                           drop_upper=drop.upper, drop_standard_error=drop.standard_error,
                           samples=accuracy.samples.size if accuracy.samples is not None else None)


def auto_compress(model: ModelSource, data: CalibrationInput, settings: AutoConfig,
                  input_shapes: dict[str, list[int]] | None = None) -> AutoReport:
    """Runs the search (module docstring); the report names the chosen candidate and any bound missed."""
    start = time.perf_counter()
    target = SpeedTarget.parse(settings.speed_target)
    loaded = load_model(model, input_shapes)
    inputs = [loaded.graph.tensors[name] for name in loaded.graph.inputs]
    batches = load_batches(data, [InputSpec(t.name, t.dtype, t.shape) for t in inputs])
    fp32 = to_lite_bytes(lower(loaded))
    accuracy = settings.eval_fn if settings.eval_fn is not None else OutputAgreement(fp32, batches)
    metric = "eval_fn" if settings.eval_fn is not None else "agreement with fp32 % (argmax, calibration data)"
    fp32_accuracy = measure(accuracy, fp32)
    timing = settings.timing_input if settings.timing_input is not None else batches[0]
    if isinstance(timing, np.ndarray):
        timing = {inputs[0].name: timing}
    fp32_instructions = instructions(fp32, timing, target) if target.kind == "aarch64" else None
    shared = _Shared(model, batches, input_shapes, fp32, timing, accuracy, fp32_accuracy,
                     settings.max_accuracy_drop, settings.confidence, target, fp32_instructions,
                     settings.timing_rounds, settings.finetune)
    per_sample = fp32_accuracy.samples is not None
    report = AutoReport(settings.max_accuracy_drop, settings.target_speedup, str(target), target.unit, metric,
                        fp32_accuracy.value, len(fp32), settings.confidence if per_sample else None)
    if not per_sample:
        report.notes.append("eval_fn returns one value per model: no margin for the sample's noise could be "
                            "computed; each measured drop is compared with the bound as it is (return "
                            "per-sample scores for a confidence bound)")
    executor = make_executor(settings.executor)
    int8 = resolve_config("int8")
    post_training = [Candidate(name, "int8", resolve_config(name))
                     for name in ("int8", "int8_search", "int8_fast")]
    stages: list[tuple[str, list[Candidate]]] = [
        ("post-training int8", post_training),
        ("mixed precision", []),  # from the most accurate fast-enough stage-1 ranges (below)
    ]
    if settings.finetune is not None:
        stages.append(("pruning + int8", [Candidate(f"prune_{r:g}+int8", "prune", int8, r)
                                          for r in settings.prune_flops]))
    for stage, candidates in stages:
        if report.any_met():
            report.notes.append(f"{stage}: not tried (a cheaper candidate meets both bounds)")
            continue
        fast_enough = any(report.speed_met(c) for c in report.candidates)
        if stage == "mixed precision" and not fast_enough:
            report.notes.append(f"{stage}: not tried (keeping layers in fp32 cannot make int8 faster, and "
                                f"no int8 candidate reaches {settings.target_speedup:g}x)")
            continue
        if stage == "mixed precision":
            base = max((c for c in report.candidates if report.speed_met(c)), key=lambda c: c.accuracy)
            config = next(c.quant for c in post_training if c.name == base.name)
            candidates = [Candidate(f"{base.name}+mixed", "mixed", config)]
        _log(settings, f"auto: {stage}: {len(candidates)} candidate(s) on {str(target)}")

        def finished(index: int, result: CandidateResult, candidates: list[Candidate] = candidates) -> None:
            _log(settings, f"auto:   {candidates[index].name}: {report.describe(result)}")

        report.candidates += executor.map(evaluate_candidate, candidates, shared, on_result=finished)
    if settings.finetune is None:
        report.notes.append("pruning + int8: not tried (no fine-tune budget: AutoConfig.finetune)")
    report.choose()
    report.seconds = time.perf_counter() - start
    _log(settings, report.summary())
    return report


def _log(settings: AutoConfig, line: str) -> None:
    if settings.progress:
        print(line, file=sys.stderr, flush=True)


def auto_config(options: dict[str, Any]) -> AutoConfig:
    """An AutoConfig from compress's keyword arguments (None: the field's default)."""
    return AutoConfig(**{key: value for key, value in options.items() if value is not None})
