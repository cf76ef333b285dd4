"""The two Raspberry Pi targets: Debian's architecture names, toolchains and the project version."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


@dataclasses.dataclass(frozen=True)
class Target:
    """One ARM target as Debian, the cross build, qemu and Python's wheel tags name it."""

    debian_arch: str  # arm64 / armhf
    cross_build: str  # the Makefile's build folder: aarch64 / armv7
    triplet: str  # multiarch library folder and compiler prefix
    qemu: str
    qemu_cpu: str  # a Raspberry Pi core: Pi 4's Cortex-A72; Pi 2/3 class Cortex-A7 for 32-bit
    wheel_platform: str
    cflags: tuple[str, ...] = ()


TARGETS = {
    "arm64": Target("arm64", "aarch64", "aarch64-linux-gnu", "qemu-aarch64", "cortex-a72", "linux_aarch64"),
    "armhf": Target("armhf", "armv7", "arm-linux-gnueabihf", "qemu-arm", "cortex-a7", "linux_armv7l",
                    ("-march=armv7-a", "-mfpu=neon-vfpv4", "-mfloat-abi=hard")),
}


def version() -> str:
    """The project version (pyproject.toml), which the runtime's CMake project also carries."""
    text = (REPO / "pyproject.toml").read_text()
    match = re.search(r'^version = "([^"]+)"', text, re.MULTILINE)
    if match is None:
        raise RuntimeError("no version in pyproject.toml")
    return match.group(1)
