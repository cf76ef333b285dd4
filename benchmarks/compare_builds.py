"""Two builds of the runtime library timed against each other in one process: is a change slower?

Both liblite_runtime.so files are loaded side by side (ctypes, each with its own symbols) and each
model gets an interpreter from each. Every iteration times one invoke of each, in a new random
order, so the load drifts of a shared machine and whatever one run leaves behind (caches, spinning
workers) fall on both alike. The table gives each build's median, and the median and interquartile
range of the per-iteration ratios new/base (< 1: the new build is faster).

    git archive issue11-start | tar -x -C /tmp/base
    cmake -S /tmp/base -B /tmp/base/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DLITE_BUILD_TOOLS=OFF
    cmake --build /tmp/base/build --target lite_runtime
    .venv/bin/python benchmarks/compare_builds.py --base /tmp/base/build/runtime_arm/liblite_runtime.so \\
        --new build/rt/runtime_arm/liblite_runtime.so --threads 1 2 \\
        --model mobilenet_v2=mnv2.lite --model rec=rec.lite@1x3x48x320
"""

from __future__ import annotations

import argparse
import ctypes
import random
import statistics
import time
from ctypes import POINTER, Structure, byref, c_char, c_char_p, c_int, c_int64, c_size_t, c_void_p
from pathlib import Path


class _Error(Structure):
    _fields_ = [("code", c_int), ("message", c_char * 512)]


class _Options(Structure):
    _fields_ = [("struct_size", c_size_t), ("num_threads", c_int), ("reserved", c_int),
                ("cpu_affinity", c_int)]


class Runtime:
    """The few C API calls a timing loop needs, from one library file."""

    def __init__(self, path: Path):
        # RTLD_LOCAL (ctypes' default): the two builds' symbols do not mix.
        self.lib = ctypes.CDLL(str(path.resolve()))
        self.lib.lite_model_load_file.argtypes = [c_char_p, POINTER(c_void_p), POINTER(_Error)]
        self.lib.lite_interpreter_create.argtypes = [c_void_p, POINTER(_Options), POINTER(c_void_p),
                                                     POINTER(_Error)]
        self.lib.lite_interpreter_resize_input.argtypes = [c_void_p, c_int, POINTER(c_int64), c_int]
        self.lib.lite_interpreter_allocate.argtypes = [c_void_p]
        self.lib.lite_interpreter_input_data.argtypes = [c_void_p, c_int]
        self.lib.lite_interpreter_input_data.restype = c_void_p
        self.lib.lite_interpreter_input_bytes.argtypes = [c_void_p, c_int]
        self.lib.lite_interpreter_input_bytes.restype = c_size_t
        self.lib.lite_interpreter_invoke.argtypes = [c_void_p]
        self.lib.lite_interpreter_error_message.argtypes = [c_void_p]
        self.lib.lite_interpreter_error_message.restype = c_char_p

    def interpreter(self, model: Path, threads: int, shape: list[int] | None) -> c_void_p:
        error = _Error()
        handle, it = c_void_p(), c_void_p()
        if self.lib.lite_model_load_file(str(model).encode(), byref(handle), byref(error)) != 0:
            raise RuntimeError(error.message.decode())
        options = _Options(ctypes.sizeof(_Options), threads, 0, 0)
        if self.lib.lite_interpreter_create(handle, byref(options), byref(it), byref(error)) != 0:
            raise RuntimeError(error.message.decode())
        self._keep = getattr(self, "_keep", []) + [handle]  # models outlive their interpreters
        if shape:
            dims = (c_int64 * len(shape))(*shape)
            self.lib.lite_interpreter_resize_input(it, 0, dims, len(shape))
        if self.lib.lite_interpreter_allocate(it) != 0:
            raise RuntimeError(self.lib.lite_interpreter_error_message(it).decode())
        size = self.lib.lite_interpreter_input_bytes(it, 0)
        data = (ctypes.c_float * (size // 4)).from_address(self.lib.lite_interpreter_input_data(it, 0))
        values = random.Random(0)
        for i in range(size // 4):
            data[i] = values.uniform(-2.0, 2.0)
        return it

    def timed_invoke(self, it: c_void_p) -> float:
        start = time.perf_counter()
        status = self.lib.lite_interpreter_invoke(it)
        elapsed = (time.perf_counter() - start) * 1e3
        if status != 0:
            raise RuntimeError(self.lib.lite_interpreter_error_message(it).decode())
        return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="liblite_runtime.so of the base build")
    parser.add_argument("--new", type=Path, required=True, help="liblite_runtime.so of the build under test")
    parser.add_argument("--model", action="append", required=True,
                        help="NAME=PATH.lite[@D0xD1x... for input 0]")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    runtimes = {"base": Runtime(args.base), "new": Runtime(args.new)}
    order = random.Random(args.seed)
    print(f"{'model':<14} {'threads':>7} {'base ms':>9} {'new ms':>9} {'new/base':>9} {'ratio IQR':>13}")
    for spec in args.model:
        name, rest = spec.split("=", 1)
        path, _, shape_text = rest.partition("@")
        shape = [int(d) for d in shape_text.split("x")] if shape_text else None
        for threads in args.threads:
            its = {k: rt.interpreter(Path(path), threads, shape) for k, rt in runtimes.items()}
            for _ in range(args.warmup):
                for k, rt in runtimes.items():
                    rt.timed_invoke(its[k])
            times: dict[str, list[float]] = {"base": [], "new": []}
            for _ in range(args.iterations):
                keys = ["base", "new"]
                order.shuffle(keys)
                for k in keys:
                    times[k].append(runtimes[k].timed_invoke(its[k]))
            ratios = sorted(n / b for n, b in zip(times["new"], times["base"], strict=True))
            quartiles = statistics.quantiles(ratios, n=4)
            print(f"{name:<14} {threads:>7} {statistics.median(times['base']):>9.3f} "
                  f"{statistics.median(times['new']):>9.3f} {statistics.median(ratios):>9.3f} "
                  f"{quartiles[0]:>6.3f}-{quartiles[2]:.3f}", flush=True)


if __name__ == "__main__":
    main()
