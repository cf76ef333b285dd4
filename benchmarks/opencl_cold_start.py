"""Cold against warm start of the OpenCL backend: the program binary cache (docs/OPENCL.md).

Each start is a fresh process (nothing cached in memory) that creates an interpreter with
``backend="opencl"`` and a cache directory, allocates (the program is built or loaded there) and
runs once (drivers finish compiling at the first enqueue). Cold: an empty cache directory; warm: the
directory the cold start filled. PoCL's own kernel cache is off (``POCL_KERNEL_CACHE=0``) so that
only ours is measured. Prints a table of medians over ``--repeats`` starts each, interleaved.

    .venv/bin/python benchmarks/opencl_cold_start.py [--model cls] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import onnx

from lite_converter.app import zoo
from lite_converter.convert import convert_onnx

CHILD = r"""
import json, sys, time
import numpy as np
from runtime_arm import Interpreter
start = time.perf_counter()
it = Interpreter(sys.argv[1], backend="opencl", cache_dir=sys.argv[2])
name = it.get_input_details()[0]["name"]
it.resize_input(name, json.loads(sys.argv[3]))
it.allocate_tensors()
allocated = time.perf_counter()
it.run({name: np.random.default_rng(0).random(json.loads(sys.argv[3]), dtype=np.float32)})
done = time.perf_counter()
print(json.dumps({"init": allocated - start, "first_run": done - allocated, "info": it.backend_info}))
"""


SHAPES = {"cls": [1, 3, 48, 192], "rec": [1, 3, 48, 320], "det": [1, 3, 320, 320]}


def start_once(model: Path, cache: Path, shape: list[int]) -> dict:
    env = {**os.environ, "POCL_KERNEL_CACHE": "0"}
    out = subprocess.run([sys.executable, "-c", CHILD, str(model), str(cache), json.dumps(shape)],
                         capture_output=True, text=True, env=env, check=False)
    if out.returncode != 0:
        raise SystemExit(f"a start failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="cls", choices=sorted(SHAPES), help="a PaddleOCR zoo model")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lite-opencl-cold-") as scratch:
        model = Path(scratch) / f"{args.model}.lite"
        model.write_bytes(convert_onnx(onnx.load(str(zoo.fetch(args.model)))))
        cold, warm = [], []
        for i in range(args.repeats):
            cache = Path(scratch) / f"cache{i}"
            cache.mkdir()
            cold.append(start_once(model, cache, SHAPES[args.model]))
            warm.append(start_once(model, cache, SHAPES[args.model]))
        print(f"OpenCL start of {args.model}: {warm[-1]['info']}")
        print(f"{'':10} {'init (ms)':>10} {'first run (ms)':>15} {'total (ms)':>11}")
        for name, runs in (("cold", cold), ("warm", warm)):
            init = statistics.median(r["init"] for r in runs) * 1e3
            first = statistics.median(r["first_run"] for r in runs) * 1e3
            total = statistics.median(r["init"] + r["first_run"] for r in runs) * 1e3
            print(f"{name:10} {init:10.1f} {first:15.1f} {total:11.1f}")
        cold_init = statistics.median(r["init"] for r in cold)
        warm_init = statistics.median(r["init"] for r in warm)
        print(f"init cold/warm: {cold_init / warm_init:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
