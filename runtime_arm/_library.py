"""Finds liblite_runtime.so and declares the C API's signatures for ctypes.

The binding goes through exactly the C API an Android or C application links, so the Python tests
exercise that API. Lookup order: the ``LITE_RUNTIME_LIBRARY`` environment variable, then every
directory of this package's ``__path__`` (``pip install`` puts the library next to ``__init__.py``;
editable installs may add a directory), then ``runtime_arm/`` under each ``sys.path`` entry.
"""

from __future__ import annotations

import ctypes
import functools
import os
import sys
from ctypes import POINTER, Structure, c_char, c_char_p, c_double, c_float, c_int, c_int64, c_size_t, c_void_p
from pathlib import Path

import runtime_arm  # this package, already in sys.modules while its __init__ runs: for its __path__

LIBRARY_NAME = "liblite_runtime.so"
ENV_VARIABLE = "LITE_RUNTIME_LIBRARY"
MAX_RANK = 8
ERROR_MESSAGE_SIZE = 512
MEMORY_COPY = 1
DEFAULT_MAX_MEMORY_BYTES = 1 << 30  # LITE_DEFAULT_MAX_MEMORY_BYTES


class ErrorStruct(Structure):
    """``lite_error``."""

    _fields_ = [("code", c_int), ("message", c_char * ERROR_MESSAGE_SIZE)]


# ``lite_cpu_affinity`` by the names the binding and the CLI take.
CPU_AFFINITY = {"none": 0, "fast": 1}
# ``lite_backend`` and ``lite_precision`` by the names the binding and the CLI take.
BACKENDS = {"cpu": 0, "opencl": 1, "auto": 2}
PRECISIONS = {"fp32": 0, "fp16": 1, "fp16_compute": 2}
# ``lite_tune``: the OpenCL backend's local-work-size tuning levels.
TUNE_LEVELS = {"none": 0, "fast": 1, "normal": 2, "exhaustive": 3}


