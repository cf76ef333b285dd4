"""2,000 mutated Paddle model files through the Paddle frontend: clear errors, never a crash or a hang.

Seeds are real exports of paddle 3.3.1 (the PP-LCNet-style network of tests/paddle_op_cases.py as
ProgramDesc and as PIR, with its parameter file). Mutations are seeded and of three kinds per file
type: generic (bit flips, extreme bytes, truncation, chunks duplicated or zeroed), huge sizes
written where sizes live (protobuf varints of 2^63, parameter headers' LoD counts / descriptor
sizes / dims, JSON numbers of 1e308 or 2^70, nesting 100,000 deep), and structural JSON edits
(ops dropped, value ids and op names swapped). Every mutant must load, or fail with
ConversionError, within 10 s; the first 150 mutated programs that load are converted to .lite as
well (the passes must cope with what the reader let through; a conversion costs ~5 loads).
"""

from __future__ import annotations

import json
import random
import re
import signal
import struct
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from lite_converter.convert import convert_paddle
from lite_converter.frontends.paddle import load_paddle
from lite_converter.ir import ConversionError
from tests.paddle_fixtures import export_fixtures
from tests.paddle_oracle import paddle_available

SEED_CASE = "net_pp_lcnet"
MUTANTS = {"pdmodel": 700, "json": 700, "pdiparams": 600}
LIMIT_S = 10
CONVERSIONS = 150


@pytest.fixture(scope="module")
def seeds() -> dict[str, Path]:
    if not paddle_available():
        pytest.skip("paddlepaddle is not installed (`make test` installs it into .venv)")
    root = export_fixtures()
    return {"legacy": root / "legacy" / SEED_CASE, "pir": root / "pir" / SEED_CASE}


# -- mutations ------------------------------------------------------------------------------------
def generic(data: bytes, rng: random.Random) -> bytes:
    buffer = bytearray(data)
    kind = rng.randrange(5)
    if kind == 0:
        for _ in range(rng.randint(1, 8)):
            buffer[rng.randrange(len(buffer))] ^= 1 << rng.randrange(8)
    elif kind == 1:
        for _ in range(rng.randint(1, 4)):
            buffer[rng.randrange(len(buffer))] = rng.choice([0x00, 0xFF, 0x7F, 0x80, 0x01])
    elif kind == 2:
        del buffer[rng.randrange(len(buffer)) :]
    elif kind == 3:
        start = rng.randrange(len(buffer))
        chunk = buffer[start : start + rng.randint(1, 64)]
        at = rng.randrange(len(buffer))
        buffer[at:at] = chunk
    else:
        start = rng.randrange(len(buffer))
        buffer[start : start + rng.randint(1, 32)] = bytes(min(32, len(buffer) - start))
    return bytes(buffer)


def protobuf_huge(data: bytes, rng: random.Random) -> bytes:
    """A varint of 2^63 - 1 (or 2^31) written over a byte that starts a varint or length."""
    buffer = bytearray(data)
    at = rng.randrange(len(buffer) - 1)
    huge = rng.choice(
        [b"\xff\xff\xff\xff\xff\xff\xff\xff\x7f", b"\x80\x80\x80\x80\x08", b"\xff\xff\xff\xff\x0f"]
    )
    buffer[at : at + 1] = huge
    return bytes(buffer)


def params_headers(data: bytes) -> Iterator[tuple[int, str]]:
    """(offset, struct format) of every size field of a well-formed combined parameter file."""
    offset = 0
    while offset < len(data):
        yield offset, "<I"  # version
        levels = struct.unpack_from("<Q", data, offset + 4)[0]
        yield offset + 4, "<Q"
        offset += 12
        for _ in range(levels):
            size = struct.unpack_from("<Q", data, offset)[0]
            yield offset, "<Q"
            offset += 8 + size
        yield offset, "<I"  # tensor version
        desc_size = struct.unpack_from("<i", data, offset + 4)[0]
        yield offset + 4, "<i"
        from lite_converter.frontends.paddle.framework_schema import TensorDesc

        desc = TensorDesc()
        desc.ParseFromString(data[offset + 8 : offset + 8 + desc_size])
        for position in range(offset + 8, offset + 8 + desc_size):
            yield position, "B"  # descriptor bytes: dims and data type varints
        numel = 1
        for d in desc.dims:
            numel *= d
        offset += 8 + desc_size + numel * {5: 4, 3: 8, 2: 4, 4: 2, 6: 8}.get(desc.data_type, 1)


def params_huge(data: bytes, rng: random.Random, fields: list[tuple[int, str]]) -> bytes:
    buffer = bytearray(data)
    offset, fmt = rng.choice(fields)
    if fmt == "B":
        buffer[offset] = rng.choice([0x00, 0x7F, 0xFF, 0x80, 0x15])
    else:
        bits = struct.calcsize(fmt) * 8
        value = rng.choice(
            [0, 1, 2**31 - 1, 2 ** (bits - 1) - 1, 2**bits - 1, 7, 1 << 40 if bits == 64 else 3]
        )
        if fmt == "<i" and value >= 2**31:
            value -= 2**32
        struct.pack_into(fmt, buffer, offset, value)
    return bytes(buffer)


_NUMBER = re.compile(rb"-?\d+(\.\d+)?([eE][-+]?\d+)?")


