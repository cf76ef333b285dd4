"""``python -m runtime_arm.tools.packaging [--out dist]`` (``make package``): the arm64 and armhf
.debs and the linux_aarch64 / linux_armv7l wheels, from the cross builds of ``make cross``."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from runtime_arm.tools.packaging.deb import build_deb
from runtime_arm.tools.packaging.targets import REPO, TARGETS
from runtime_arm.tools.packaging.wheel import build_wheel


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Raspberry Pi packages: .debs and wheels for arm64 / armhf")
    parser.add_argument("--out", type=Path, default=REPO / "dist")
    parser.add_argument("--cross-root", type=Path,
                        default=Path(os.environ.get("LITE_CROSS_BUILD_ROOT") or REPO / "build"),
                        help="where `make cross` built aarch64/ and armv7/ (default build/)")
    args = parser.parse_args(argv)
    for target in TARGETS.values():
        build = args.cross_root / target.cross_build
        deb = build_deb(target, build, args.out)
        wheel = build_wheel(target, build / "liblite_runtime.stripped.so", args.out)
        for path in (deb, wheel):
            print(f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path}: "
                  f"{path.stat().st_size / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
