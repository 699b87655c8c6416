"""This checkout's hwlint against an earlier revision's, on real trees, in one run.

    python benchmarks/bench_ab.py --ref 7e40596 --tree /path/to/test [--tree ...] [--rounds 5]

How a change moved the cold run (`check --no-cache`, every file parsed):
the revision `--ref` is exported from this repository's git history to a
temporary folder (`git archive`), and both are run as `python -m hwlint`
from their sources (PYTHONPATH), on one project holding a copy of every
tree's Python files under `test/` (default include, no configuration), with
`--jobs` processes. Runs alternate within each round and their order
rotates, so that a change in the machine's load hits both alike; figures
are medians over rounds, wall time and CPU time (user + sys of the process
tree: `getrusage(RUSAGE_CHILDREN)`).

With `--one-file N`, also N runs a round of `check FILE` on one
median-size test file of the project, with the cache on (each side its own
folder, filled first), as an editor's save or a pre-commit hook runs it.

Prints both, and the ratio (this / ref) for wall and CPU; exits 1 when a
CPU ratio exceeds --target (default 1.05: within 5%).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def export(ref: str, into: Path) -> Path:
    """The revision's `hwlint` package, from git (never the working tree)."""
    archive = into / "ref.tar"
    subprocess.run(["git", "-C", str(REPO), "archive", "-o", str(archive), ref, "hwlint"], check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into / "ref", filter="data")
    return into / "ref"


def project(trees: list[Path], into: Path) -> Path:
    """One project: each tree's `*.py` files under test/<n>/, nothing else."""
    root = into / "project"
    for n, tree in enumerate(trees):
        for path in tree.rglob("*.py"):
            target = root / "test" / str(n) / path.relative_to(tree)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    (root / ".git").mkdir(parents=True)  # the project root, without git's cost
    return root


def median_file(root: Path) -> str:
    """A test file of median size, relative to the project."""
    files = sorted(root.rglob("test_*.py"), key=lambda p: (p.stat().st_size, str(p)))
    return files[len(files) // 2].relative_to(root).as_posix()


def run(
    source: Path, root: Path, jobs: int, one_file: str | None = None, cache: Path | None = None
) -> tuple[float, float]:
    """(wall, CPU) seconds of one cold `check` of the project, or of `check
    one_file` with the cache in `cache`."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    if one_file is None:
        env["HWLINT_NO_CACHE"] = "1"
        args = ["check", "--no-cache", "--exit-zero", "--jobs", str(jobs), "--format", "json", "-o", os.devnull]
    else:
        env.pop("HWLINT_NO_CACHE", None)
        env["HWLINT_CACHE_DIR"] = str(cache)
        args = ["check", "--exit-zero", one_file]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "hwlint", *args], cwd=root, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"hwlint from {source} failed: {done.stderr.strip()[-500:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ref", required=True, help="the git revision to compare with")
    parser.add_argument("--tree", type=Path, action="append", required=True, help="a folder of test files")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--target", type=float, default=1.05, help="the most this / ref CPU may be")
    parser.add_argument("--one-file", type=int, default=0, help="runs a round of `check FILE`, cache warm")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="hwlint-ab-") as tmp:
        work = Path(tmp)
        sides = {"this": REPO, args.ref: export(args.ref, work)}
        root = project(args.tree, work)
        for source in sides.values():
            run(source, root, args.jobs)  # warm the OS's file cache and the bytecode
        figures: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
        one: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
        target = median_file(root)
        caches = {name: work / f"cache-{n}" for n, name in enumerate(sides)}
        if args.one_file:
            for name, source in sides.items():
                run(source, root, args.jobs, target, caches[name])  # the cache filled
        names = list(sides)
        for n in range(args.rounds):
            for name in names[n % 2 :] + names[: n % 2]:
                figures[name].append(run(sides[name], root, args.jobs))
            for _ in range(args.one_file):
                for name in names[n % 2 :] + names[: n % 2]:
                    one[name].append(run(sides[name], root, args.jobs, target, caches[name]))
    files = sum(1 for tree in args.tree for _ in tree.rglob("*.py"))
    print(f"{files} files, {args.rounds} rounds, --jobs {args.jobs}; medians")
    verdicts = [_compare("cold check", figures, args.ref, args.target)]
    if args.one_file:
        verdicts.append(_compare(f"check {target} (cache warm)", one, args.ref, args.target))
    return 0 if all(verdicts) else 1


def _compare(what: str, figures: dict[str, list[tuple[float, float]]], ref: str, target: float) -> bool:
    """Print the medians of both sides and their ratio; whether the CPU ratio is within the target."""
    print(what)
    medians = {
        name: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
        for name, runs in figures.items()
    }
    for name, (wall, cpu) in medians.items():
        print(f"  {name:<12} wall {wall:7.3f} s   CPU {cpu:7.3f} s")
    wall_ratio = medians["this"][0] / medians[ref][0]
    cpu_ratio = medians["this"][1] / medians[ref][1]
    verdict = cpu_ratio <= target
    print(
        f"  this / {ref}: wall {wall_ratio:.3f}x, CPU {cpu_ratio:.3f}x (target <= {target}x): "
        f"{'PASS' if verdict else 'FAIL'}"
    )
    return verdict


if __name__ == "__main__":
    sys.exit(main())
