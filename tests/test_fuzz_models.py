"""Fuzzes the runtime with mutated REAL .lite files under ASan/UBSan.

Seeds are models converted from ONNX by lite_converter (a small conv net, a net with a
Shape -> Gather -> Concat -> Reshape subgraph and dynamic dims, and the PaddleOCR direction
classifier when it is in the local model cache). Mutations are seeded: random bit flips, extreme
byte values, truncation, and targeted hits found by walking the flatbuffer (vector lengths, tensor
indices, dims, dtypes, op codes), chunk duplication and zeroing. The harness
(runtime_arm/tests/fuzz_models.cc) loads, verifies, resizes, runs each file: every file must end
in success or an error with a message, never a crash, leak or sanitizer report.
"""

from __future__ import annotations

import os
import random
import struct
import subprocess
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import onnx
import pytest

from lite_converter.lite_fb.Model import Model

MUTANTS_PER_SMALL_SEED = 2000
MUTANTS_OF_REAL_MODEL = 300
BATCH = 300
SANITIZER_MARKERS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:", "Sanitizer")


# -- where the interesting bytes are -------------------------------------------------------------
class Targets:
    """File offsets of fields worth hitting, found with the generated flatbuffers reader."""

    def __init__(self, data: bytes) -> None:
        self.lengths: list[int] = []  # uint32 vector length prefixes
        self.indices: list[int] = []  # int32/uint32 tensor and buffer indices
        self.dims: list[int] = []     # int64 dims
        self.dtypes: list[int] = []   # int8
        self.opcodes: list[int] = []  # uint16
        model = Model.GetRootAs(data, 0)
        self._vector(model._tab, 12, 4)  # buffers
        for b in range(model.BuffersLength()):
            self._vector(model.Buffers(b)._tab, 4, 1)
        graph = model.Graph()
        for field in (4, 6):  # tensors, operators
            self._vector(graph._tab, field, 4)
        for field in (8, 10):  # graph inputs, outputs
            self.indices += self._vector(graph._tab, field, 4)
        for t in range(graph.TensorsLength()):
            tab = graph.Tensors(t)._tab
            self.dims += self._vector(tab, 8, 8)
            self.dtypes += self._scalar(tab, 6)
            self.indices += self._scalar(tab, 12)
        for k in range(graph.OperatorsLength()):
            tab = graph.Operators(k)._tab
            self.opcodes += self._scalar(tab, 4)
            for field in (8, 10):
                self.indices += self._vector(tab, field, 4)

    @staticmethod
    def _scalar(tab: object, voffset: int) -> list[int]:
        o = tab.Offset(voffset)
        return [tab.Pos + o] if o else []

    def _vector(self, tab: object, voffset: int, element_size: int) -> list[int]:
        o = tab.Offset(voffset)
        if not o:
            return []
        start, n = tab.Vector(o), tab.VectorLen(o)
        self.lengths.append(start - 4)
        return [start + i * element_size for i in range(n)]


# -- mutators ------------------------------------------------------------------------------------
Mutator = Callable[[bytearray, Targets, random.Random], None]

EXTREME_PATTERNS = [
    b"\x00", b"\xff", b"\x7f", b"\x80", b"\xff\xff\xff\xff", b"\xff\xff\xff\x7f", b"\x00\x00\x00\x80",
    struct.pack("<q", -(2**63)), struct.pack("<q", 2**62), struct.pack("<i", -1), struct.pack("<I", 1 << 30),
]


def pick(positions: list[int], data: bytearray, size: int, rng: random.Random) -> int | None:
    """A random target that still fits in `data` (an earlier mutation may have truncated it)."""
    fitting = [p for p in positions if p + size <= len(data)]
    return rng.choice(fitting) if fitting else None


def bit_flips(data: bytearray, targets: Targets, rng: random.Random) -> None:
    for _ in range(rng.randint(1, 8)):
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)


def extreme_bytes(data: bytearray, targets: Targets, rng: random.Random) -> None:
    pattern = rng.choice(EXTREME_PATTERNS)
    position = rng.randrange(max(1, len(data) - len(pattern)))
    data[position:position + len(pattern)] = pattern


def huge_length(data: bytearray, targets: Targets, rng: random.Random) -> None:
    value = rng.choice([0x7FFFFFFF, 0xFFFFFFFF, 0x40000000, 0x10000, len(data), 0x1FFFFFFF])
    if (position := pick(targets.lengths, data, 4, rng)) is not None:
        struct.pack_into("<I", data, position, value)


def bad_index(data: bytearray, targets: Targets, rng: random.Random) -> None:
    value = rng.choice([-1, -2, 7, 64, 1000, 2**31 - 1, -(2**31)])
    if (position := pick(targets.indices, data, 4, rng)) is not None:
        struct.pack_into("<i", data, position, value)


def bad_dim(data: bytearray, targets: Targets, rng: random.Random) -> None:
    value = rng.choice([-1, -7, 0, 1, 3, 65536, 1 << 20, 1 << 40, 2**62, 2**63 - 1])
    if (position := pick(targets.dims, data, 8, rng)) is not None:
        struct.pack_into("<q", data, position, value)


def bad_enum(data: bytearray, targets: Targets, rng: random.Random) -> None:
    if rng.random() < 0.5:
        if (position := pick(targets.dtypes, data, 1, rng)) is not None:
            struct.pack_into("<b", data, position, rng.choice([-1, 1, 2, 3, 7, 8, 11, 12, 127]))
    else:
        value = rng.choice([0, 40, 100, 121, 163, 172, 202, 203, 999, 65535, rng.randrange(210)])
        if (position := pick(targets.opcodes, data, 2, rng)) is not None:
            struct.pack_into("<H", data, position, value)


