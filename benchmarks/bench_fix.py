"""Benchmark of `hwlint fix` against a plain libcst round trip.

    python benchmarks/bench_fix.py        # 2,000-file tree, 3 rounds: a few minutes

Generates the synthetic tree (benchmarks/corpus.py, seed 0), then, alternating
in each round: `python -m hwlint fix` on a fresh copy of the tree, as a user
runs it (everything: discovery, checking every file — in a process pool, as
by default —, inference, the libcst rewrite of each file to fix, one after
the other, verification, atomic writes, allowlist pruning), and a plain
`libcst.parse_module(data).bytes` round trip of the files that fix changed,
in one process. It prints the time per fixed file of each and their ratio,
and exits 1 when fixing costs more than 1.5× the round trip.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.corpus import generate  # noqa: E402

TARGET = 1.5

ROUND_TRIP = """
import sys, time
import libcst
paths = sys.argv[1:]
start = time.perf_counter()
for path in paths:
    with open(path, "rb") as fh:
        data = fh.read()
    assert libcst.parse_module(data).bytes == data
print(time.perf_counter() - start)
"""


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.py")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hwlint-bench-fix-") as tmp:
        source = Path(tmp) / "tree"
        generate(source, files=args.files, seed=0)
        before = snapshot(source)
        fix_times: list[float] = []
        trip_times: list[float] = []
        fixed: list[str] = []
        for round_ in range(args.runs):
            work = Path(tmp) / f"run{round_}"
            shutil.copytree(source, work)
            start = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "hwlint", "fix"], cwd=work,
                                  capture_output=True, text=True)
            fix_times.append(time.perf_counter() - start)
            if proc.returncode not in (0, 1):
                print(proc.stderr, file=sys.stderr)
                return 2
            after = snapshot(work)
            fixed = sorted(p for p in before if after.get(p) != before[p])
            # The round trip of the same files, as they were before the fix.
            trip = subprocess.run([sys.executable, "-c", ROUND_TRIP, *[str(source / p) for p in fixed]],
                                  capture_output=True, text=True, check=True)
            trip_times.append(float(trip.stdout))
            shutil.rmtree(work)
        n = max(len(fixed), 1)
        fix_per = statistics.median(fix_times) / n
        trip_per = statistics.median(trip_times) / n
        ratio = fix_per / trip_per
        print(f"hwlint fix on {args.files} files: {len(fixed)} files fixed, medians of {args.runs} rounds")
        print(f"  hwlint fix (whole command)        {statistics.median(fix_times):8.2f} s   {1000 * fix_per:7.1f} ms per fixed file")
        print(f"  libcst parse_module + .bytes      {statistics.median(trip_times):8.2f} s   {1000 * trip_per:7.1f} ms per fixed file")
        verdict = "PASS" if ratio <= TARGET else "FAIL"
        print(f"{verdict}  fix / round trip  {ratio:.2f}×  (target ≤ {TARGET}×)")
        return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
