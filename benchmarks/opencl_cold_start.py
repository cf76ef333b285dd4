"""Cold against warm start of the OpenCL backend: the program binary cache and the tuning cache.

Each start is a fresh process (nothing cached in memory) that creates an interpreter with
``backend="opencl"``, a cache directory and a ``--tune`` level, allocates (the program is built or
loaded there) and runs once (local sizes are tuned at an op's first run; drivers finish compiling at
the first enqueue). Cold: an empty cache directory; warm: the directory the cold start filled, so
both the program binary and the tuning choices come from it (each warm start is checked: program
"loaded", 0 ms of tuning). PoCL's own kernel cache is off (``POCL_KERNEL_CACHE=0``) so that only
ours is measured. Prints a table of medians over ``--repeats`` starts each, interleaved.

    .venv/bin/python benchmarks/opencl_cold_start.py [--model cls] [--tune fast] [--repeats 3]
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
it = Interpreter(sys.argv[1], backend="opencl", cache_dir=sys.argv[2], tune=sys.argv[4])
name = it.get_input_details()[0]["name"]
it.resize_input(name, json.loads(sys.argv[3]))
it.allocate_tensors()
allocated = time.perf_counter()
it.run({name: np.random.default_rng(0).random(json.loads(sys.argv[3]), dtype=np.float32)})
done = time.perf_counter()
profile = it.backend_profile()
print(json.dumps({"init": allocated - start, "first_run": done - allocated, "info": it.backend_info,
                  "program": profile["program"], "tune_ms": profile["tune_ms"]}))
"""


SHAPES = {"cls": [1, 3, 48, 192], "rec": [1, 3, 48, 320], "det": [1, 3, 320, 320]}


def start_once(model: Path, cache: Path, shape: list[int], tune: str) -> dict:
    env = {**os.environ, "POCL_KERNEL_CACHE": "0"}
    out = subprocess.run([sys.executable, "-c", CHILD, str(model), str(cache), json.dumps(shape), tune],
                         capture_output=True, text=True, env=env, check=False)
    if out.returncode != 0:
        raise SystemExit(f"a start failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="cls", choices=sorted(SHAPES), help="a PaddleOCR zoo model")
    parser.add_argument("--tune", default="none", choices=["none", "fast", "normal", "exhaustive"],
                        help="local-size tuning level (its choices are cached too)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lite-opencl-cold-") as scratch:
        model = Path(scratch) / f"{args.model}.lite"
        model.write_bytes(convert_onnx(onnx.load(str(zoo.fetch(args.model)))))
        cold, warm = [], []
        for i in range(args.repeats):
            cache = Path(scratch) / f"cache{i}"
            cache.mkdir()
            cold.append(start_once(model, cache, SHAPES[args.model], args.tune))
            warm.append(start_once(model, cache, SHAPES[args.model], args.tune))
            if warm[-1]["program"] != "loaded" or warm[-1]["tune_ms"] != 0:
                raise SystemExit(f"the warm start compiled or tuned: {warm[-1]}")
        print(f"OpenCL start of {args.model}, tune={args.tune}: {warm[-1]['info']}")
        print(f"cold: program {cold[-1]['program']}, tuning {cold[-1]['tune_ms']:.1f} ms; "
              f"warm: program {warm[-1]['program']}, tuning {warm[-1]['tune_ms']:.1f} ms")
        print(f"{'':10} {'init (ms)':>10} {'first run (ms)':>15} {'total (ms)':>11}")
        for name, runs in (("cold", cold), ("warm", warm)):
            init = statistics.median(r["init"] for r in runs) * 1e3
            first = statistics.median(r["first_run"] for r in runs) * 1e3
            total = statistics.median(r["init"] + r["first_run"] for r in runs) * 1e3
            print(f"{name:10} {init:10.1f} {first:15.1f} {total:11.1f}")
        for part in ("init", "total"):
            def seconds(run: dict, part: str = part) -> float:
                return run["init"] + (run["first_run"] if part == "total" else 0.0)
            ratio = statistics.median(map(seconds, cold)) / statistics.median(map(seconds, warm))
            print(f"{part} cold/warm: {ratio:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
