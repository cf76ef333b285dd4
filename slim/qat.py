"""Quantization-aware training (``config="int8_qat"``): PTQ ranges, then label-free distillation of the
int8 model (slim/qat_module.py) against the fp32 original, then the converter's int8 pass with the
learned weights and ranges.

1. ``slim.pipeline.prepare`` (load, lower: BatchNorm folded, activations fused, channels-last;
   calibrate with the preset's PTQ algorithm): the initial ranges;
2. ``QatModule`` over the lowered graph: the int8 graph the pass makes, trainable; the teacher is
   the same lowered fp32 graph in torch (``Fp32Module``), so no labels are needed (labels and a
   ``task_loss`` in FinetuneConfig are used when given);
3. slim.distill's loop (AdamW, cosine decay, progress bar, step / epoch / time budget, checkpoints);
   the ranges learn at ``QatConfig.range_learning_rate`` (in units of each range's initial span);
4. export: the trained weights written back into a copy of the lowered graph and the int8 pass run
   with the learned ranges, which gives the graph the module simulated (tests compare every int8
   tensor of the runtime with the module's, slim/qat_module.py).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable, Mapping

import numpy as np
import torch
from torch import nn

from lite_converter.convert import ModelSource
from lite_converter.ir import Graph
from lite_converter.passes.quantize_int8 import QuantizeInputs, quantize_int8
from slim.calibration_data import CalibrationInput, InputSpec
from slim.distill import FinetuneReport, distill_modules
from slim.fp32_weights import restore_fp32_weights
from slim.pipeline import Prepared, Quantized, prepare
from slim.qat_config import QatConfig
from slim.qat_fp32_ops import FP32_OPS
from slim.qat_layerwise import LayerwiseView
from slim.qat_module import QatError, QatModule
from slim.qat_validation import DecisionAgreement
from slim.training_data import TrainingData


class Fp32Module(nn.Module):
    """The lowered fp32 graph in torch (frozen): the teacher of label-free QAT."""

    def __init__(self, graph: Graph) -> None:
        super().__init__()
        missing = sorted({node.op_type for node in graph.nodes if node.op_type not in FP32_OPS})
        if missing:
            raise QatError(f"the fp32 teacher cannot run these ops in torch: {missing}")
        self.graph = graph
        self.input_names, self.output_names = list(graph.inputs), list(graph.outputs)
        self._constants = {
            name: torch.from_numpy(np.array(t.data, copy=True))
            for name, t in graph.tensors.items()
            if t.data is not None
        }

    def run(
        self, feeds: Mapping[str, np.ndarray | torch.Tensor], keep: Iterable[str] = ()
    ) -> dict[str, torch.Tensor]:
        env = dict(self._constants)
        for name in self.input_names:
            value = feeds[name]
            env[name] = (
                value if isinstance(value, torch.Tensor) else torch.from_numpy(np.ascontiguousarray(value))
            )
        for node in self.graph.nodes:
            env[node.outputs[0]] = FP32_OPS[node.op_type](node, [env[n] if n else None for n in node.inputs])
        return {name: env[name] for name in [*self.output_names, *keep]}


@dataclasses.dataclass
class QatResult:
    """The exported int8 graph, the prepared fp32 graph it came from, and what training did."""

    prepared: Prepared
    quantized: Quantized
    module: QatModule
    report: FinetuneReport | None


def qat_module(prepared: Prepared) -> QatModule:
    """The trainable int8 model of a prepared (lowered, calibrated) graph, at its PTQ ranges."""
    calibration = prepared.calibration
    settings = prepared.settings
    return QatModule(
        prepared.graph,
        calibration.ranges,
        calibration.shapes,
        prepared.fp32_nodes(),
        settings.per_tensor_weights,
        fp32_weights=prepared.input_weighted,
    )


def export(module: QatModule, prepared: Prepared) -> Quantized:
    """The int8 graph of the trained ``module``: its weights in a copy of the lowered fp32 graph, the
    converter's int8 pass run with its ranges (the same nodes in int8 as the module simulates)."""
    graph = module.write_back(copy.deepcopy(prepared.graph))
    trained = copy.deepcopy(graph) if prepared.input_weighted else None  # their fp32 weights, as trained
    ranges = dict(prepared.calibration.ranges)
    ranges.update(module.export_ranges())
    skip = prepared.fp32_nodes()
    inputs = QuantizeInputs(
        ranges, prepared.calibration.shapes, skip, per_tensor_weights=prepared.settings.per_tensor_weights
    )
    int8_nodes = quantize_int8(graph, inputs)
    if trained is not None:
        restore_fp32_weights(graph, trained, set(prepared.input_weighted))
    return Quantized(graph, int8_nodes, skip, {})