class OptionsStruct(Structure):
    """``lite_interpreter_options``."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("num_threads", c_int),
        ("reserved", c_int),  # the first version's padding, ignored by the runtime
        ("cpu_affinity", c_int),
        ("backend", c_int),
        ("precision", c_int),
        ("cache_dir", c_char_p),
        ("max_memory_bytes", c_size_t),
        ("tune", c_int),
        ("packed_weight_ratio", c_float),
    ]


class QuantizationStruct(Structure):
    """``lite_quantization``."""

    _fields_ = [
        ("count", c_int),
        ("axis", c_int),
        ("scales", POINTER(c_float)),
        ("zero_points", POINTER(c_int64)),
    ]


class TensorInfoStruct(Structure):
    """``lite_tensor_info``."""

    _fields_ = [
        ("name", c_char_p),
        ("dtype", c_int),
        ("rank", c_int),
        ("dims", c_int64 * MAX_RANK),
        ("bytes", c_size_t),
        ("storage", c_int),
        ("arena_offset", c_int64),
        ("data", c_void_p),
    ]


class SequenceElementStruct(Structure):
    """``lite_sequence_element``: one tensor of a sequence / optional value."""

    _fields_ = [
        ("dtype", c_int),
        ("rank", c_int),
        ("dims", c_int64 * MAX_RANK),
        ("data", c_void_p),
        ("bytes", c_size_t),
    ]


class OpProfileStruct(Structure):
    """``lite_op_profile``."""

    _fields_ = [
        ("op_index", c_int),
        ("op_name", c_char_p),
        ("node_name", c_char_p),
        ("total_seconds", c_double),
        ("calls", c_int64),
    ]


# The C API's sequence / optional calls: absent from builds without the sequence ops.
SEQUENCE_CALLS = frozenset({
    "lite_interpreter_input_kind", "lite_interpreter_output_kind", "lite_interpreter_output_sequence_length",
    "lite_interpreter_output_sequence_element", "lite_interpreter_output_has_element",
    "lite_interpreter_set_input_sequence", "lite_interpreter_resize_input_sequence"})

# name: (restype, argtypes)
_SIGNATURES: dict[str, tuple[object, list[object]]] = {
    "lite_version": (c_char_p, []),
    "lite_model_load_file": (c_int, [c_char_p, POINTER(c_void_p), POINTER(ErrorStruct)]),
    "lite_model_load_memory": (c_int, [c_void_p, c_size_t, c_int, POINTER(c_void_p), POINTER(ErrorStruct)]),
    "lite_model_destroy": (None, [c_void_p]),
    "lite_interpreter_options_default": (OptionsStruct, []),
    "lite_interpreter_create": (
        c_int, [c_void_p, POINTER(OptionsStruct), POINTER(c_void_p), POINTER(ErrorStruct)]),
    "lite_interpreter_destroy": (None, [c_void_p]),
    "lite_interpreter_cpu_affinity_cpus": (c_int, [c_void_p, POINTER(c_int), c_int]),
    "lite_interpreter_error_message": (c_char_p, [c_void_p]),
    "lite_interpreter_input_count": (c_int, [c_void_p]),
    "lite_interpreter_output_count": (c_int, [c_void_p]),
    "lite_interpreter_input_name": (c_char_p, [c_void_p, c_int]),
    "lite_interpreter_output_name": (c_char_p, [c_void_p, c_int]),
    "lite_interpreter_input_index": (c_int, [c_void_p, c_char_p]),
    "lite_interpreter_output_index": (c_int, [c_void_p, c_char_p]),
    "lite_interpreter_input_dtype": (c_int, [c_void_p, c_int]),
    "lite_interpreter_output_dtype": (c_int, [c_void_p, c_int]),
    "lite_interpreter_input_shape": (c_int, [c_void_p, c_int, POINTER(c_int64), c_int]),
    "lite_interpreter_output_shape": (c_int, [c_void_p, c_int, POINTER(c_int64), c_int]),
    "lite_interpreter_input_bytes": (c_size_t, [c_void_p, c_int]),
    "lite_interpreter_output_bytes": (c_size_t, [c_void_p, c_int]),
    "lite_interpreter_input_quantization": (c_int, [c_void_p, c_int, POINTER(QuantizationStruct)]),
    "lite_interpreter_output_quantization": (c_int, [c_void_p, c_int, POINTER(QuantizationStruct)]),
    "lite_interpreter_resize_input": (c_int, [c_void_p, c_int, POINTER(c_int64), c_int]),
    "lite_interpreter_allocate": (c_int, [c_void_p]),
    "lite_interpreter_set_input": (c_int, [c_void_p, c_int, c_void_p, c_size_t]),
    "lite_interpreter_input_data": (c_void_p, [c_void_p, c_int]),
    "lite_interpreter_output_data": (c_void_p, [c_void_p, c_int]),
    "lite_interpreter_invoke": (c_int, [c_void_p]),
    "lite_interpreter_input_kind": (c_int, [c_void_p, c_int]),
    "lite_interpreter_output_kind": (c_int, [c_void_p, c_int]),
    "lite_interpreter_output_sequence_length": (c_int64, [c_void_p, c_int]),
    "lite_interpreter_output_sequence_element": (
        c_int, [c_void_p, c_int, c_int64, POINTER(SequenceElementStruct)]),
    "lite_interpreter_output_has_element": (c_int, [c_void_p, c_int]),
    "lite_interpreter_set_input_sequence": (
        c_int, [c_void_p, c_int, POINTER(SequenceElementStruct), c_int64]),
    "lite_interpreter_resize_input_sequence": (
        c_int, [c_void_p, c_int, POINTER(SequenceElementStruct), c_int64]),
    "lite_interpreter_reset_variables": (c_int, [c_void_p]),
    "lite_interpreter_variable_count": (c_int, [c_void_p]),
    "lite_interpreter_get_output": (c_int, [c_void_p, c_int, c_void_p, c_size_t]),
    "lite_interpreter_arena_bytes": (c_size_t, [c_void_p]),
    "lite_interpreter_memory_bytes": (c_size_t, [c_void_p]),
    "lite_interpreter_weights_bytes": (c_size_t, [c_void_p]),
    "lite_interpreter_tensor_count": (c_int, [c_void_p]),
    "lite_interpreter_tensor_info": (c_int, [c_void_p, c_int, POINTER(TensorInfoStruct)]),
    "lite_interpreter_set_profiling": (c_int, [c_void_p, c_int]),
    "lite_interpreter_profile_count": (c_int, [c_void_p]),
    "lite_interpreter_profile_entry": (c_int, [c_void_p, c_int, POINTER(OpProfileStruct)]),
    "lite_interpreter_op_computed_by": (c_int, [c_void_p, c_int]),
    "lite_interpreter_op_backend": (c_char_p, [c_void_p, c_int]),
    "lite_interpreter_backend_note": (c_char_p, [c_void_p]),
    "lite_interpreter_backend_info": (c_char_p, [c_void_p]),
    "lite_interpreter_backend_profile": (c_char_p, [c_void_p]),
}


def candidate_paths() -> list[Path]:
    """Where the library may be, in lookup order (the env variable alone when it is set)."""
    override = os.environ.get(ENV_VARIABLE)
    if override:
        return [Path(override)]
    dirs = [Path(p) for p in runtime_arm.__path__]  # the package's own (possibly extended) path
    dirs += [Path(p) / "runtime_arm" for p in sys.path if p]
    seen: set[Path] = set()
    paths = []
    for d in dirs:
        candidate = d / LIBRARY_NAME
        if candidate not in seen:
            seen.add(candidate)
            paths.append(candidate)
    return paths


def library_path() -> Path:
    """The first existing candidate, or an ImportError that says how to build the library."""
    candidates = candidate_paths()
    for path in candidates:
        if path.is_file():
            return path
    if os.environ.get(ENV_VARIABLE):
        raise ImportError(f"{ENV_VARIABLE}={candidates[0]} does not exist")
    raise ImportError(
        f"{LIBRARY_NAME} not found (looked in: {', '.join(str(p.parent) for p in candidates[:4])}, ...). "
        "Install the package (`pip install .` or `make install`), or build the runtime with "
        "`cmake -S . -B build/rt -DCMAKE_BUILD_TYPE=Release && cmake --build build/rt` and set "
        f"{ENV_VARIABLE}=build/rt/runtime_arm/{LIBRARY_NAME}"
    )


@functools.lru_cache(maxsize=1)
def load_library() -> ctypes.CDLL:
    """Loads the library once per process and declares every C API function's signature."""
    lib = ctypes.CDLL(str(library_path()))
    for name, (restype, argtypes) in _SIGNATURES.items():
        if name in SEQUENCE_CALLS and not hasattr(lib, name):
            continue  # a build without sequences (LITE_RUNTIME_SEQUENCES=OFF, the ARM default)
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib
