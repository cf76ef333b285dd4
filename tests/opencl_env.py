"""Which OpenCL implementations the tests run on, and the environment each needs.

``LITE_OPENCL_IMPLEMENTATION`` picks one for a pytest run (``make test`` runs PoCL; ``make
test-opencl`` runs each in turn): ``pocl`` (Debian's pocl-opencl-icd through the ICD loader),
``rusticl`` (Mesa on llvmpipe, ``RUSTICL_ENABLE=llvmpipe``), ``oclgrind`` (the simulator that checks
every access), ``intel`` (Intel's CPU runtime from PyPI, through ``OCL_ICD_FILENAMES``) and ``nvidia``
(the driver's ``libnvidia-opencl.so.1`` on a machine with an NVIDIA GPU, through its .icd file). The
environment is set before the library opens libOpenCL, i.e. before any interpreter is created.
"""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

IMPLEMENTATION = os.environ.get("LITE_OPENCL_IMPLEMENTATION", "pocl")


def implementation_env(name: str) -> dict[str, str]:
    """Environment variables that select implementation ``name`` through the ICD loader."""
    if name == "pocl":
        return {"OCL_ICD_VENDORS": "/etc/OpenCL/vendors/pocl.icd"}
    if name == "rusticl":
        return {"OCL_ICD_VENDORS": "/etc/OpenCL/vendors/rusticl.icd", "RUSTICL_ENABLE": "llvmpipe"}
    if name == "oclgrind":
        library = "/usr/lib/oclgrind/liboclgrind-rt.so"
        # Bounds and API checks are on by default; data races on request. Its uninitialized-value
        # plugin stops at the LLVM `freeze` instruction Debian's oclgrind 21.10 cannot run.
        return {"LITE_OPENCL_LIBRARY": library, "OCLGRIND_CHECK_API": "1", "OCLGRIND_DATA_RACES": "1"}
    if name == "intel":
        # Its own libraries beside it must be on LD_LIBRARY_PATH when the process starts (the
        # dynamic loader reads it once): `make test-opencl` sets it. No vendors directory, so the
        # ICD loader cannot fall back to another implementation.
        return {"OCL_ICD_FILENAMES": str(Path(sys.prefix) / "lib" / "libintelocl.so"),
                "OCL_ICD_VENDORS": "/nonexistent"}
    if name == "nvidia":
        # The driver's .icd file (LITE_NVIDIA_ICD where the driver is mounted elsewhere).
        return {"OCL_ICD_VENDORS": os.environ.get("LITE_NVIDIA_ICD", "/etc/OpenCL/vendors/nvidia.icd")}
    raise ValueError(f"unknown OpenCL implementation {name!r}")


NVIDIA_LIBRARY = "libnvidia-opencl.so.1"  # the driver's ICD library


# What each implementation's platform calls itself (checked, so a run cannot silently end up on
# another implementation).
# The implementations whose device has cl_khr_fp16 (half arithmetic), so precision="fp16_compute"
# runs there; the others refuse it with a reason.
# LITE_OPENCL_HALF_MATH=1 says so for another device (NVIDIA's exposes it on some drivers).
_HALF_MATH_HERE = {IMPLEMENTATION} if os.environ.get("LITE_OPENCL_HALF_MATH") == "1" else set()
HALF_MATH_IMPLEMENTATIONS = frozenset({"intel"} | _HALF_MATH_HERE)

PLATFORM_NAMES = {"pocl": "Portable Computing Language", "rusticl": "rusticl", "oclgrind": "Oclgrind",
                  "intel": "Intel", "nvidia": "NVIDIA CUDA"}


def available(name: str) -> str | None:
    """None when implementation ``name`` is installed here, else what to install."""
    if name == "pocl" and not Path("/etc/OpenCL/vendors/pocl.icd").exists():
        return "apt-get install pocl-opencl-icd ocl-icd-libopencl1"
    if name == "rusticl" and not Path("/etc/OpenCL/vendors/rusticl.icd").exists():
        return "apt-get install mesa-opencl-icd"
    if name == "oclgrind" and not Path("/usr/lib/oclgrind/liboclgrind-rt.so").exists():
        return "apt-get install oclgrind"
    if name == "nvidia":
        try:
            ctypes.CDLL(NVIDIA_LIBRARY)
        except OSError:
            return f"an NVIDIA driver with OpenCL ({NVIDIA_LIBRARY})"
    lib = Path(sys.prefix) / "lib"
    if name == "intel" and not (lib / "libintelocl.so").exists():
        return "pip install intel-opencl-rt intel-cmplr-lib-rt"
    if name == "intel" and str(lib) not in os.environ.get("LD_LIBRARY_PATH", "").split(":"):
        return f"LD_LIBRARY_PATH={lib} when starting the tests"
    return None