class LogitsView(nn.Module):
    """A student or teacher whose outputs computed by a SOFTMAX are replaced by the softmax's input
    (the logits): what QAT distills when ``QatConfig.distill_logits``. On PP-OCRv4 rec's 6,625-way
    peaked probabilities the KL of the outputs gives the non-argmax classes almost no gradient,
    and the int8 logits are where the quantization noise is (10.8 dB SQNR against fp32 at the PTQ
    start, 4 lines)."""

    def __init__(self, inner: QatModule | Fp32Module, graph: Graph) -> None:
        super().__init__()
        self.inner = inner
        producers = {node.outputs[0]: node for node in graph.nodes if node.outputs}
        self.output_names = [
            producers[name].inputs[0] if name in producers and producers[name].op_type == "SOFTMAX" else name
            for name in inner.output_names
        ]

    def run(
        self, feeds: Mapping[str, np.ndarray | torch.Tensor], keep: Iterable[str] = ()
    ) -> dict[str, torch.Tensor]:
        return self.inner.run(feeds, keep=[*self.output_names, *keep])


def train(
    module: QatModule,
    teacher: Fp32Module,
    data: TrainingData,
    config: QatConfig,
    held_out: list[dict[str, np.ndarray]] | None = None,
) -> FinetuneReport:
    """Distills ``module`` towards ``teacher`` (slim.distill's loop) with the ranges in their own group
    (on the logits before a final softmax with ``config.distill_logits``); with ``held_out`` batches,
    keeps the state whose int8 decisions agree best with fp32's there (slim/qat_validation.py)."""
    groups = [
        {"params": module.weight_parameters(), "base_lr": config.finetune.learning_rate},
        {"params": [module.range_offsets], "base_lr": config.range_learning_rate, "weight_decay": 0.0},
    ]
    if not config.learn_ranges:
        module.range_offsets.requires_grad_(False)
        groups = groups[:1]
    student: nn.Module = module.train()
    reference: Fp32Module | LogitsView = teacher.eval()
    if config.distill_logits:
        student, reference = LogitsView(module, module.graph), LogitsView(teacher, teacher.graph)
    finetune, features = config.finetune, None
    if config.layerwise:
        produced = {name for node in teacher.graph.nodes for name in node.outputs}
        student = LayerwiseView(student, module, produced)
        features = {name: {} for name in student.pairs}
        finetune = dataclasses.replace(finetune, feature_weight=finetune.feature_weight or 1.0)
    validate = DecisionAgreement(student, reference, held_out) if held_out else None
    return distill_modules(
        student, reference, data, finetune, features, param_groups=groups, validate=validate
    )


def split_held_out(data: TrainingData, count: int) -> tuple[TrainingData, list[dict[str, np.ndarray]]]:
    """The data without its last ``count`` batches, and those batches' inputs (for validation)."""
    if count == 0:
        return data, []
    batches = list(data.epoch(shuffle=False))
    if len(batches) <= count:
        raise ValueError(f"validation_batches={count} leaves no training data ({len(batches)} batches)")
    kept = [feeds if labels is None else (feeds, labels) for feeds, labels in batches[:-count]]
    return TrainingData(kept, data.specs, data.batch_size), [feeds for feeds, _ in batches[-count:]]


def quantization_aware_training(
    model: ModelSource,
    data: CalibrationInput,
    config: QatConfig,
    input_shapes: dict[str, list[int]] | None = None,
) -> QatResult:
    """PTQ ranges, then QAT by distillation, then export (the module docstring's steps)."""
    torch.manual_seed(config.finetune.seed)
    quant = dataclasses.replace(config.quant, equalize=config.quant.equalize or config.equalize)
    if quant.max_batches is None:
        quant = dataclasses.replace(quant, max_batches=config.calibration_batches)
    prepared = prepare(model, data, quant, input_shapes)
    module = qat_module(prepared)
    report = None
    if config.finetune.enabled:
        teacher = Fp32Module(prepared.graph)
        specs = [
            InputSpec(name, prepared.graph.tensors[name].dtype, prepared.graph.tensors[name].shape)
            for name in prepared.graph.inputs
        ]
        training = TrainingData(data, specs, config.finetune.batch_size, config.finetune.seed)
        training, held_out = split_held_out(training, config.validation_batches)
        report = train(module, teacher, training, config, held_out)
    module.eval()
    return QatResult(prepared, export(module, prepared), module, report)


__all__ = [
    "Fp32Module",
    "LogitsView",
    "QatError",
    "QatModule",
    "QatResult",
    "export",
    "qat_module",
    "quantization_aware_training",
    "split_held_out",
    "train",
]
