"""`lite bench`: latency, memory and achieved GFLOP/s of a model on our runtime, optionally per op and
side by side with peer runtimes on the same model and inputs.

Peers run in this process, interleaved with ours (every timed iteration runs each runner once,
starting with a different one each time), so that the machine's load drifts hit all runners alike:
on a shared machine only figures from one interleaved run are comparable.
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from lite_converter.app.bench_stats import LatencyStats, peak_rss_bytes, summarize
from lite_converter.app.cli_common import random_input
from lite_converter.app.peers import PeerRequest, PeerUnavailable, open_peer
from lite_converter.convert import convert_onnx, convert_paddle, convert_tflite
from lite_converter.flops import FlopsReport, model_flops
from lite_converter.frontends.paddle import find_model_files, is_paddle_model
from lite_converter.reader import LiteModel, read_model
from runtime_arm import Interpreter, LiteError, runtime_version

OURS = "lite"
BASELINE = "lite baseline"


class BenchError(Exception):
    """A problem with the benchmark's inputs the user can fix (bad shape, missing file)."""


@dataclasses.dataclass(frozen=True)
class BenchConfig:
    model: Path  # .lite or .onnx
    input_shapes: dict[str, list[int]] = dataclasses.field(default_factory=dict)
    threads: int = 1
    warmup: int = 3
    runs: int = 20
    profile: bool = False
    compare: Sequence[str] = ()
    workdir: Path | None = None  # converted models (ours and the peers'); a temporary one by default
    seed: int = 0
    # Another model on our runtime, timed interleaved with the main one (e.g. the fp32 model beside its
    # int8 version): a ratio that is only honest when both ran in the same loop.
    baseline: Path | None = None
    # Our runtime's threads ("fast": on the fastest CPUs, runtime_arm.Interpreter); peers keep theirs.
    cpu_affinity: str = "none"
    # Where our runtime runs ops ("cpu", "opencl", "auto") and the GPU's storage precision.
    backend: str = "cpu"
    precision: str = "fp32"
    tune: str = "none"  # the OpenCL backend's local-work-size tuning level


@dataclasses.dataclass(frozen=True)
class OpTime:
    """One op of the per-op profile: seconds per call, averaged over the profiled runs."""

    index: int
    op: str
    node: str
    seconds: float
    flops: int  # its own and those of the ops it computes (``includes``)
    includes: tuple[str, ...] = ()  # nodes whose outputs this op's eval computes too (fused pairs)


@dataclasses.dataclass(frozen=True)
class RunnerResult:
    """One runtime's figures; ``unavailable`` holds the reason when it could not run."""

    name: str
    version: str = ""
    first_run: float | None = None
    stats: LatencyStats | None = None
    max_abs_diff: float | None = None  # largest difference of its outputs from ours (first run)
    unavailable: str | None = None


@dataclasses.dataclass(frozen=True)
class BenchResult:
    model: Path
    lite_path: Path
    onnx_path: Path | None
    threads: int
    input_shapes: dict[str, tuple[int, ...]]
    init_seconds: float  # load (map + verify) and prepare (shapes + memory plan)
    ours: RunnerResult
    arena_bytes: int
    peak_rss_bytes: int  # the Python process, after our first run and before any peer was loaded
    flops: FlopsReport
    profile: list[OpTime] | None
    peers: list[RunnerResult]
    cpu_affinity: str = "none"
    cpus: tuple[int, ...] = ()  # what cpu_affinity chose; empty: not pinned
    backend: str = "cpu"
    backend_info: str = ""  # the GPU backend's device and program build ("" on the CPU)
    on_cpu: tuple[str, ...] = ()  # with a GPU backend: the ops that fell back to the CPU ("OP 'node'")
    # With a GPU backend and --profile: Interpreter.backend_profile() (program build, tuning,
    # per-kernel device times from OpenCL events over the profiled runs).
    backend_profile: dict | None = None

    @property
    def gflops_per_second(self) -> float:
        assert self.ours.stats is not None
        return self.flops.total / self.ours.stats.median / 1e9


# -- models and inputs ----------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class PreparedModels:
    """What one bench runs: our .lite, and the source models the peers start from (an ONNX for most
    peers, a .tflite for LiteRT; either may be missing)."""

    lite_path: Path
    onnx_path: Path | None
    tflite_path: Path | None


def prepare_models(config: BenchConfig, workdir: Path) -> PreparedModels:
    """An .onnx or .tflite is converted (with the given shapes for an ONNX); for a .lite the peers use
    MODEL.onnx / MODEL.tflite beside it when there is one."""
    model = config.model
    if is_paddle_model(model):
        # Peers run the model's ONNX export (paddle2onnx) saved as <program>.onnx beside it, if any.
        program = find_model_files(model).program
        lite_path = workdir / f"{program.stem}.lite"
        convert_paddle(model, output_path=lite_path, input_shapes=config.input_shapes or None)
        onnx_path = program.with_suffix(".onnx")
        return PreparedModels(lite_path, onnx_path if onnx_path.is_file() else None, None)
    if not model.is_file():
        raise BenchError(f"no such file: {model}")
    lite_path = workdir / f"{model.stem}.lite"
    if model.suffix == ".onnx":
        convert_onnx(model, output_path=lite_path, input_shapes=config.input_shapes or None)
        return PreparedModels(lite_path, model, None)
    if model.suffix == ".tflite":
        convert_tflite(model, output_path=lite_path)
        return PreparedModels(lite_path, None, model)

    def beside(suffix: str) -> Path | None:
        path = model.with_suffix(suffix)
        return path if path.is_file() else None

    return PreparedModels(model, beside(".onnx"), beside(".tflite"))


