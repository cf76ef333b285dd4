"""Independent compression jobs (sensitivity points, trials) through one small interface.

``executor.map(function, jobs, shared)`` returns ``[function(shared, job) for job in jobs]`` in
order; ``on_result(index, result)`` is called as each finishes (progress, caching). ``shared`` is
what every job reads (the model, the data, reference outputs): sent to each worker once, not per
job. Three implementations, chosen by ``make_executor``:

* ``InProcessExecutor`` (``"local"``, the default): one after the other, here;
* ``ProcessPoolExecutor`` (``"process"``, ``"process:4"``): a local pool of spawned processes
  (torch and fork do not mix); ``function`` must be importable (a module-level function);
* ``RayExecutor`` (``"ray"``, ``"ray://host:10001"`` or an address for ``ray.init``): tasks on a Ray
  cluster; ``shared`` goes to the object store once. Without an address a local cluster starts.

No scheduling of our own: the pool and Ray decide where jobs run.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
from collections.abc import Callable, Sequence
from typing import Any, Protocol

Job = Any
OnResult = Callable[[int, Any], None]


class Executor(Protocol):
    def map(self, function: Callable[[Any, Job], Any], jobs: Sequence[Job], shared: Any = None,
            on_result: OnResult | None = None) -> list[Any]: ...


class InProcessExecutor:
    """Runs every job here, in order."""

    def map(self, function: Callable[[Any, Job], Any], jobs: Sequence[Job], shared: Any = None,
            on_result: OnResult | None = None) -> list[Any]:
        results = []
        for index, job in enumerate(jobs):
            results.append(function(shared, job))
            if on_result is not None:
                on_result(index, results[-1])
        return results


_WORKER_SHARED: Any = None


def _set_worker_shared(shared: Any) -> None:
    global _WORKER_SHARED
    _WORKER_SHARED = shared


def _call_in_worker(function: Callable[[Any, Job], Any], job: Job) -> Any:
    return function(_WORKER_SHARED, job)


class ProcessPoolExecutor:
    """A local pool of ``workers`` spawned processes (default: the CPU count)."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or os.cpu_count() or 1

    def map(self, function: Callable[[Any, Job], Any], jobs: Sequence[Job], shared: Any = None,
            on_result: OnResult | None = None) -> list[Any]:
        if not jobs:
            return []
        context = multiprocessing.get_context("spawn")
        workers = min(self.workers, len(jobs))
        pool_options = {"mp_context": context, "initializer": _set_worker_shared, "initargs": (shared,)}
        with concurrent.futures.ProcessPoolExecutor(workers, **pool_options) as pool:
            futures = {pool.submit(_call_in_worker, function, job): i for i, job in enumerate(jobs)}
            results: list[Any] = [None] * len(jobs)
            for future in concurrent.futures.as_completed(futures):
                index = futures[future]
                results[index] = future.result()
                if on_result is not None:
                    on_result(index, results[index])
            return results


class RayExecutor:
    """Jobs as Ray tasks. ``address``: a running cluster (``"auto"``, ``"ray://host:10001"``); None
    starts a local one with ``init_options`` (e.g. num_cpus). A cluster this executor started is
    shut down by ``close`` (or at exit of a ``with`` block)."""

    def __init__(self, address: str | None = None, **init_options: Any) -> None:
        self.address = address
        self.init_options = init_options
        self._started = False

    def _ensure_started(self) -> Any:  # noqa: ANN401 - the ray module
        import ray

        if not ray.is_initialized():
            ray.init(address=self.address, **self.init_options)
            self._started = True
        return ray

    def map(self, function: Callable[[Any, Job], Any], jobs: Sequence[Job], shared: Any = None,
            on_result: OnResult | None = None) -> list[Any]:
        if not jobs:
            return []
        ray = self._ensure_started()
        remote = ray.remote(function)
        shared_ref = ray.put(shared)
        futures = {remote.remote(shared_ref, job): i for i, job in enumerate(jobs)}
        results: list[Any] = [None] * len(jobs)
        pending = list(futures)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                index = futures[ref]
                results[index] = ray.get(ref)
                if on_result is not None:
                    on_result(index, results[index])
        return results

    def close(self) -> None:
        if self._started:
            import ray

            ray.shutdown()
            self._started = False

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def make_executor(spec: str | Executor | None) -> Executor:
    """``None`` / ``"local"``: in process; ``"process"`` / ``"process:N"``: a pool of N processes;
    ``"ray"``: a local Ray cluster; ``"ray:ADDRESS"`` (e.g. ``ray:auto``, ``ray:ray://host:10001``):
    an existing one. An object with a ``map`` method is used as it is."""
    if spec is None or spec == "local":
        return InProcessExecutor()
    if not isinstance(spec, str):
        return spec
    if spec == "process" or spec.startswith("process:"):
        count = spec.partition(":")[2]
        return ProcessPoolExecutor(int(count) if count else None)
    if spec == "ray":
        return RayExecutor()
    if spec.startswith("ray:"):
        return RayExecutor(spec[len("ray:"):])
    raise ValueError(f"unknown executor {spec!r}: use local, process[:N], ray or ray:ADDRESS")
