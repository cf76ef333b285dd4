"""Mutation testing: applies each fault of tests/mutants/mutants.toml, one at a time, to a scratch copy
of the work tree, rebuilds what it touches and runs the tests that should notice it (``make mutants``).

A mutant is a one-line patch: ``file``, an ``original`` substring that must occur exactly once in that
file, its ``replacement``, a ``bug`` naming the fault it models, and ``tests``: a pytest selection from
``make test``'s tests. Its outcome:

* killed: the tests failed (pytest exit 1, or 2 when the mutant breaks collection);
* survived: they passed with the fault in place;
* timeout: they ran past the mutant's time limit;
* stale: ``original`` no longer matches exactly once (the code moved on: fix the list, never count it);
* error: the mutant did not compile, or pytest found no tests / was misused (exit 3, 4, 5).

The scratch copy (build/mutants/tree) holds the tracked and untracked-not-ignored files of this work
tree, copied only where they differ so its CMake build (build/mutants/tree/build/mutants, ccache as the
compiler launcher) stays incremental. Its tests load the scratch library (LITE_RUNTIME_LIBRARY), run the
kernel test executables and ``fuzz_models`` of the scratch build (LITE_ASAN_BUILD: a Release build with
the C tests, not the sanitizer build), its own cross builds (LITE_CROSS_BUILD_ROOT) and its own Python
packages (tests/mutants/site/sitecustomize.py removes the editable install's finder). Before the
mutants, every selection runs once on the unmutated copy: a selection that fails there proves nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parents[2]
MUTANTS_FILE = REPO / "tests" / "mutants" / "mutants.toml"
SITE_DIR = REPO / "tests" / "mutants" / "site"
SCRATCH = REPO / "build" / "mutants" / "tree"
BUILD_SUBDIR = Path("build") / "mutants"
RESULTS = REPO / "build" / "mutants" / "results.json"
NATIVE_SUFFIXES = (".c", ".cc", ".h", ".cmake", ".txt", ".fbs")
DEFAULT_TIMEOUT_S = 900
NICE = ["nice", "-n", str(max(0, 10 - os.nice(0)))]  # builds and tests at niceness 10 (shared machines)
PYTEST_KILLED = (1, 2)  # tests failed; collection or import broken by the mutant


@dataclass
class Mutant:
    """One fault: where, what it replaces, which bug it models, which tests should notice."""

    id: str
    file: str
    original: str
    replacement: str
    bug: str
    tests: list[str]
    audit: int | None = None
    timeout: int = DEFAULT_TIMEOUT_S

    @property
    def native(self) -> bool:
        return self.file.endswith(NATIVE_SUFFIXES)


@dataclass
class Outcome:
    """A mutant's result: status, seconds, and the first failing test or the reason."""

    mutant: str
    status: str
    seconds: float
    detail: str = ""
    audit: int | None = None
    extra: dict[str, str] = field(default_factory=dict)


def load_mutants(path: Path = MUTANTS_FILE) -> list[Mutant]:
    """The list, checked for duplicate ids and missing fields."""
    with path.open("rb") as handle:
        entries = tomllib.load(handle)["mutant"]
    mutants = [Mutant(**entry) for entry in entries]
    ids = [m.id for m in mutants]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise SystemExit(f"duplicate mutant ids: {duplicates}")
    for mutant in mutants:
        if not mutant.tests or mutant.original == mutant.replacement or "\n" in mutant.original:
            raise SystemExit(f"{mutant.id}: needs tests, and a one-line original that differs from its "
                             "replacement")
    return mutants


