"""A CI checkout with hwlint's cache restored, against a cold one (docs/ci.md).

    python benchmarks/bench_ci_cache.py --project DIR [--runs 3] [--jobs N] [--json FILE]

DIR is a project (its pyproject.toml's `[tool.hwlint]` says which files are
tests). Each round, as a CI runner does:

1. a fresh copy of DIR ("the checkout": every file new, with a new mtime,
   at a path of its own) runs `hwlint check` with the cache, which fills
   `.hwlint_cache`; the folder is archived with `tar`, as
   `actions/cache/save` does;
2. another fresh copy, at another path, runs `hwlint check --no-cache`:
   the cold run;
3. a third fresh copy, at yet another path, gets the archive unpacked at its
   root (`actions/cache/restore`) and runs `hwlint check`: the warm run.

It prints the medians of both runs' wall time and their ratio, and checks
that the warm run's stdout, stderr and exit status are the cold run's (the
output names no path outside the project). Issue 34's target: warm <= 0.05x
cold. Exits 1 if an output differs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Sequence

TARGET = 0.05


def checkout(project: Path, where: Path) -> Path:
    """A copy of the project as a fresh clone has it: new files, new mtimes."""
    shutil.copytree(project, where, copy_function=shutil.copyfile, ignore=shutil.ignore_patterns(".hwlint_cache"))
    return where


def check(root: Path, args: Sequence[str], env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "hwlint", "check", *args], cwd=root, env=env, capture_output=True, text=True
    )
    return time.perf_counter() - start, proc


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    env = {k: v for k, v in os.environ.items() if k not in ("HWLINT_CACHE_DIR", "HWLINT_NO_CACHE")}
    env["NO_COLOR"] = "1"
    extra = ["--exit-zero"] + ([f"-j{args.jobs}"] if args.jobs else [])
    cold_s: list[float] = []
    warm_s: list[float] = []
    same = True
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        for round_ in range(args.runs):
            first = checkout(args.project, base / f"r{round_}" / "first")
            check(first, extra, env)
            archive = base / f"r{round_}" / "cache.tar"
            with tarfile.open(archive, "w", format=tarfile.PAX_FORMAT) as tar:
                tar.add(first / ".hwlint_cache", arcname=".hwlint_cache")
            cold_root = checkout(args.project, base / f"r{round_}" / "cold")
            cold_time, cold = check(cold_root, ["--no-cache", *extra], env)
            warm_root = checkout(args.project, base / f"r{round_}" / "warm")
            with tarfile.open(archive) as tar:
                tar.extractall(warm_root, filter="data")
            warm_time, warm = check(warm_root, extra, env)
            if (warm.stdout, warm.stderr, warm.returncode) != (cold.stdout, cold.stderr, cold.returncode):
                same = False
            cold_s.append(cold_time)
            warm_s.append(warm_time)
    cold_m, warm_m = statistics.median(cold_s), statistics.median(warm_s)
    ratio = warm_m / cold_m
    verdict = "PASS" if ratio <= TARGET and same else "FAIL"
    print(f"{args.project}: {args.runs} rounds, medians")
    print(f"  cold checkout, --no-cache     {cold_m:8.3f} s")
    print(f"  checkout, cache restored      {warm_m:8.3f} s")
    print(f"  restored / cold: {ratio:.3f}x (target <= {TARGET}x); same output: {same}: {verdict}")
    if args.json:
        args.json.write_text(json.dumps({"cold_s": cold_s, "warm_s": warm_s, "ratio": ratio, "same": same}) + "\n")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