def truncate(data: bytearray, targets: Targets, rng: random.Random) -> None:
    del data[rng.randrange(len(data)):]


def duplicate_chunk(data: bytearray, targets: Targets, rng: random.Random) -> None:
    n = rng.randint(4, 64)
    source, destination = rng.randrange(len(data) - n), rng.randrange(len(data) - n)
    data[destination:destination + n] = data[source:source + n]


def zero_chunk(data: bytearray, targets: Targets, rng: random.Random) -> None:
    n = rng.randint(4, 64)
    start = rng.randrange(len(data) - n)
    data[start:start + n] = bytes(n)


MUTATORS: list[Mutator] = [bit_flips, extreme_bytes, huge_length, bad_index, bad_dim, bad_enum, truncate,
                           duplicate_chunk, zero_chunk]


def mutate(seed_data: bytes, targets: Targets, rng: random.Random, structure_only: bool) -> tuple[bytes, str]:
    """One mutant and the names of the mutators applied. `structure_only` keeps random hits off the
    weights (the tail of the file), so that a big model's mutants mostly test the runtime, not math."""
    data = bytearray(seed_data)
    names = []
    for _ in range(1 if rng.random() < 0.7 else rng.randint(2, 3)):
        mutator = rng.choice(MUTATORS)
        if structure_only and mutator in (bit_flips, extreme_bytes, duplicate_chunk, zero_chunk):
            head = bytearray(data[: min(len(data), 16384)])
            mutator(head, targets, rng)
            data[: len(head)] = head
        else:
            mutator(data, targets, rng)
        names.append(mutator.__name__)
        if len(data) < 80:
            break
    return bytes(data), "+".join(names)


# -- the test ------------------------------------------------------------------------------------
def seed_models(
    small_conv_onnx: onnx.ModelProto, shape_subgraph_onnx: onnx.ModelProto
) -> list[tuple[str, bytes, int, bool, list[str]]]:
    """(name, .lite bytes, number of mutants, structure_only, harness options) per seed."""
    from lite_converter import zoo
    from lite_converter.convert import convert_onnx

    seeds = [
        ("conv", convert_onnx(small_conv_onnx), MUTANTS_PER_SMALL_SEED, False, ["--dynamic-dim", "6"]),
        ("shape", convert_onnx(shape_subgraph_onnx), MUTANTS_PER_SMALL_SEED, False, ["--dynamic-dim", "6"]),
    ]
    try:
        cls = zoo.fetch("cls")  # the real PaddleOCR classifier (cached after the first download)
    except zoo.ZooError as error:
        warnings.warn(f"fuzzing without the PaddleOCR classifier: {error}", stacklevel=1)
        return seeds
    shape = "x".join(map(str, zoo.PADDLEOCR_MODELS["cls"].input_shape))
    seeds.append(("ppocr_cls", convert_onnx(cls), MUTANTS_OF_REAL_MODEL, True, ["--shape", shape]))
    return seeds


def run_harness(harness: Path, files: list[Path], list_file: Path, options: list[str]) -> list[str]:
    list_file.write_text("\n".join(str(f) for f in files) + "\n")
    command = [str(harness), *options, f"@{list_file}"]
    result = subprocess.run(command, capture_output=True, errors="replace",
                            text=True, timeout=600, check=False,
                            env=dict(os.environ, ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1",
                                     UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"))
    lines = result.stdout.splitlines()
    if result.returncode != 0 or any(m in result.stderr for m in SANITIZER_MARKERS):
        culprit = files[len(lines)] if len(lines) < len(files) else "(after the last file: a leak?)"
        pytest.fail(f"harness exit {result.returncode} on {culprit}\n{result.stderr[-6000:]}")
    assert len(lines) == len(files), result.stderr[-3000:]
    for line, path in zip(lines, files, strict=True):
        assert line.startswith(f"{path}: "), line
    return lines


def test_mutated_real_models_never_crash(tmp_path, asan_build, small_conv_onnx, shape_subgraph_onnx):
    harness = asan_build / "runtime_arm" / "fuzz_models"
    assert harness.is_file(), f"{harness} missing: build with `make asan`"
    files: list[Path] = []
    lines: list[str] = []
    for name, data, count, structure_only, options in seed_models(small_conv_onnx, shape_subgraph_onnx):
        original = tmp_path / f"seed_{name}.lite"
        original.write_bytes(data)
        group = [original]
        targets = Targets(data)
        rng = random.Random(f"lite-fuzz-{name}")
        for i in range(count):
            mutant, how = mutate(data, targets, rng, structure_only)
            path = tmp_path / f"{name}_{i:05d}_{how}.lite"
            path.write_bytes(mutant)
            group.append(path)
        for start in range(0, len(group), BATCH):
            batch = group[start:start + BATCH]
            lines += run_harness(harness, batch, tmp_path / f"batch_{name}_{start}.txt", options)
        files += group

    by_file = dict(zip(files, lines, strict=True))
    for path in files:
        if path.name.startswith("seed_"):
            assert by_file[path] == f"{path}: ok", by_file[path]
    outcomes = Counter(line.split(": ", 2)[1] for line in lines)
    mutants = len(files) - sum(1 for f in files if f.name.startswith("seed_"))
    assert mutants >= 2000
    assert not [line for line in lines if "BUG:" in line]
    # The test can fail: a good share must be refused at load, and some must still run.
    assert outcomes["load"] >= 0.25 * mutants, outcomes
    assert outcomes["ok"] >= 0.05 * mutants, outcomes
    for line in lines:
        if not line.endswith(": ok") and ": skipped:" not in line:
            assert len(line.split(": ", 3)[-1]) > 5, f"an error without a real message: {line}"