def make_feeds(model: LiteModel, shapes: dict[str, list[int]], seed: int) -> dict[str, np.ndarray]:
    """Random inputs of the model's dtypes, with the given shapes where the model's are dynamic."""
    names = [t.name for t in model.input_tensors]
    unknown = sorted(set(shapes) - set(names))
    if unknown:
        raise BenchError(f"--input-shape names unknown input(s) {unknown}; the model's inputs are {names}")
    rng = np.random.default_rng(seed)
    feeds = {}
    for tensor in model.input_tensors:
        shape = shapes.get(tensor.name, tensor.shape)
        if shape is None or any(d < 0 for d in shape):
            raise BenchError(
                f"input '{tensor.name}' has a dynamic shape: give --input-shape {tensor.name}=D0,D1,...")
        feeds[tensor.name] = random_input(tensor, list(shape), rng)
    return feeds


# -- measurement ----------------------------------------------------------------------------------
def _timed(function: Callable[[], object]) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def _max_abs_diff(ours: dict[str, np.ndarray], theirs: dict[str, np.ndarray]) -> float | None:
    """Compares outputs by name, else by position; None when they cannot be paired (shape mismatch)."""
    pairs = [(ours[n], theirs[n]) for n in ours if n in theirs]
    if len(pairs) != len(ours):
        pairs = list(zip(ours.values(), theirs.values(), strict=False))
    worst = 0.0
    for a, b in pairs:
        b = np.asarray(b)
        if a.size != b.size or a.dtype.kind != "f":
            return None
        if a.shape != b.shape and a.ndim == 4 and b.ndim in (3, 4) and a.size == b.size:
            b = b.reshape(a.shape)
        worst = max(worst, float(np.max(np.abs(a.reshape(-1).astype(np.float64)
                                                - b.reshape(-1).astype(np.float64)), initial=0.0)))
    return worst if pairs else None


def _profile(interpreter: Any, feeds: dict[str, np.ndarray], runs: int, flops: FlopsReport) -> list[OpTime]:
    """Per-op seconds per call over ``runs`` extra invokes, slowest first (after the timed runs, so
    the clock reads around each op do not touch the latency figures)."""
    interpreter.set_profiling(True)
    for _ in range(runs):
        interpreter.run(feeds)
    rows = interpreter.profile()
    interpreter.set_profiling(False)
    per_op = flops.by_index()
    absorbed: dict[int, list[dict]] = {}
    for r in rows:
        if r["calls"] == 0 and r["computed_by"] not in (-1, r["index"]):
            absorbed.setdefault(r["computed_by"], []).append(r)
    times = []
    for r in rows:
        if r["calls"] > 0:
            inside = absorbed.get(r["index"], [])
            flops_total = per_op.get(r["index"], 0) + sum(per_op.get(a["index"], 0) for a in inside)
            times.append(OpTime(r["index"], r["op"], r["node"], r["seconds"] / r["calls"], flops_total,
                                tuple(a["node"] for a in inside)))
    return sorted(times, key=lambda t: t.seconds, reverse=True)


def benchmark(config: BenchConfig) -> BenchResult:
    """Runs the whole benchmark described by ``config``."""
    if config.threads < 1 or config.runs < 1 or config.warmup < 0:
        raise BenchError("--threads and --runs must be >= 1, --warmup >= 0")
    with tempfile.TemporaryDirectory(prefix="lite-bench-") as temporary:
        workdir = config.workdir or Path(temporary)
        workdir.mkdir(parents=True, exist_ok=True)
        return _benchmark(config, workdir)


