"""What the `lite` subcommands share: the user-error type, the --input-shape and --cpu-affinity
arguments, random model inputs.

Its own module so that `lite` (cli.py) can import its subcommands (bench_cli.py, compress_cli.py)
and they can import these without an import circle.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence

import numpy as np

from lite_converter.reader import TensorInfo, numpy_dtype_of


class UserError(Exception):
    """A problem the user can fix; its message is printed as is."""


MAX_RANK = 8  # the runtime's LITE_MAX_RANK
MAX_TENSOR_ELEMENTS = 2**31  # the runtime refuses larger tensors (and 2 GiB of bytes)


# -- argument types -------------------------------------------------------------------------------
def input_shape_arg(text: str) -> tuple[str, list[int]]:
    """Parses NAME=1,3,224,224 (the name may itself contain '=')."""
    name, sep, dims = text.rpartition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=D0,D1,..., got {text!r}")
    try:
        shape = [int(d) for d in dims.split(",")] if dims.strip() else []
    except ValueError:
        raise argparse.ArgumentTypeError(f"dims must be integers in {text!r}") from None
    if any(d < 0 for d in shape):
        raise argparse.ArgumentTypeError(f"dims must be >= 0 in {text!r}")
    if len(shape) > MAX_RANK:
        raise argparse.ArgumentTypeError(f"rank {len(shape)} in {text!r}: at most {MAX_RANK} dims")
    if math.prod(d for d in shape if d) > MAX_TENSOR_ELEMENTS:
        raise argparse.ArgumentTypeError(
            f"{text!r} has {math.prod(shape):,} elements: "
            f"a tensor holds at most {MAX_TENSOR_ELEMENTS:,} (2^31)")
    return name, shape


def input_value_arg(text: str) -> tuple[str, np.ndarray]:
    """Parses NAME=VALUE or NAME=V0,V1,... (numbers; a list pins a 1-D input)."""
    name, sep, values = text.rpartition("=")
    if not sep or not name or not values.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    try:
        numbers = [float(v) if any(c in v.lower() for c in ".en") else int(v) for v in values.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"values must be numbers in {text!r}") from None
    array = np.array(numbers)
    return name, array.reshape(()) if "," not in values else array


def input_values(pairs: list[tuple[str, np.ndarray]] | None) -> dict[str, np.ndarray]:
    """The repeated --input-value arguments as one mapping; a name given twice is a UserError."""
    result: dict[str, np.ndarray] = {}
    for name, value in pairs or []:
        if name in result:
            raise UserError(f"--input-value gives '{name}' twice")
        result[name] = value
    return result


def input_shapes(pairs: list[tuple[str, list[int]]] | None) -> dict[str, list[int]]:
    """The repeated --input-shape arguments as one mapping; a name given twice is a UserError."""
    result: dict[str, list[int]] = {}
    for name, shape in pairs or []:
        if name in result:
            raise UserError(f"--input-shape given twice for '{name}'")
        result[name] = shape
    return result


_SIZE_SUFFIXES = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
MAX_MEMORY_HELP = ("the most memory the runtime commits for the model (arena, scratch, packed weights), "
                   "e.g. 512M or 4G; default 1G, checked before anything is allocated")


def memory_size_arg(text: str) -> int:
    """Parses a byte count: 1073741824, 512M, 4G (binary units), within the C API's size_t."""
    body = text.strip().upper().removesuffix("B").removesuffix("I")
    suffix = body[-1:] if body[-1:] in _SIZE_SUFFIXES else ""
    try:
        value = int(body[: len(body) - len(suffix)]) * _SIZE_SUFFIXES[suffix]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a byte count like 512M or 4G, got {text!r}") from None
    if not 1 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"{text!r} is out of range (1 byte .. 2^64 - 1)")
    return value


CPU_AFFINITY_CHOICES = ("none", "fast")  # runtime_arm.Interpreter's cpu_affinity values
CPU_AFFINITY_HELP = (
    "'fast' runs the threads on the --threads fastest CPUs (the big cores of a big.LITTLE phone, by the "
    "kernel's cpu_capacity or max frequency; Linux and Android, nothing where the CPUs are alike); "
    "default 'none'"
)


BACKEND_CHOICES = ("cpu", "opencl", "auto")  # runtime_arm.Interpreter's backend values
BACKEND_HELP = (
    "where ops run: 'cpu' (default), 'opencl' (the GPU through OpenCL; ops it cannot run stay on the CPU; "
    "an error when no OpenCL device is usable) or 'auto' (OpenCL when usable, else the CPU)"
)
PRECISION_CHOICES = ("fp32", "fp16", "fp16_compute")  # runtime_arm.Interpreter's precision values
PRECISION_HELP = ("precision of the GPU backend: fp32 (default), fp16 (half storage, fp32 math) or "
                  "fp16_compute (half storage and half math where the device has cl_khr_fp16; reductions "
                  "accumulate in fp32)")


def affinity_text(cpus: Sequence[int]) -> str:
    """What ``--cpu-affinity fast`` chose, for `lite run` and `lite bench`."""
    if not cpus:
        return "no CPUs chosen (they are alike, or sysfs does not rank them): threads not pinned"
    return f"CPUs {', '.join(map(str, cpus))}"


# -- inputs ---------------------------------------------------------------------------------------
def random_input(tensor: TensorInfo, shape: list[int], rng: np.random.Generator) -> np.ndarray:
    """Random data of the input's dtype: normal floats, random bools, the whole range of a quantized
    (int8 / uint8) input, small non-negative ints for other integers (indices, lengths, ids)."""
    dtype = numpy_dtype_of(tensor.dtype)
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if tensor.quantization and dtype.itemsize == 1:
        limits = np.iinfo(dtype)
        return rng.integers(int(limits.min), int(limits.max) + 1, shape).astype(dtype)
    return rng.integers(0, 10, shape).astype(dtype)
