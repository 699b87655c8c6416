"""`python -m benchmarks.corpus OUT_DIR`: write the tree, print its summary."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .generate import compare, generate
from .verify import verify


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--verify",
        action="store_true",
        help="re-parse the tree with ast and check it against the recorded ground truth",
    )
    args = parser.parse_args(argv)
    if args.files < 1:
        parser.error("--files must be at least 1")
    try:
        summary = generate(args.out_dir, files=args.files, seed=args.seed)
    except FileExistsError as e:
        print(f"corpus: {e}", file=sys.stderr)
        return 2
    report: dict[str, Any] = {"summary": summary, "vs_target": compare(summary)}
    if args.verify:
        report["verify"] = verify(args.out_dir)
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    if args.verify:
        v = report["verify"]
        if not (v["parse_failures_match"] and v["escape_warnings_match"] and v["allowlist_matches"]):
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
