"""The Python ``Interpreter``: numpy in, numpy out, over the C API (TFLite-style methods plus ``run``).

Every call goes through liblite_runtime.so's C functions, so this class behaves exactly like a C
or Android application would. Errors raise :class:`LiteError` with the C API's status and message.
"""

from __future__ import annotations

import ctypes
import math
import os
from collections.abc import Mapping, Sequence
from ctypes import byref, c_int, c_int64, c_void_p
from typing import Any

import numpy as np

from runtime_arm import sequence_io
from runtime_arm._library import (
    BACKENDS,
    CPU_AFFINITY,
    DEFAULT_MAX_MEMORY_BYTES,
    MAX_RANK,
    MEMORY_COPY,
    PRECISIONS,
    TUNE_LEVELS,
    ErrorStruct,
    OpProfileStruct,
    QuantizationStruct,
    TensorInfoStruct,
    load_library,
)
from runtime_arm.dtypes import numpy_dtype
from runtime_arm.errors import LiteError, Status
from runtime_arm.fast_run import make_runner


def _raise_load_error(status: int, error: ErrorStruct) -> None:
    raise LiteError(status, error.message.decode("utf-8", "replace"))


INT32_RANGE = (-(2**31), 2**31 - 1)
INT64_RANGE = (-(2**63), 2**63 - 1)
SIZE_RANGE = (0, 2**64 - 1)


