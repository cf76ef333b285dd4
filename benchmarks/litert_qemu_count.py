"""LiteRT (TFLite + XNNPACK) instructions per inference under qemu-user, counted like our lite_bench.

The peer column of issue 14's tables: the aarch64 LiteRT wheel runs in the aarch64 CPython of the
Debian bookworm rootfs that `make test`'s package tests build (runtime_arm/tools/packaging/rootfs.py),
under ``qemu-aarch64 -cpu CPU`` with the counting plugin (``make qemu-plugin``). The plugin finds its
markers by symbol in the main executable only, and Debian's python3.11 keeps no symbol table, so the
main executable is ``qemu_insn_count/python_marker_main.c``: it defines the lite_bench_marker_*
functions, loads libpython3.11.so.1.0 and runs Py_BytesMain; the inner script calls the markers through
ctypes around ``runs`` invokes after one uncounted invoke (Python's own cost per invoke is a few
thousand instructions). qemu 7.2 shows the guest the host's x86 /proc/cpuinfo, on which XNNPACK's
cpuinfo crashes, so the sysroot is an overlay of the rootfs with an ARM /proc/cpuinfo for the CPU.

One-time setup (a pip and a Debian download, nothing installed on the host):

    pip download ai-edge-litert==2.3.0 --no-deps --only-binary=:all: \\
        --platform manylinux_2_27_aarch64 --python-version 311 -d WORK
    python -m zipfile -e WORK/ai_edge_litert-2.3.0-cp311-cp311-manylinux_2_27_aarch64.whl WORK/site
    curl -O http://deb.debian.org/debian-security/pool/updates/main/p/python3.11/libpython3.11_3.11.2-6+deb12u9_arm64.deb
    dpkg-deb -x libpython3.11_3.11.2-6+deb12u9_arm64.deb WORK/libpy

(the libpython3.11 version of the rootfs' python3.11-minimal). Then:

    python -m benchmarks.litert_qemu_count MODEL.tflite --cpu cortex-a72 --work WORK

The .tflite is our exporter's (lite_converter/app/peers/tflite_export.py) from our int8 .lite.
"""
from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path

from runtime_arm.tools.packaging.rootfs import ensure_rootfs

REPO = Path(__file__).resolve().parents[1]
PLUGIN = REPO / "build" / "qemu-plugin" / "liblite_insn_count.so"
DRIVER_SOURCE = REPO / "benchmarks" / "qemu_insn_count" / "python_marker_main.c"
# qemu -cpu -> (MIDR part number, /proc/cpuinfo Features) of that core
CPUS = {
    "cortex-a53": ("d03", "fp asimd evtstrm crc32 cpuid"),
    "cortex-a72": ("d08", "fp asimd evtstrm crc32 cpuid"),
    "cortex-a76": ("d0b", "fp asimd evtstrm crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp "
                   "ssbs"),
}
INNER = '''
import ctypes, sys
sys.path.insert(0, sys.argv[1])
import numpy as np
from ai_edge_litert.interpreter import Interpreter
marks = ctypes.CDLL(None)
interpreter = Interpreter(model_path=sys.argv[2], num_threads=1)
interpreter.allocate_tensors()
rng = np.random.default_rng(0)
for d in interpreter.get_input_details():
    if np.issubdtype(d["dtype"], np.integer):
        info = np.iinfo(d["dtype"])
        x = rng.integers(info.min, info.max + 1, d["shape"])
    else:
        x = rng.standard_normal(d["shape"])
    interpreter.set_tensor(d["index"], x.astype(d["dtype"]))
interpreter.invoke()
marks.lite_bench_marker_begin()
for _ in range(int(sys.argv[3])):
    marks.lite_bench_marker_iteration()
    interpreter.invoke()
marks.lite_bench_marker_end()
'''


def overlay_sysroot(work: Path, cpu: str) -> Path:
    """WORK/sysroot: the arm64 rootfs' top-level entries as links, with /proc/cpuinfo of ``cpu``."""
    rootfs, sysroot = ensure_rootfs("arm64"), work / "sysroot"
    (sysroot / "proc").mkdir(parents=True, exist_ok=True)
    for entry in rootfs.iterdir():
        link = sysroot / entry.name
        if entry.name not in ("proc", "sys") and not link.exists():
            link.symlink_to(entry)
    part, features = CPUS[cpu]
    (sysroot / "proc" / "cpuinfo").write_text(
        f"processor\t: 0\nBogoMIPS\t: 108.00\nFeatures\t: {features}\nCPU implementer\t: 0x41\n"
        f"CPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0x{part}\nCPU revision\t: 0\n\n")
    return sysroot


def count(model: Path, cpu: str, work: Path, runs: int) -> float:
    """Instructions per LiteRT invoke of ``model`` on qemu ``cpu`` (1 thread)."""
    sysroot, driver, inner = overlay_sysroot(work, cpu), work / "python_marker_main", work / "litert_inner.py"
    if not driver.exists():
        subprocess.run(["aarch64-linux-gnu-gcc", "-O2", "-rdynamic", str(DRIVER_SOURCE), "-ldl", "-o",
                        str(driver)], check=True)
    inner.write_text(INNER)
    out = work / "count.txt"
    libpy = work / "libpy" / "usr" / "lib" / "aarch64-linux-gnu"
    subprocess.run(["qemu-aarch64", "-L", str(sysroot), "-cpu", cpu, "-E", f"LD_LIBRARY_PATH={libpy}",
                    "-plugin", f"{PLUGIN},out={out}", str(driver), str(inner), str(work / "site"),
                    str(model.resolve()), str(runs)], check=True)
    match = re.search(r"instructions=(\d+) iterations=(\d+)", out.read_text())
    if match is None or int(match.group(2)) != runs:
        raise RuntimeError(f"the plugin counted no complete run: {out.read_text()!r}")
    return int(match.group(1)) / runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--cpu", default="cortex-a72", choices=sorted(CPUS))
    parser.add_argument("--work", type=Path, required=True, help="the setup's folder (site/, libpy/)")
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    per_run = count(args.model, args.cpu, args.work, args.runs)
    print(f"{args.model} LiteRT on aarch64 (-cpu {args.cpu}, 1 thread): {per_run / 1e6:.1f} M instructions "
          f"per inference ({args.runs} counted)")


if __name__ == "__main__":
    main()