def _benchmark(config: BenchConfig, workdir: Path) -> BenchResult:
    prepared = prepare_models(config, workdir)
    lite_path, onnx_path = prepared.lite_path, prepared.onnx_path
    model = read_model(lite_path)
    feeds = make_feeds(model, config.input_shapes, config.seed)

    start = time.perf_counter()
    try:
        interpreter = Interpreter(lite_path, threads=config.threads, cpu_affinity=config.cpu_affinity,
                                  backend=config.backend, precision=config.precision, tune=config.tune)
    except LiteError as error:  # e.g. --backend opencl where no OpenCL device is usable
        raise BenchError(str(error)) from None
    declared = {d["name"]: tuple(int(x) for x in d["shape"]) for d in interpreter.get_input_details()}
    for name, array in feeds.items():
        if declared[name] != array.shape:
            interpreter.resize_input(name, array.shape)
    interpreter.allocate_tensors()
    init_seconds = time.perf_counter() - start

    outputs: dict[str, np.ndarray] = {}

    def run_ours() -> None:
        outputs.update(interpreter.run(feeds))

    first_run = _timed(run_ours)
    reference = dict(outputs)
    rss = peak_rss_bytes()
    shapes = {d["index"]: d["shape"] for d in interpreter.tensor_details()}
    flops = model_flops(model, shapes)

    runners: list[tuple[str, Callable[[], object]]] = [(OURS, run_ours)]
    peers: dict[str, RunnerResult] = {}
    closers: list[Callable[[], None]] = []
    if config.baseline is not None:
        baseline_runner, baseline_result, close = _open_baseline(config, workdir, feeds, reference)
        peers[BASELINE] = baseline_result
        runners.append((BASELINE, baseline_runner))
        closers.append(close)
    for name in config.compare:
        if onnx_path is None and prepared.tflite_path is None:
            peers[name] = RunnerResult(name, unavailable=(
                f"needs the source ONNX ({config.model.stem}.onnx beside the .lite, inference.onnx "
                "(paddle2onnx) beside a Paddle program, or bench the .onnx)"))
            continue
        try:
            session = open_peer(name, PeerRequest(onnx_path, feeds, config.threads, workdir, lite_path,
                                                  prepared.tflite_path))
            peer_first = time.perf_counter()
            peer_outputs = session.run()
            peer_first = time.perf_counter() - peer_first
        except PeerUnavailable as error:
            peers[name] = RunnerResult(name, unavailable=str(error))
            continue
        except Exception as error:  # noqa: BLE001 - a peer crashing on this model is a result, not our bug
            peers[name] = RunnerResult(name, unavailable=f"failed: {type(error).__name__}: {error}")
            continue
        peers[name] = RunnerResult(name, version=getattr(session, "version", ""), first_run=peer_first,
                                   max_abs_diff=_max_abs_diff(reference, peer_outputs))
        runners.append((name, session.run))

    for _ in range(config.warmup):
        for _, run in runners:
            run()
    samples: dict[str, list[float]] = {name: [] for name, _ in runners}
    order = np.random.default_rng(config.seed)
    for _ in range(config.runs):
        # A new random order every iteration: what a run leaves behind (evicted caches, a peer's
        # workers still spinning) falls on each runtime equally often. Rotating a fixed order made
        # one runtime always follow the same other one (measured: ours after ncnn 13.0 ms, after
        # itself 11.0 ms, ResNet-18 at 2 threads).
        for index in order.permutation(len(runners)):
            name, run = runners[index]
            samples[name].append(_timed(run))

    profile = _profile(interpreter, feeds, config.runs, flops) if config.profile else None
    backend_profile = interpreter.backend_profile() if config.profile and config.backend != "cpu" else None
    ours = RunnerResult(OURS, version=_our_version(), first_run=first_run, stats=summarize(samples[OURS]))
    peer_results = [dataclasses.replace(r, stats=summarize(samples[r.name])) if r.name in samples else r
                    for r in peers.values()]
    result = BenchResult(config.model, lite_path, onnx_path, config.threads,
                         {name: tuple(a.shape) for name, a in feeds.items()}, init_seconds, ours,
                         interpreter.arena_bytes, rss, flops, profile, peer_results, config.cpu_affinity,
                         interpreter.cpu_affinity_cpus, config.backend,
                         interpreter.backend_info or interpreter.backend_note,
                         tuple(f"{row['op']} '{row['node']}'" for row in interpreter.profile()
                               if row["backend"] == "cpu" and row["computed_by"] >= 0)
                         if config.backend != "cpu" else (), backend_profile)
    interpreter.close()
    for close in closers:
        close()
    return result


def _open_baseline(config: BenchConfig, workdir: Path, feeds: dict[str, np.ndarray],
                   reference: dict[str, np.ndarray]) -> tuple[Callable[[], object], RunnerResult,
                                                              Callable[[], None]]:
    """The baseline model on our runtime, loaded with the same inputs and threads."""
    assert config.baseline is not None
    baseline_dir = workdir / "baseline"
    baseline_dir.mkdir(parents=True, exist_ok=True)
    path = prepare_models(dataclasses.replace(config, model=config.baseline), baseline_dir).lite_path
    interpreter = Interpreter(path, threads=config.threads, cpu_affinity=config.cpu_affinity)
    for name, array in feeds.items():
        interpreter.resize_input(name, array.shape)
    interpreter.allocate_tensors()

    def run() -> dict[str, np.ndarray]:
        return dict(interpreter.run(feeds))

    first = time.perf_counter()
    outputs = run()
    first = time.perf_counter() - first
    result = RunnerResult(BASELINE, version=f"{config.baseline.name}", first_run=first,
                          max_abs_diff=_max_abs_diff(reference, outputs))
    return run, result, interpreter.close


def _our_version() -> str:
    return runtime_version()
