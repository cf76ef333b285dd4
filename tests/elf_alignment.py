"""Page alignment of ELF shared libraries, read with ``readelf -lW`` (binutils; any target).

Android 15+ on 16 KB-page devices (and Raspberry Pi 5 kernels with 16 KB pages) maps a library only
if every PT_LOAD segment is aligned to at least 16 KB: p_align >= 16384 and a power of two, and
p_offset congruent to p_vaddr modulo p_align.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

PAGE_16K = 16384


def load_segments(path: Path) -> list[tuple[int, int, int]]:
    """(offset, virtual address, alignment) of every LOAD segment."""
    text = subprocess.run(["readelf", "-lW", str(path)], capture_output=True, text=True, check=True).stdout
    segments = []
    for line in text.splitlines():
        fields = line.split()
        if fields and fields[0] == "LOAD":
            segments.append((int(fields[1], 16), int(fields[2], 16), int(fields[-1], 16)))
    return segments


def alignment_problems(path: Path, page: int = PAGE_16K) -> list[str]:
    """What keeps the library from loading on ``page``-byte pages; [] when nothing does."""
    segments = load_segments(path)
    if not segments:
        return [f"{path}: no LOAD segments (not an ELF library?)"]
    problems = []
    for number, (offset, address, align) in enumerate(segments):
        if align < page or align & (align - 1):
            problems.append(f"{path}: LOAD segment {number} aligned to {align:#x}, needs >= {page:#x}")
        elif offset % align != address % align:
            problems.append(f"{path}: LOAD segment {number} offset {offset:#x} and address {address:#x} "
                            f"differ modulo {align:#x}")
    return problems


def main(argv: list[str] | None = None) -> int:
    """``python -m tests.elf_alignment LIB...``: prints one line per library, exit 1 on a problem."""
    import sys

    paths = [Path(arg) for arg in (sys.argv[1:] if argv is None else argv)]
    problems = [problem for path in paths for problem in alignment_problems(path)]
    for path in paths:
        if not any(problem.startswith(f"{path}:") for problem in problems):
            print(f"{path}: {len(load_segments(path))} LOAD segments, aligned for 16 KB pages")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