def json_huge(data: bytes, rng: random.Random) -> bytes:
    kind = rng.randrange(3)
    if kind == 2:
        at = rng.randrange(len(data))
        return data[:at] + b"[" * 100_000 + data[at:]
    matches = list(_NUMBER.finditer(data))
    match = rng.choice(matches)
    replacement = rng.choice(
        [
            b"1e308",
            b"-1",
            b"1180591620717411303424",
            b"-9223372036854775809",
            b"0",
            b"2147483648",
            b"true",
            b"null",
            b'"x"',
            b"[]",
            b"{}",
        ]
    )
    return data[: match.start()] + replacement + data[match.end() :]


def json_structural(data: bytes, rng: random.Random) -> bytes:
    document = json.loads(data)
    ops = document["program"]["regions"][0]["blocks"][0]["ops"]
    kind = rng.randrange(4)
    if kind == 0:
        del ops[rng.randrange(len(ops))]
    elif kind == 1:
        a, b = rng.randrange(len(ops)), rng.randrange(len(ops))
        ops[a], ops[b] = ops[b], ops[a]
    elif kind == 2:
        victim = rng.choice([op for op in ops if op.get("I")] or ops)
        if victim.get("I"):
            victim["I"][rng.randrange(len(victim["I"]))] = {"%": rng.choice([0, -1, 10**6, 1])}
    else:
        a, b = rng.sample(range(len(ops)), 2)
        ops[a]["#"] = ops[b]["#"]
    return json.dumps(document).encode()


# -- running --------------------------------------------------------------------------------------
class Hang(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise Hang()


def run_mutant(directory: Path, convert: bool) -> str:
    """ "loaded", "converted" or "refused"; raises on anything else (a crash, a hang)."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(LIMIT_S)
    try:
        load_paddle(directory)
        if convert:
            convert_paddle(directory, directory / "model.lite")
            return "converted"
        return "loaded"
    except ConversionError as err:
        assert str(err), "an empty error message"
        return "refused"
    finally:
        signal.alarm(0)


def fuzz(
    seed_dir: Path,
    target: str,
    mutate: Callable[[bytes, random.Random], bytes],
    count: int,
    work: Path,
    conversions: int,
    seed: int,
) -> Counter:
    rng = random.Random(seed)
    original = (seed_dir / target).read_bytes()
    directory = work / f"{target}-{seed}"
    directory.mkdir()
    for name in ("inference.pdmodel", "inference.json", "inference.pdiparams"):
        if (seed_dir / name).exists() and name != target:
            (directory / name).write_bytes((seed_dir / name).read_bytes())
    outcomes: Counter = Counter()
    for index in range(count):
        mutant = mutate(original, rng)
        (directory / target).write_bytes(mutant)
        started = time.monotonic()
        try:
            outcome = run_mutant(directory, outcomes["converted"] < conversions)
            outcomes[outcome] += 1
        except Hang:
            pytest.fail(f"{target} mutant {index} (seed {seed}) ran past {LIMIT_S} s")
        except Exception as err:  # noqa: BLE001 - anything but ConversionError is a crash
            (work / f"crash-{target}-{seed}-{index}").write_bytes(mutant)
            pytest.fail(
                f"{target} mutant {index} (seed {seed}) crashed the frontend: {type(err).__name__}: {err}"
            )
        assert time.monotonic() - started < LIMIT_S
    print(f"{target} ({seed_dir.parent.name}): {dict(outcomes)}")
    return outcomes


def test_mutated_pdmodel_files(seeds: dict[str, Path], tmp_path: Path):
    strategies = [generic, protobuf_huge]
    outcomes = fuzz(
        seeds["legacy"],
        "inference.pdmodel",
        lambda d, r: r.choice(strategies)(d, r),
        MUTANTS["pdmodel"],
        tmp_path,
        CONVERSIONS,
        seed=1,
    )
    assert sum(outcomes.values()) == MUTANTS["pdmodel"]
    assert outcomes["refused"] and outcomes["converted"], outcomes  # both ends were reached


def test_mutated_pir_json_files(seeds: dict[str, Path], tmp_path: Path):
    strategies = [generic, json_huge, json_structural, json_structural]
    outcomes = fuzz(
        seeds["pir"],
        "inference.json",
        lambda d, r: r.choice(strategies)(d, r),
        MUTANTS["json"],
        tmp_path,
        CONVERSIONS,
        seed=2,
    )
    assert sum(outcomes.values()) == MUTANTS["json"]
    assert outcomes["refused"] and outcomes["converted"], outcomes


@pytest.mark.parametrize("fmt", ["legacy", "pir"])
def test_mutated_pdiparams_files(seeds: dict[str, Path], tmp_path: Path, fmt: str):
    data = (seeds[fmt] / "inference.pdiparams").read_bytes()
    fields = list(params_headers(data))
    strategies: list[Callable[[bytes, random.Random], bytes]] = [
        generic,
        lambda d, r: params_huge(d, r, fields),
    ]
    count = MUTANTS["pdiparams"] // 2
    outcomes = fuzz(
        seeds[fmt],
        "inference.pdiparams",
        lambda d, r: r.choice(strategies)(d, r),
        count,
        tmp_path,
        conversions=0,
        seed=3 if fmt == "legacy" else 4,
    )
    assert sum(outcomes.values()) == count
    assert outcomes["refused"] and outcomes["loaded"], outcomes
