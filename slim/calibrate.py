"""Calibration: run the fp32 model on the calibration batches and observe every activation tensor.

The model that runs is the lowered, channels-last graph itself (serialized with every tensor to
observe added as a graph output) on our runtime, not onnxruntime on the source ONNX: the tensors
observed are then exactly the tensors the int8 pass quantizes (after activation fusion, Conv+BN
folding and the NHWC layout change, which rename and remove tensors of the source graph), with no
name mapping to get wrong. The fp32 runtime matches onnxruntime (tests/test_real_models.py).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable

import numpy as np

from lite_converter.ir import Graph
from lite_converter.passes.memory_plan import plan_memory
from lite_converter.passes.quantize_int8 import POOL_OPS, WEIGHTED_OPS
from lite_converter.writer import serialize
from runtime_arm import Interpreter
from slim.config import QuantConfig
from slim.observers import Observer, PercentileObserver, make_observer
from slim.progress import ProgressBar

OBSERVED_OPS = (*WEIGHTED_OPS, "CONV_TRANSPOSE_2D", *POOL_OPS, "ADD", "CONCAT", "SPLIT", "RESIZE")


@dataclasses.dataclass
class CalibrationResult:
    """Real range and shapes seen per tensor name of the lowered graph.

    ``candidates``: other range rules' ranges from the same run (rule name -> tensor -> range), for the
    tensors a ``hist`` observer calibrated (the others keep theirs): ``abs_max`` (the values' min /
    max), ``hist <p>`` (mean of per-batch quantiles) and, when the config reads them
    (observers.keeps_pooled_tails), ``pooled <p>`` (quantile of all values together) per
    observers.SEARCH_PERCENTILES (slim/range_search.py weighs them)."""

    ranges: dict[str, tuple[float, float]]
    shapes: dict[str, set[tuple[int, ...]]]
    candidates: dict[str, dict[str, tuple[float, float]]] = dataclasses.field(default_factory=dict)


def tensors_to_observe(graph: Graph) -> list[str]:
    """fp32 activation inputs and outputs of the ops that may become int8."""
    names: dict[str, None] = {}
    for node in graph.nodes:
        if node.op_type not in OBSERVED_OPS:
            continue
        for name in (*node.inputs, *(node.outputs if node.op_type == "SPLIT" else node.outputs[:1])):
            tensor = graph.tensors.get(name) if name else None
            if tensor is not None and not tensor.is_constant and tensor.dtype == np.float32:
                names[name] = None
    return list(names)


def with_outputs(graph: Graph, names: list[str]) -> bytes:
    """The .lite bytes of ``graph`` with ``names`` added as graph outputs (physical layout)."""
    probe = copy.deepcopy(graph)
    for name in names:
        if name not in probe.outputs and name not in probe.inputs:
            probe.outputs.append(name)
            probe.output_layouts[name] = ""
    return serialize(probe, plan_memory(probe))


Tap = tuple[str, Callable[[np.ndarray], None]]


def calibrate(graph: Graph, batches: list[dict[str, np.ndarray]], config: QuantConfig,
              algorithm_of: dict[str, str], taps: list[Tap] | None = None) -> CalibrationResult:
    """Observes every tensor of tensors_to_observe(graph) over ``batches``.

    ``algorithm_of`` maps a tensor name to the algorithm of its producer's override (default:
    config.algorithm). ``taps`` (tensor name, callback) get each batch's value of their tensor too,
    from the same runs (bias correction collects its input statistics this way).
    """
    taps = taps or []
    names = tensors_to_observe(graph)
    observers: dict[str, Observer] = {
        name: make_observer(algorithm_of.get(name, config.algorithm), config) for name in names}
    shapes: dict[str, set[tuple[int, ...]]] = {name: set() for name in names}
    exposed = list(dict.fromkeys([*names, *(name for name, _ in taps)]))
    interpreter = Interpreter(model_content=with_outputs(graph, exposed))
    used = batches if config.max_batches is None else batches[: config.max_batches]
    for observer in observers.values():
        if isinstance(observer, PercentileObserver):
            observer.expect(len(used))
    bar = ProgressBar(len(used), "calibrating", enabled=config.progress)
    try:
        for batch in used:
            outputs = interpreter.run(batch)
            samples = batch_samples(graph, batch)
            for name in names:
                value = outputs[name] if name in outputs else batch[name]
                observer = observers[name]
                if isinstance(observer, PercentileObserver):
                    observer.update(value, samples)
                else:
                    observer.update(value)
                shapes[name].add(tuple(value.shape))
            for name, callback in taps:
                callback(outputs[name] if name in outputs else batch[name])
            bar.step()
    finally:
        bar.close()
        interpreter.close()
    return CalibrationResult({name: obs.range() for name, obs in observers.items()}, shapes,
                             candidate_ranges(observers))


def batch_samples(graph: Graph, batch: dict[str, np.ndarray]) -> int:
    """How many inputs a calibration batch holds: the leading dimension of the first graph input
    (1 for a scalar or an input the batch lacks)."""
    value = batch.get(graph.inputs[0]) if graph.inputs else None
    return int(value.shape[0]) if value is not None and np.ndim(value) > 0 else 1


def candidate_ranges(observers: dict[str, Observer]) -> dict[str, dict[str, tuple[float, float]]]:
    """CalibrationResult.candidates: each rule's ranges, from observers that saw every value."""
    percentile = [obs for obs in observers.values() if isinstance(obs, PercentileObserver)]
    if not percentile:
        return {}
    rules: dict[str, dict[str, tuple[float, float]]] = {
        "abs_max": {name: Observer.range(obs) for name, obs in observers.items()}}
    for p in percentile[0].percentiles:
        rules[f"hist {p}"] = {name: obs.batch_range_at(p) if isinstance(obs, PercentileObserver)
                              else obs.range() for name, obs in observers.items()}
        if not percentile[0].keep_pooled:  # pooled tails only kept when the config reads them
            continue
        rules[f"pooled {p}"] = {name: obs.pooled_range_at(p) if isinstance(obs, PercentileObserver)
                                else obs.range() for name, obs in observers.items()}
    for name, obs in observers.items():
        if not isinstance(obs, PercentileObserver):
            rules["abs_max"][name] = obs.range()
    return rules
