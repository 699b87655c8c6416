"""Benchmark of `hwlint fix` against a plain libcst round trip.

    python benchmarks/bench_fix.py        # 2,000-file tree, 3 rounds: a few minutes
    python benchmarks/bench_fix.py --tree PATH [--tree PATH ...]   # real test trees (outside the repository)

Generates the synthetic tree (benchmarks/corpus/, seed 0), then, alternating
in each round: `python -m hwlint fix` on a fresh copy of the tree, as a user
runs it (everything: discovery, checking every file — in a process pool, as
by default —, inference, the libcst rewrite of each file to fix, one after
the other, verification, atomic writes, allowlist pruning), and a plain
`libcst.parse_module(data).bytes` round trip of the files that fix changed,
in one process. It prints the time per fixed file of each and their ratio
(wall, and CPU: user + sys of every process), and exits 1 when fixing costs
more than the target (1.5×; 1.2× on real trees, which fix fewer, bigger
files) times the round trip.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

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


def copy_trees(trees: list[str], project: Path) -> None:
    """A project holding the Python files of `trees` (under tree/<name>/), checked by their test-file names."""
    from bench_vs_test_linter import copy_python_files  # the benchmarks' shared helpers

    for tree in trees:
        origin = Path(tree).resolve()
        if origin == HERE.parent or HERE.parent in origin.parents:
            sys.exit(f"{origin} is inside the repository: keep real trees outside it")
        copy_python_files(origin, project, Path("tree") / origin.name)
    (project / "pyproject.toml").write_text('[tool.hwlint]\ninclude = ["tree/**/test_*.py", "tree/**/*_test.py"]\n')


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tree", action="append", default=[], help="a real test tree to fix instead (repeatable)")
    parser.add_argument("--target", type=float, help="the ratio to meet (default: 1.5, or 1.2 with --tree)")
    args = parser.parse_args()
    target = args.target or (1.2 if args.tree else TARGET)
    with tempfile.TemporaryDirectory(prefix="hwlint-bench-fix-") as tmp:
        source = Path(tmp) / "tree"
        if args.tree:
            copy_trees(args.tree, source)
        else:
            generate(source, files=args.files, seed=0)
        before = snapshot(source)
        fix_times: list[float] = []
        trip_times: list[float] = []
        fix_cpus: list[float] = []
        trip_cpus: list[float] = []
        fixed: list[str] = []
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "HWLINT_CACHE_DIR")}
        for round_ in range(args.runs):
            work = Path(tmp) / f"run{round_}"
            shutil.copytree(source, work)
            start, cpu = time.perf_counter(), _cpu()
            proc = subprocess.run(
                [sys.executable, "-m", "hwlint", "fix"], cwd=work, capture_output=True, text=True, env=env
            )
            fix_times.append(time.perf_counter() - start)
            fix_cpus.append(_cpu() - cpu)
            if proc.returncode not in (0, 1):
                print(proc.stderr, file=sys.stderr)
                return 2
            after = snapshot(work)
            fixed = sorted(p for p in before if after.get(p) != before[p])
            # The round trip of the same files, as they were before the fix.
            cpu = _cpu()
            trip = subprocess.run(
                [sys.executable, "-c", ROUND_TRIP, *[str(source / p) for p in fixed]],
                capture_output=True,
                text=True,
                check=True,
                env=env,
            )
            trip_times.append(float(trip.stdout))
            trip_cpus.append(_cpu() - cpu)
            shutil.rmtree(work)
        n = max(len(fixed), 1)
        fix_per = statistics.median(fix_times) / n
        trip_per = statistics.median(trip_times) / n
        ratio = fix_per / trip_per
        cpu_ratio = statistics.median(fix_cpus) / statistics.median(trip_cpus)
        what = ", ".join(args.tree) if args.tree else f"{args.files} generated files"
        print(
            f"hwlint fix on {len(before)} Python files ({what}): {len(fixed)} files fixed, medians of {args.runs} rounds"
        )
        print(
            f"  hwlint fix (whole command)        {statistics.median(fix_times):8.2f} s   {1000 * fix_per:7.1f} ms per fixed file"
            f"   CPU {statistics.median(fix_cpus):7.2f} s"
        )
        print(
            f"  libcst parse_module + .bytes      {statistics.median(trip_times):8.2f} s   {1000 * trip_per:7.1f} ms per fixed file"
            f"   CPU {statistics.median(trip_cpus):7.2f} s (with start-up)"
        )
        verdict = "PASS" if ratio <= target else "FAIL"
        print(f"{verdict}  fix / round trip  {ratio:.2f}× wall, {cpu_ratio:.2f}× CPU  (target ≤ {target}×, wall)")
        return 0 if ratio <= target else 1


if __name__ == "__main__":
    sys.exit(main())