def checked_int(value: object, what: str, bounds: tuple[int, int]) -> int:
    """``value`` as a Python int within ``bounds``: ctypes would silently wrap it to the C type's
    width (threads=2**32 + 2 becoming 2), so an out-of-range value is the caller's error here."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise LiteError(Status.INVALID_ARGUMENT, f"{what} must be an integer, got {value!r}")
    number = int(value)
    if not bounds[0] <= number <= bounds[1]:
        raise LiteError(Status.INVALID_ARGUMENT,
                        f"{what} {number} is out of range ({bounds[0]}..{bounds[1]})")
    return number


def data_address(array: np.ndarray) -> int:
    """The address of a C-contiguous array's data. ``array.ctypes.data`` builds a ctypes helper
    object at every read (several microseconds on a loaded host, as long as a tiny model's whole
    invoke); a writable buffer's address through ``c_char.from_buffer`` costs a fifth of that.
    Read-only and empty arrays take the slow way."""
    try:
        return ctypes.addressof(ctypes.c_char.from_buffer(array))
    except (TypeError, ValueError):  # read-only (TypeError) or 0 bytes (ValueError)
        return array.ctypes.data


def encoded_path(path: str | os.PathLike[str], what: str = "model path") -> bytes:
    """The path as the C API takes it; a NUL byte would silently cut it short there."""
    raw = os.fsencode(path)
    if b"\0" in raw:
        raise LiteError(Status.INVALID_ARGUMENT, f"{what} {os.fsdecode(raw)!r} contains a NUL byte")
    return raw


class Interpreter:
    """Runs one .lite model.

    ``Interpreter("m.lite", threads=2)`` maps the file; ``Interpreter(model_content=data)`` copies
    the bytes. One interpreter must be used by one thread at a time; create one per thread.
    ``cpu_affinity="fast"`` runs the workers, and the thread calling ``invoke`` while it runs, on
    the ``threads`` fastest CPUs (the big cores of a big.LITTLE phone; Linux and Android, nothing
    where the CPUs are alike): see ``cpu_affinity_cpus``. ``max_memory_bytes`` bounds what the
    interpreter commits for the model (arena, scratch, packed weights; default 1 GiB, checked before
    anything is allocated): raise it for a trusted model that needs more.
    ``backend="opencl"`` runs the ops the OpenCL backend supports on the GPU (the rest on the CPU,
    see ``profile()[i]["backend"]``) and raises when no OpenCL device is usable; ``backend="auto"``
    falls back to the CPU then (``backend_note`` says why). ``precision="fp16"`` stores the GPU's
    activations in half floats (math stays float32). ``cache_dir`` (an existing directory) keeps the
    compiled OpenCL program between runs, so later creations skip compiling, and the choices of
    ``tune`` ("none": the driver picks work-group sizes; "fast", "normal", "exhaustive": timed at
    each op's first run). ``precision="fp16_compute"`` adds half math where the device has
    cl_khr_fp16. docs/OPENCL.md. ``packed_weight_ratio`` bounds what the interpreter commits (arena,
    scratch, packed weights), as a multiple of the model's weight bytes (default ``math.inf``: every
    Winograd layer keeps its transformed weight, the fastest; with a bound, e.g. 1.5, the Winograd
    layers keep the transformed copies that save the most instructions per byte while they fit, the
    others transform their weight at every run: fp32 results within the same tolerance, more
    instructions): see ``memory_bytes`` and docs/ARCHITECTURE.md.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        model_content: bytes | bytearray | memoryview | None = None,
        threads: int = 1,
        cpu_affinity: str = "none",
        max_memory_bytes: int = DEFAULT_MAX_MEMORY_BYTES,
        backend: str = "cpu",
        precision: str = "fp32",
        cache_dir: str | os.PathLike[str] | None = None,
        tune: str = "none",
        packed_weight_ratio: float = math.inf,
    ) -> None:
        if (model_path is None) == (model_content is None):
            raise ValueError("give exactly one of model_path and model_content")
        if not isinstance(cpu_affinity, str) or cpu_affinity not in CPU_AFFINITY:
            raise ValueError(f"cpu_affinity must be one of {', '.join(map(repr, CPU_AFFINITY))}, "
                             f"got {cpu_affinity!r}")
        threads = checked_int(threads, "threads", INT32_RANGE)
        if not isinstance(packed_weight_ratio, (int, float)) or not packed_weight_ratio > 0:
            raise ValueError(f"packed_weight_ratio must be a number > 0, got {packed_weight_ratio!r}")
        max_memory_bytes = checked_int(max_memory_bytes, "max_memory_bytes", (1, SIZE_RANGE[1]))
        path = encoded_path(model_path) if model_path is not None else None
        cache = encoded_path(cache_dir, "cache_dir") if cache_dir is not None else None
        if not isinstance(backend, str) or backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(map(repr, BACKENDS))}, got {backend!r}")
        if not isinstance(precision, str) or precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {', '.join(map(repr, PRECISIONS))}, "
                             f"got {precision!r}")
        if not isinstance(tune, str) or tune not in TUNE_LEVELS:
            raise ValueError(f"tune must be one of {', '.join(map(repr, TUNE_LEVELS))}, got {tune!r}")
        self._lib = load_library()
        self._model = c_void_p()
        self._it = c_void_p()
        error = ErrorStruct()
        if path is not None:
            status = self._lib.lite_model_load_file(path, byref(self._model), byref(error))
        else:
            data = bytes(model_content)
            # COPY: the runtime keeps its own aligned copy, so `data` may be freed afterwards.
            status = self._lib.lite_model_load_memory(
                data, len(data), MEMORY_COPY, byref(self._model), byref(error))
        if status != Status.OK:
            _raise_load_error(status, error)
        options = self._lib.lite_interpreter_options_default()
        options.num_threads = threads
        options.cpu_affinity = CPU_AFFINITY[cpu_affinity]
        options.max_memory_bytes = max_memory_bytes
        options.backend = BACKENDS[backend]
        options.precision = PRECISIONS[precision]
        options.cache_dir = cache  # `cache` stays alive until create has copied it
        options.tune = TUNE_LEVELS[tune]
        options.packed_weight_ratio = float(packed_weight_ratio)
        status = self._lib.lite_interpreter_create(self._model, byref(options), byref(self._it), byref(error))
        if status != Status.OK:
            self._lib.lite_model_destroy(self._model)
            self._model = c_void_p()
            _raise_load_error(status, error)
        self._input_names = [self._name(self._lib.lite_interpreter_input_name(self._it, i))
                             for i in range(self._lib.lite_interpreter_input_count(self._it))]
        self._output_names = [self._name(self._lib.lite_interpreter_output_name(self._it, i))
                              for i in range(self._lib.lite_interpreter_output_count(self._it))]
        # Per-call costs of run() on tiny models (a wake-word head invokes in ~30 us): one dims buffer
        # reused by every shape query, and each input's dtype (fixed by the model) read once.
        self._dims = (c_int64 * MAX_RANK)()
        self._input_dtypes: list[np.dtype | None] = [None] * len(self._input_names)
        # Input shapes change only through resize_input; output dtypes are fixed once an invoke has run.
        self._input_shapes: list[tuple[int, ...] | None] = [None] * len(self._input_names)
        self._output_dtypes: list[np.dtype] | None = None
        # run() in one C call (fast_run.py) where the extension is built; sequences take the Python path.
        self._runner = None
        if not any(self._kinds(True)) and not any(self._kinds(False)):
            self._runner = make_runner(self._lib, self._it.value, self._input_names, self._output_names)

    # -- lifetime ------------------------------------------------------------------------------
    def close(self) -> None:
        """Frees the interpreter and the model (also done when the object is collected)."""
        lib = getattr(self, "_lib", None)
        if lib is None:
            return
        runner = getattr(self, "_runner", None)
        if runner is not None:
            runner.detach()  # it holds the raw handle destroyed below
            self._runner = None
        if getattr(self, "_it", None):
            lib.lite_interpreter_destroy(self._it)
            self._it = c_void_p()
        if getattr(self, "_model", None):
            lib.lite_model_destroy(self._model)  # after its interpreter: the model must outlive it
            self._model = c_void_p()

    def __del__(self) -> None:
        self.close()

    def __enter__(self) -> Interpreter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- helpers -------------------------------------------------------------------------------
    @staticmethod
    def _name(raw: bytes | None) -> str:
        return raw.decode("utf-8", "replace") if raw is not None else ""

    @staticmethod
    def _optional_name(raw: bytes | None) -> str | None:
        return raw.decode("utf-8", "replace") if raw is not None else None

    def _check(self, status: int) -> None:
        if status != Status.OK:
            raise LiteError(status, self._name(self._lib.lite_interpreter_error_message(self._it)))

    def _live(self) -> c_void_p:
        if not self._it:
            raise LiteError(Status.INVALID_ARGUMENT, "the interpreter is closed")
        return self._it

    def _input_index(self, index_or_name: int | str) -> int:
        return self._resolve(index_or_name, self._input_names, "input")

    def _output_index(self, index_or_name: int | str) -> int:
        return self._resolve(index_or_name, self._output_names, "output")

    @staticmethod
    def _resolve(index_or_name: int | str, names: list[str], kind: str) -> int:
        if isinstance(index_or_name, str):
            if index_or_name not in names:
                raise LiteError(Status.INVALID_ARGUMENT,
                                f"no {kind} named {index_or_name!r}; {kind}s: {names}")
            return names.index(index_or_name)
        index = checked_int(index_or_name, f"{kind} index", INT32_RANGE)
        if not 0 <= index < len(names):
            raise LiteError(Status.INVALID_ARGUMENT,
                            f"{kind} index {index} out of range ({len(names)} {kind}s)")
        return index

    def _shape(self, shape_fn: Any, index: int) -> tuple[int, ...]:
        rank = shape_fn(self._live(), index, self._dims, MAX_RANK)
        return tuple(self._dims[:rank])

    def _input_shape(self, index: int) -> tuple[int, ...]:
        shape = self._input_shapes[index]
        if shape is None:
            shape = self._input_shapes[index] = self._shape(self._lib.lite_interpreter_input_shape, index)
        return shape

    def _output_shape(self, index: int) -> tuple[int, ...]:
        return self._shape(self._lib.lite_interpreter_output_shape, index)

    def _input_dtype(self, index: int) -> np.dtype:
        dtype = self._input_dtypes[index]
        if dtype is None:
            dtype = self._input_dtypes[index] = numpy_dtype(
                self._lib.lite_interpreter_input_dtype(self._live(), index))
        return dtype

    def _output_dtype(self, index: int) -> np.dtype:
        return numpy_dtype(self._lib.lite_interpreter_output_dtype(self._live(), index))

    def _quantization(self, quant_fn: Any, index: int) -> dict[str, Any]:
        q = QuantizationStruct()
        self._check(quant_fn(self._live(), index, byref(q)))
        scales = np.array(q.scales[: q.count], dtype=np.float32) if q.count else np.zeros(0, np.float32)
        if q.count and q.zero_points:
            zero_points = np.array(q.zero_points[: q.count], dtype=np.int64)
        else:
            zero_points = np.zeros(q.count, dtype=np.int64)
        return {"scales": scales, "zero_points": zero_points, "quantized_dimension": q.axis}

    def _details(self, kind: str) -> list[dict[str, Any]]:
        is_input = kind == "input"
        names = self._input_names if is_input else self._output_names
        details = []
        for i, name in enumerate(names):
            shape = self._input_shape(i) if is_input else self._output_shape(i)
            params = self._quantization(
                self._lib.lite_interpreter_input_quantization if is_input
                else self._lib.lite_interpreter_output_quantization, i)
            per_tensor = params["scales"].size == 1
            details.append({
                "name": name,
                "index": i,
                "shape": np.array(shape, dtype=np.int64),
                "dtype": (self._input_dtype(i) if is_input else self._output_dtype(i)).type,
                # TFLite's (scale, zero_point) pair: (0.0, 0) when not quantized per tensor.
                "quantization": (float(params["scales"][0]), int(params["zero_points"][0])) if per_tensor
                else (0.0, 0),
                "quantization_parameters": params,
            })
        return details

    # -- TFLite-style API ----------------------------------------------------------------------
    def get_input_details(self) -> list[dict[str, Any]]:
        """One dict per input: name, index, shape (current; -1 = dynamic), dtype, quantization."""
        return self._details("input")

    def get_output_details(self) -> list[dict[str, Any]]:
        """One dict per output; shapes are the computed ones once allocated."""
        return self._details("output")

    def resize_input(self, index_or_name: int | str, shape: Sequence[int]) -> None:
        """Sets an input's shape; shapes and memory are re-planned on the next allocate/invoke."""
        index = self._input_index(index_or_name)
        dims = [checked_int(d, "dim", INT64_RANGE) for d in shape]
        if len(dims) > MAX_RANK:
            raise LiteError(Status.INVALID_ARGUMENT, f"rank {len(dims)} exceeds {MAX_RANK}")
        array = (c_int64 * max(1, len(dims)))(*dims)
        self._input_shapes[index] = None  # read back when next needed, whether or not the resize is accepted
        self._check(self._lib.lite_interpreter_resize_input(self._live(), index, array, len(dims)))

    def allocate_tensors(self) -> None:
        """Prepares every op and plans memory now (invoke does it implicitly when needed)."""
        self._check(self._lib.lite_interpreter_allocate(self._live()))

    def set_tensor(self, index_or_name: int | str, value: np.ndarray) -> None:
        """Copies ``value`` into an input; its dtype must match and its shape the current one."""
        index = self._input_index(index_or_name)
        array = self._checked_input(index, value)
        expected = self._input_shape(index)
        if array.shape != expected:
            raise LiteError(
                Status.INVALID_ARGUMENT,
                f"input {self._input_names[index]!r} has shape {expected}, got {array.shape}: "
                "call resize_input first (run() does it for you)")
        self._copy_input(index, array)

    def _copy_input(self, index: int, array: np.ndarray) -> None:
        status = self._lib.lite_interpreter_set_input(self._live(), index, data_address(array), array.nbytes)
        self._check(status)

    def invoke(self) -> None:
        """Runs the graph."""
        self._check(self._lib.lite_interpreter_invoke(self._live()))

    def reset_state(self) -> None:
        """Restores the model's variables (a streaming model's state, kept across invokes) to their
        initial values: the next invoke starts a new stream. A stateless model is unaffected."""
        self._check(self._lib.lite_interpreter_reset_variables(self._live()))

    @property
    def variable_count(self) -> int:
        """How many variables (state tensors kept across invokes) the model has; 0 if stateless."""
        return int(self._lib.lite_interpreter_variable_count(self._live()))

    def get_tensor(self, index_or_name: int | str) -> np.ndarray:
        """A copy of an output (by output index or name), or of an input given by name."""
        if isinstance(index_or_name, str) and index_or_name not in self._output_names \
                and index_or_name in self._input_names:
            return self._read_input(self._input_index(index_or_name))
        index = self._output_index(index_or_name)
        self.allocate_tensors()
        return self._read_output(index)

    def _read_output(self, index: int, dtype: np.dtype | None = None) -> np.ndarray:
        """A copy of output ``index`` of an allocated interpreter (``dtype``: its dtype, when known)."""
        out = np.empty(self._output_shape(index), dtype=dtype or self._output_dtype(index))
        self._check(self._lib.lite_interpreter_get_output(self._it, index, data_address(out), out.nbytes))
        return out

    def _read_input(self, index: int) -> np.ndarray:
        pointer = self._lib.lite_interpreter_input_data(self._live(), index)
        if not pointer:
            self._check(Status.INTERNAL)
        out = np.empty(self._input_shape(index), dtype=self._input_dtype(index))
        ctypes.memmove(out.ctypes.data, pointer, out.nbytes)
        return out

    @property
    def cpu_affinity_cpus(self) -> tuple[int, ...]:
        """The CPUs ``cpu_affinity="fast"`` chose, ascending; empty when nothing is pinned (the
        option is off, or the CPUs are alike or not described by sysfs)."""
        count = self._lib.lite_interpreter_cpu_affinity_cpus(self._live(), None, 0)
        cpus = (c_int * max(1, count))()
        count = self._lib.lite_interpreter_cpu_affinity_cpus(self._it, cpus, count)
        return tuple(int(c) for c in cpus[:count])

    @property
    def backend_note(self) -> str:
        """With ``backend="auto"``, why OpenCL is not in use ("" when it is or was not asked for)."""
        return self._name(self._lib.lite_interpreter_backend_note(self._live()))

    @property
    def backend_info(self) -> str:
        """One line about the GPU backend in use: device, library, whether its program was compiled
        or loaded from ``cache_dir`` and in how long ("" without a GPU backend)."""
        return self._name(self._lib.lite_interpreter_backend_info(self._live()))

    def backend_profile(self) -> dict[str, Any]:
        """The GPU backend's times ({} without one): ``program`` (how it was obtained: "compiled",
        "loaded" from ``cache_dir``, or "none" yet, and ``program_ms``), ``tune`` and ``tune_ms``
        (local-work-size tuning), and ``kernels``: per kernel name its calls and device seconds from
        OpenCL event timestamps since ``set_profiling(True)``, slowest first."""
        text = self._name(self._lib.lite_interpreter_backend_profile(self._live()))
        if not text:
            return {}
        report: dict[str, Any] = {"kernels": []}
        for line in text.splitlines():
            fields = line.split("\t")
            if fields[0] in ("program", "tune"):
                report[fields[0]] = fields[1]
                report[f"{fields[0]}_ms"] = float(fields[2])
            elif fields[0] == "kernel":
                report["kernels"].append({"kernel": fields[1], "calls": int(fields[2]),
                                          "seconds": float(fields[3])})
        return report

    @property
    def arena_bytes(self) -> int:
        """Size of the activation arena of the current plan (0 before allocation)."""
        return int(self._lib.lite_interpreter_arena_bytes(self._live()))

    @property
    def memory_bytes(self) -> int:
        """Memory the last allocation counted against ``max_memory_bytes`` (arena, scratch, packed
        weights, prepare-time values); after one refused for the bound, what it had asked for."""
        return int(self._lib.lite_interpreter_memory_bytes(self._live()))

    @property
    def weights_bytes(self) -> int:
        """Bytes of the model's weights (its constants): what ``packed_weight_ratio`` multiplies."""
        return int(self._lib.lite_interpreter_weights_bytes(self._live()))

    def tensor_details(self) -> list[dict[str, Any]]:
        """Every graph tensor as of the last allocation: name, dtype, shape, storage ("constant",
        "arena", "prepared" for values computed at prepare time, "variable" for state kept across
        invokes, "backend" for a value only in a non-CPU backend's memory, or "none"), arena offset
        and data address. For tests and tools: addresses are valid until the next re-allocation."""
        storage_names = ("none", "constant", "arena", "prepared", "backend", "variable")
        details = []
        info = TensorInfoStruct()
        for i in range(self._lib.lite_interpreter_tensor_count(self._live())):
            self._check(self._lib.lite_interpreter_tensor_info(self._it, i, byref(info)))
            details.append({
                "index": i,
                "name": self._name(info.name),
                "dtype": numpy_dtype(info.dtype).type,
                "shape": tuple(int(d) for d in info.dims[: info.rank]),
                "bytes": int(info.bytes),
                "storage": storage_names[info.storage],
                "arena_offset": int(info.arena_offset),
                "address": int(info.data or 0),
            })
        return details

    # -- profiling -----------------------------------------------------------------------------
    def set_profiling(self, enabled: bool = True) -> None:
        """Starts (and zeroes) or stops per-op timing; when off the runtime reads no clock."""
        self._check(self._lib.lite_interpreter_set_profiling(self._live(), int(bool(enabled))))

    def profile(self) -> list[dict[str, Any]]:
        """One dict per op of the graph in execution order: index, op (op code, e.g. "CONV_2D"),
        node (its name in the model), seconds (total eval time since profiling was enabled),
        calls (one per invoke; 0 for ops computed once at prepare time or by another op) and
        computed_by (the index of the op whose eval computes this op's outputs: its own, the next
        op's when that one runs both as one pass, -1 at prepare time) and backend (where it runs:
        "cpu" or "opencl"; None before allocation)."""
        entry = OpProfileStruct()
        rows = []
        for i in range(self._lib.lite_interpreter_profile_count(self._live())):
            self._check(self._lib.lite_interpreter_profile_entry(self._it, i, byref(entry)))
            rows.append({
                "index": int(entry.op_index),
                "op": self._name(entry.op_name),
                "node": self._name(entry.node_name),
                "seconds": float(entry.total_seconds),
                "calls": int(entry.calls),
                "computed_by": int(self._lib.lite_interpreter_op_computed_by(self._it, i)),
                "backend": self._optional_name(self._lib.lite_interpreter_op_backend(self._it, i)),
            })
        return rows

    @property
    def input_names(self) -> list[str]:
        return list(self._input_names)

    @property
    def output_names(self) -> list[str]:
        return list(self._output_names)

    # -- one-call API --------------------------------------------------------------------------
    def run(
        self, inputs: Mapping[str, np.ndarray] | Sequence[np.ndarray] | np.ndarray
    ) -> dict[str, np.ndarray]:
        """Sets every input (resizing when a shape differs), invokes, returns {output name: array}.

        A sequence input takes a list of arrays and an optional one also None (no value); a sequence
        output comes back as a list of arrays, an optional as its value or None (sequence_io.py)."""
        runner = self._runner
        if runner is not None:  # C-contiguous arrays of the right dtypes, in the model's order
            outputs = runner.run(inputs, self._input_shapes)
            if outputs is not None:
                return outputs
        feeds = self._feeds_by_index(inputs)
        sequences = {i: feeds.pop(i) for i in list(feeds) if self._kinds(True)[i]}
        for index, value in feeds.items():
            array = self._checked_input(index, value)
            if array.shape != self._input_shape(index):
                self.resize_input(index, array.shape)
            feeds[index] = array
        for resize_only in (True, False):  # every resize before the first allocate
            for index, value in sequences.items():
                sequence_io.set_input(self, index, self._kinds(True)[index], value, resize_only)
        for index, array in feeds.items():
            self._copy_input(index, array)
        self.invoke()  # allocates when needed: the outputs are readable after it
        if self._output_dtypes is None:
            self._output_dtypes = [self._output_dtype(i) for i in range(len(self._output_names))]
        dtypes = self._output_dtypes
        kinds = self._kinds(False)
        return {name: sequence_io.read_output(self, i, kinds[i]) if kinds[i]
                else self._read_output(i, dtypes[i]) for i, name in enumerate(self._output_names)}

    def _kinds(self, inputs: bool) -> list[int]:
        """Each input's / output's value kind (sequence_io: 0 tensor, 1 sequence, 2-3 optional)."""
        cache = "_input_kinds" if inputs else "_output_kinds"
        if getattr(self, cache, None) is None:
            lib = self._lib
            count = len(self._input_names if inputs else self._output_names)
            name = "lite_interpreter_input_kind" if inputs else "lite_interpreter_output_kind"
            query = getattr(lib, name, None)  # absent: a build without sequences, every value a tensor
            setattr(self, cache, [query(self._live(), i) if query else 0 for i in range(count)])
        return getattr(self, cache)

    def _feeds_by_index(
        self, inputs: Mapping[str, np.ndarray] | Sequence[np.ndarray] | np.ndarray
    ) -> dict[int, np.ndarray]:
        if isinstance(inputs, np.ndarray):
            inputs = [inputs]
        if isinstance(inputs, Mapping):
            if list(inputs) == self._input_names:  # the usual call: every input, in the model's order
                return dict(enumerate(inputs.values()))
            unknown = sorted(set(inputs) - set(self._input_names))
            missing = [n for n in self._input_names if n not in inputs]
            if unknown or missing:
                raise LiteError(Status.INVALID_ARGUMENT,
                                f"inputs do not match the model: unknown {unknown}, missing {missing}; "
                                f"the model's inputs are {self._input_names}")
            return {self._input_names.index(name): value for name, value in inputs.items()}
        values = list(inputs)
        if len(values) != len(self._input_names):
            raise LiteError(Status.INVALID_ARGUMENT,
                            f"got {len(values)} inputs, the model has {len(self._input_names)}: "
                            f"{self._input_names}")
        return dict(enumerate(values))

    def _checked_input(self, index: int, value: np.ndarray) -> np.ndarray:
        array = np.asarray(value, order="C")  # keeps 0-d scalars 0-d
        expected = self._input_dtype(index)
        if array.dtype != expected:
            raise LiteError(Status.INVALID_ARGUMENT,
                            f"input {self._input_names[index]!r} expects {expected}, got {array.dtype} "
                            f"(convert with .astype(np.{expected}))")
        return array
