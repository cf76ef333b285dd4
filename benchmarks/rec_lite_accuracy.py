"""Character accuracy of saved PP-OCRv4 rec ``.lite`` files against fp32 on rendered hard lines of one seed.

For figures of a model trained once (``int8_qat`` written by benchmarks/int8_hard_data.py into its
``--folder``) on another seed than the one it was measured on, e.g. the held-out seed 4404:

    .venv/bin/python -m benchmarks.rec_lite_accuracy --seed 4404 --lines 1000 \
        /tmp/int8_hard_data/rec_int8_qat.lite
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.int8_hard_data import fp32_bytes, rec_accuracy
from tests.datasets import text_lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+", type=Path)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--skip", type=int, default=0, help="the lines after the first this many of the seed")
    parser.add_argument("--folder", type=Path, default=Path("/tmp/int8_hard_data"))
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    crops, truths = text_lines.render_lines(args.seed, args.skip + args.lines)
    crops, truths = crops[args.skip:], truths[args.skip:]
    inputs = text_lines.rec_input(crops)
    chinese = sum(any(ord(c) > 0x2E80 for c in t) for t in truths)
    reference = rec_accuracy(fp32_bytes("rec", args.folder), inputs, truths)
    print(f"{args.lines} lines ({100 * chinese / args.lines:.0f}% Chinese), seed {args.seed} "
          f"from line {args.skip}; fp32 {reference:.2f}")
    for path in args.models:
        score = rec_accuracy(path.read_bytes(), inputs, truths)
        print(f"{path}: {score:.2f} ({score - reference:+.2f})", flush=True)


if __name__ == "__main__":
    main()