def tree_files(root: Path) -> list[str]:
    """Tracked and untracked-not-ignored files of the work tree (what a commit of it would hold)."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                         check=True, capture_output=True).stdout
    return sorted({name for name in out.decode().split("\0") if name and (root / name).is_file()})


def sync_scratch(source: Path, scratch: Path) -> int:
    """Copies the work tree into ``scratch`` where bytes differ (mtimes kept: builds stay incremental);
    removes files no longer in the tree (outside the scratch's build/ and .venv). Returns files copied."""
    files = tree_files(source)
    copied = 0
    for name in files:
        src, dst = source / name, scratch / name
        if dst.is_file() and dst.read_bytes() == src.read_bytes():
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
        copied += 1
    wanted = set(files)
    for path in scratch.rglob("*"):
        relative = path.relative_to(scratch)
        if relative.parts[0] in ("build", ".venv", ".pytest_cache") or "__pycache__" in relative.parts:
            continue
        if path.is_file() and str(relative) not in wanted:
            path.unlink()
    venv = scratch / ".venv"
    if not venv.exists():
        venv.symlink_to(source / ".venv")  # the Makefile's cross targets ask for .venv/.deps
    return copied


def build_env(scratch: Path) -> dict[str, str]:
    """The environment of builds and tests in the scratch copy."""
    env = dict(os.environ)
    build = scratch / BUILD_SUBDIR
    env.update({
        "PATH": f"{REPO / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        "PYTHONPATH": os.pathsep.join([str(SITE_DIR), str(scratch)]),
        "LITE_RUNTIME_LIBRARY": str(build / "runtime_arm" / "liblite_runtime.so"),
        "LITE_ASAN_BUILD": str(build),
        "LITE_CROSS_BUILD_ROOT": str(scratch / "build"),
        "CCACHE_BASEDIR": str(scratch),
        "PYTHONDONTWRITEBYTECODE": "1",
    })
    env.pop("LITE_REQUIRE_OPENCL", None)
    if shutil.which("ccache"):
        env["CMAKE_C_COMPILER_LAUNCHER"] = env["CMAKE_CXX_COMPILER_LAUNCHER"] = "ccache"
    return env


def build_targets(tests: list[str]) -> list[str]:
    """The CMake targets a selection runs: the runtime library, and the host kernel test executables
    it names (all of them for an unparametrized ``test_kernel_tests_on_host``)."""
    targets = ["lite_runtime"]
    for test in tests:
        match = re.search(r"test_kernel_tests_on_host(\[(\w+)\])?", test)
        if match:
            names = [match.group(2)] if match.group(2) else [
                p.stem for p in (REPO / "kernels_neon" / "tests").glob("test_*.c")]
            targets += [f"kernel_{name}" for name in names]
    return targets


def build(scratch: Path, env: dict[str, str], targets: list[str] | None = None) -> tuple[bool, str]:
    """Configures (once) and builds ``targets`` of the scratch copy (default: everything, C tests and
    tools included); (ok, log tail)."""
    build_dir = scratch / BUILD_SUBDIR
    steps = []
    if not (build_dir / "build.ninja").is_file():
        steps.append(["cmake", "-S", str(scratch), "-B", str(build_dir), "-G", "Ninja",
                      "-DCMAKE_BUILD_TYPE=Release", "-DLITE_BUILD_TOOLS=ON", "-DLITE_BUILD_JNI=OFF"])
    steps.append(["cmake", "--build", str(build_dir), "-j", str(os.cpu_count() or 2),
                  *(["--target", *targets] if targets else [])])
    for command in steps:
        proc = subprocess.run([*NICE, *command], env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            return False, (proc.stdout + proc.stderr)[-3000:]
    return True, ""


def run_tests(scratch: Path, env: dict[str, str], tests: list[str], timeout: int) -> tuple[int | None, str]:
    """pytest on ``tests`` in the scratch copy, stopping at the first failure; (exit code or None on
    timeout, output tail)."""
    command = [str(REPO / ".venv" / "bin" / "python"), "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
               "--no-header", "-rfEs", *tests]
    proc = subprocess.Popen([*NICE, *command], cwd=scratch, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        output, _ = proc.communicate()
        return None, output[-3000:]
    return proc.returncode, output[-3000:]


def summary_line(output: str) -> str:
    """pytest's closing line ("12 passed, 1 skipped in 3.4s")."""
    lines = [line.strip("= ") for line in output.splitlines() if " in " in line and "passed" in line]
    return lines[-1] if lines else ""


def first_failure(output: str) -> str:
    """The first failing test's id (pytest's short summary), or the last line."""
    for line in output.splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            return line.split(" - ")[0]
    lines = [line for line in output.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def check_imports(scratch: Path, env: dict[str, str]) -> None:
    """The scratch copy's packages, not the editable install's, are what its tests import."""
    code = ("import lite_converter, slim, runtime_arm; "
            "print(lite_converter.__file__, slim.__file__, runtime_arm.__file__)")
    out = subprocess.run([str(REPO / ".venv" / "bin" / "python"), "-c", code], cwd=scratch, env=env,
                         capture_output=True, text=True, check=True).stdout.split()
    outside = [path for path in out if Path(path).resolve().parents[1] != scratch.resolve()]
    if outside:
        raise SystemExit(f"the scratch copy's tests would import {outside} (the editable finder)")


def is_stale(scratch: Path, mutant: Mutant) -> bool:
    """True when the mutant's original text is not in its file exactly once."""
    path = scratch / mutant.file
    return not path.is_file() or path.read_text().count(mutant.original) != 1


def apply(scratch: Path, mutant: Mutant) -> str | None:
    """Writes the mutant into the scratch copy; returns the original text, or None when stale."""
    if is_stale(scratch, mutant):
        return None
    path = scratch / mutant.file
    text = path.read_text()
    path.write_text(text.replace(mutant.original, mutant.replacement))
    return text


def run_mutant(scratch: Path, env: dict[str, str], mutant: Mutant) -> Outcome:
    """Applies, rebuilds, tests and reverts one mutant."""
    start = time.monotonic()
    original = apply(scratch, mutant)
    if original is None:
        return Outcome(mutant.id, "stale", 0.0, f"'{mutant.original}' is not in {mutant.file} exactly once",
                       mutant.audit)
    try:
        if mutant.native:
            ok, log = build(scratch, env, build_targets(mutant.tests))
            if not ok:
                errors = [line for line in log.splitlines() if "error" in line]
                return Outcome(mutant.id, "error", time.monotonic() - start,
                               "build failed: " + (errors[0] if errors else log[-200:]).strip(), mutant.audit)
        code, output = run_tests(scratch, env, mutant.tests, mutant.timeout)
    finally:
        (scratch / mutant.file).write_text(original)
    seconds = time.monotonic() - start
    if code is None:
        return Outcome(mutant.id, "timeout", seconds, f"> {mutant.timeout} s", mutant.audit)
    tail = {"output_tail": output[-1500:]}
    if code in PYTEST_KILLED:
        return Outcome(mutant.id, "killed", seconds, first_failure(output), mutant.audit, tail)
    if code < 0:  # the tests crashed (a signal): the fault was noticed
        return Outcome(mutant.id, "killed", seconds, f"crashed (signal {-code})", mutant.audit, tail)
    if code == 0:
        return Outcome(mutant.id, "survived", seconds, summary_line(output), mutant.audit, tail)
    return Outcome(mutant.id, "error", seconds, f"pytest exit {code}: {first_failure(output)}", mutant.audit)


def baseline(scratch: Path, env: dict[str, str], mutants: list[Mutant]) -> None:
    """Every distinct selection passes on the unmutated copy (else its 'killed' would mean nothing)."""
    selections: dict[tuple[str, ...], int] = {}
    for mutant in mutants:
        key = tuple(mutant.tests)
        selections[key] = max(selections.get(key, 0), mutant.timeout)
    tests = sorted({test for key in selections for test in key})
    start = time.monotonic()
    code, output = run_tests(scratch, env, tests, sum(selections.values()))
    if code != 0:
        raise SystemExit(f"baseline: the unmutated tests do not pass (exit {code}):\n{output}")
    if "skipped" in summary_line(output):  # a skipped test cannot kill anything
        raise SystemExit(f"baseline: selected tests skip: {summary_line(output)}\n{output}")
    print(f"baseline: {len(tests)} test ids of {len(selections)} selections pass unmutated "
          f"({time.monotonic() - start:.0f} s)", flush=True)


def print_table(outcomes: list[Outcome], wall: float) -> float:
    """mutant / status / seconds / detail, then the killed figure; returns the killed percentage."""
    width = max(len(o.mutant) for o in outcomes)
    print(f"\n{'mutant':<{width}}  {'status':<8}  {'s':>6}  detail")
    for o in outcomes:
        tag = f" (audit {o.audit})" if o.audit else ""
        print(f"{o.mutant:<{width}}  {o.status:<8}  {o.seconds:6.0f}  {o.detail}{tag}")
    counted = [o for o in outcomes if o.status in ("killed", "survived", "timeout")]
    killed = sum(o.status == "killed" for o in outcomes)
    share = 100.0 * killed / len(counted) if counted else 0.0
    others = {s: sum(o.status == s for o in outcomes) for s in ("survived", "timeout", "stale", "error")}
    print(f"\nkilled {killed}/{len(counted)} ({share:.1f}%); "
          + ", ".join(f"{k} {v}" for k, v in others.items()) + f"; wall {wall / 60:.1f} min")
    return share


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="comma-separated mutant ids (or id prefixes) to run")
    parser.add_argument("--list", action="store_true", help="print the mutants and exit")
    parser.add_argument("--no-baseline", action="store_true", help="skip the unmutated run of the selections")
    parser.add_argument("--fresh", action="store_true", help="delete the scratch copy and its build first")
    parser.add_argument("--min-killed", type=float, default=95.0,
                        help="fail when fewer than this percentage of the mutants run are killed")
    args = parser.parse_args(argv)

    mutants = load_mutants()
    if args.only:
        wanted = [w.strip() for w in args.only.split(",") if w.strip()]
        mutants = [m for m in mutants if any(m.id == w or m.id.startswith(w) for w in wanted)]
        if not mutants:
            raise SystemExit(f"no mutant matches {args.only}")
    if args.list:
        for m in mutants:
            print(f"{m.id}: {m.file}: {m.bug}")
        return 0

    wall = time.monotonic()
    if args.fresh and SCRATCH.exists():
        shutil.rmtree(SCRATCH)
    SCRATCH.mkdir(parents=True, exist_ok=True)
    print(f"scratch copy {SCRATCH}: {sync_scratch(REPO, SCRATCH)} files updated", flush=True)
    env = build_env(SCRATCH)
    check_imports(SCRATCH, env)
    ok, log = build(SCRATCH, env)
    if not ok:
        raise SystemExit(f"the unmutated scratch copy does not build:\n{log}")
    stale = {m.id for m in mutants if is_stale(SCRATCH, m)}
    if not args.no_baseline:
        baseline(SCRATCH, env, [m for m in mutants if m.id not in stale])

    outcomes = []
    for index, mutant in enumerate(mutants, 1):
        outcome = run_mutant(SCRATCH, env, mutant)
        outcomes.append(outcome)
        print(f"[{index}/{len(mutants)}] {outcome.mutant}: {outcome.status} ({outcome.seconds:.0f} s) "
              f"{outcome.detail}", flush=True)
    if any(m.native for m in mutants):
        build(SCRATCH, env)  # leave the scratch build matching the unmutated tree
    wall = time.monotonic() - wall
    share = print_table(outcomes, wall)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"wall_s": wall, "outcomes": [o.__dict__ for o in outcomes]}, indent=1))
    bad = [o for o in outcomes if o.status in ("stale", "error")]
    return 1 if bad or share < args.min_killed else 0


if __name__ == "__main__":
    sys.exit(main())
