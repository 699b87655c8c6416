"""hwlint against PyTorch's own TEST_LINTER, on a real tree, in one run.

    python benchmarks/bench_vs_test_linter.py --test-linter /path/to/test_linter.py --tree /path/to/test

Both paths are outside this repository: TEST_LINTER is PyTorch's script
(tools/linter/adapters/test_linter.py), never copied into this repository;
the tree is a folder of test files (e.g. an accelerator backend's `test/`).

Everything runs in a temporary folder: a project holding a copy of the
tree's Python files, hwlint installed from this repository with pip into a
virtual environment of its own (a regular install, not an editable one: as
users have it), and TEST_LINTER as lintrunner runs it, `python
tools/linter/adapters/test_linter.py @PATHSFILE` with every test file (named
`test_*.py` or `*_test.py`), its allowlist (`test_linter_allowlist.json`
beside it) an empty list.

Scenarios alternate within each round (their order rotates from round to
round, so that a change in the machine's load hits all of them alike);
figures are medians over rounds:

- TEST_LINTER: every test file (wall time);
- hwlint cold: `check --no-cache`, and `check` with an empty cache (it fills
  it);
- hwlint warm: `check` again, nothing changed;
- one file: `hwlint check FILE` (a median-size test file, just edited)
  paired with the interpreter's start-up (`python -c "import ast"`), --pairs
  pairs per round; the ratio is the median of the pairs' ratios;
- parse-only: read and `ast.parse` each test file, nothing else, in 2
  processes with the garbage collector off: the least a checker that parses
  every file can cost. hwlint's CPU time (user + sys of the processes it
  started and waited for, `getrusage(RUSAGE_CHILDREN)`) is compared with its
  CPU time;
- peak memory (in runs of their own): the proportional set size summed over
  the process tree, sampled every 5 ms (psutil).

It prints the table, the ratios with PASS/FAIL per target, and exits 1 if a
target is missed. `--json FILE` writes the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Sequence

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from bench_check import _environment, peak_memory  # noqa: E402  (the benchmarks' shared helpers)

TARGETS = {
    "cold CPU / parse-only CPU": 1.15,
    "cold wall / TEST_LINTER wall": 0.9,
    "warm wall / TEST_LINTER wall": 0.03,
    "one file / interpreter start-up": 1.3,
    "peak memory (MB)": 150.0,
}

# The least a checker that parses every file costs: read and parse, in 2
# processes, the garbage collector off. Run as a script of its own.
PARSE_ONLY = """
import ast, gc, os, sys, warnings
from concurrent.futures import ProcessPoolExecutor

def parse(paths):
    gc.disable()
    warnings.simplefilter("ignore")
    for path in paths:
        with open(path, "rb") as fh:
            ast.parse(fh.read())
    return len(paths)

if __name__ == "__main__":
    paths = open(sys.argv[1], encoding="utf-8").read().split("\\n")
    paths = sorted((p for p in paths if p), key=os.path.getsize, reverse=True)
    shares = [paths[0::2], paths[1::2]]
    with ProcessPoolExecutor(2) as pool:
        print(sum(pool.map(parse, shares)))
"""


class Run:
    def __init__(self, wall: float, cpu: float, returncode: int, stdout: str) -> None:
        self.wall = wall
        self.cpu = cpu
        self.returncode = returncode
        self.stdout = stdout


def measured(cmd: Sequence[str], cwd: Path, env: dict[str, str]) -> Run:
    """Wall time, and CPU time of every process the command started and waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(list(cmd), cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(wall, cpu, proc.returncode, proc.stdout)


def _is_test_file(name: str) -> bool:
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def copy_python_files(tree: Path, project: Path, under: Path) -> list[str]:
    """Copy the tree's Python files (hidden folders left out) to
    `project/under`; the test files' paths, relative to the project."""
    tests: list[str] = []
    for folder, dirs, files in os.walk(tree):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        rel = Path(folder).relative_to(tree)
        for name in sorted(files):
            if name.endswith(".py"):
                target = project / under / rel / name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(Path(folder) / name, target)
                if _is_test_file(name):
                    tests.append((under / rel / name).as_posix())
    return tests


def make_project(tree: Path, project: Path, test_linter: Path) -> list[str]:
    """A project holding the tree's Python files under `tree/`, with
    TEST_LINTER at tools/linter/adapters/ (empty allowlist) and hwlint's
    settings; the test files' paths, relative to the project."""
    tests = copy_python_files(tree, project, Path("tree"))
    adapters = project / "tools" / "linter" / "adapters"
    adapters.mkdir(parents=True)
    shutil.copyfile(test_linter, adapters / "test_linter.py")
    (adapters / "test_linter_allowlist.json").write_text("[]\n")
    (project / "pyproject.toml").write_text('[tool.hwlint]\ninclude = ["tree/**/test_*.py", "tree/**/*_test.py"]\n')
    (project / "paths.txt").write_text("\n".join(tests) + "\n")
    return tests


def install(venv: Path) -> Path:
    """hwlint from this repository, installed with pip (not editable) into `venv`."""
    python = venv / "bin" / "python"
    if not python.is_file():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(REPO), "psutil"], check=True)
    # This repository's code as it is now, even where the version is the same.
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--force-reinstall", "--no-deps", str(REPO)], check=True)
    return python


def _edit(path: Path, tag: str) -> bytes:
    original = path.read_bytes()
    path.write_bytes(original + f"# benchmark edit {tag}\n".encode())
    return original


def run(args: argparse.Namespace) -> int:
    tree = Path(args.tree).resolve()
    test_linter = Path(args.test_linter).resolve()
    for outside in (tree, test_linter):
        if outside == REPO or REPO in outside.parents:
            sys.exit(f"{outside} is inside the repository: keep TEST_LINTER and the tree outside it")
    if not args.skip_memory:
        try:
            import psutil  # noqa: F401  (peak memory is sampled with it, after the timed rounds)
        except ImportError:
            sys.exit(
                "peak memory needs psutil: `pip install psutil` (or `pip install -e '.[test]'`), or pass --skip-memory"
            )
    work = Path(tempfile.mkdtemp(prefix="hwlint-vs-test-linter-"))
    try:
        project = work / "project"
        tests = make_project(tree, project, test_linter)
        size = sum((project / t).stat().st_size for t in tests)
        print(f"{len(tests)} test files ({size / 1e6:.1f} MB) from {tree}", file=sys.stderr)
        venv = Path(args.venv) if args.venv else work / "venv"
        print(f"installing hwlint from {REPO} into {venv} ...", file=sys.stderr)
        python = str(install(venv))
        env = _environment(work / "pycache")
        cache = work / "cache"
        hwlint = [str(venv / "bin" / "hwlint"), "check", "--exit-zero"]
        cold_no_cache = hwlint + ["--no-cache"]
        cached = hwlint + ["--cache-dir", str(cache)]
        linter = [python, "tools/linter/adapters/test_linter.py", "@paths.txt"]
        (work / "parse_only.py").write_text(PARSE_ONLY)
        parse_only = [python, str(work / "parse_only.py"), "paths.txt"]
        startup = [python, "-c", "import ast"]
        ordered = sorted(tests, key=lambda t: ((project / t).stat().st_size, t))
        one_rel = ordered[len(ordered) // 2]
        one = project / one_rel

        # Warm up: bytecode, the page cache.
        for cmd in (linter, cold_no_cache, cached, cached + [one_rel], parse_only, startup):
            measured(cmd, project, env)

        walls: dict[str, list[float]] = {
            k: []
            for k in (
                "TEST_LINTER",
                "parse-only",
                "cold, --no-cache",
                "cold, empty cache",
                "warm",
                "one file",
                "start-up",
            )
        }
        cpus: dict[str, list[float]] = {k: [] for k in walls}
        outputs: dict[str, set[str]] = {"hwlint": set()}

        def record(name: str, result: Run) -> None:
            walls[name].append(result.wall)
            cpus[name].append(result.cpu)
            if name in ("cold, --no-cache", "cold, empty cache", "warm"):
                outputs["hwlint"].add(result.stdout)

        def cold_then_warm() -> None:
            shutil.rmtree(cache, ignore_errors=True)
            record("cold, empty cache", measured(cached, project, env))
            record("warm", measured(cached, project, env))

        def one_file() -> None:
            for pair in range(args.pairs):
                if pair % 2:
                    record("start-up", measured(startup, project, env))
                original = _edit(one, f"{pair}")
                try:
                    record("one file", measured(cached + [one_rel], project, env))
                finally:
                    one.write_bytes(original)
                if not pair % 2:
                    record("start-up", measured(startup, project, env))

        scenarios: list[Callable[[], None]] = [
            lambda: record("TEST_LINTER", measured(linter, project, env)),
            lambda: record("parse-only", measured(parse_only, project, env)),
            lambda: record("cold, --no-cache", measured(cold_no_cache, project, env)),
            cold_then_warm,
            one_file,
        ]
        for round_ in range(args.rounds):
            print(f"round {round_ + 1}/{args.rounds} ...", file=sys.stderr)
            shift = round_ % len(scenarios)
            for scenario in scenarios[shift:] + scenarios[:shift]:
                scenario()

        memory: dict[str, float] = {}
        if not args.skip_memory:
            memory["TEST_LINTER"] = peak_memory(linter, project, env)[0]
            memory["parse-only"] = peak_memory(parse_only, project, env)[0]
            memory["cold, --no-cache"] = peak_memory(cold_no_cache, project, env)[0]
            shutil.rmtree(cache, ignore_errors=True)
            memory["cold, empty cache"] = peak_memory(cached, project, env)[0]
            memory["warm"] = peak_memory(cached, project, env)[0]
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    wall = {k: statistics.median(v) for k, v in walls.items()}
    cpu = {k: statistics.median(v) for k, v in cpus.items()}
    one_pairs = statistics.median([a / b for a, b in zip(walls["one file"], walls["start-up"])])
    ratios = {
        "cold CPU / parse-only CPU": max(cpu["cold, --no-cache"], cpu["cold, empty cache"]) / cpu["parse-only"],
        "cold wall / TEST_LINTER wall": max(wall["cold, --no-cache"], wall["cold, empty cache"]) / wall["TEST_LINTER"],
        "warm wall / TEST_LINTER wall": wall["warm"] / wall["TEST_LINTER"],
        "one file / interpreter start-up": one_pairs,
        "peak memory (MB)": max(memory.values()) if memory else float("nan"),
    }
    if memory:
        ratios["peak memory (MB)"] = max(memory["cold, --no-cache"], memory["cold, empty cache"], memory["warm"])
    print()
    print(
        f"hwlint (pip install, not editable) against TEST_LINTER on {len(tests):,} test files "
        f"({size / 1e6:.1f} MB) of {tree}; {os.cpu_count()} cores, Python {sys.version.split()[0]}, "
        f"{args.rounds} rounds, {args.pairs} one-file pairs per round; load average at the end "
        f"{os.getloadavg()[0]:.1f}"
    )
    print()
    print(
        f"| {'run':<18} | {'wall s':>7} | {'CPU s':>7} | {'wall / TEST_LINTER':>18} | {'CPU / parse-only':>16} "
        f"| {'peak MB (PSS)':>13} |"
    )
    print(f"|{'-' * 20}|{'-' * 9}|{'-' * 9}|{'-' * 20}|{'-' * 18}|{'-' * 15}|")
    for name in walls:
        mem = memory.get(name)
        print(
            f"| {name:<18} | {wall[name]:>7.3f} | {cpu[name]:>7.3f} | {wall[name] / wall['TEST_LINTER']:>17.3f}× "
            f"| {cpu[name] / cpu['parse-only']:>15.3f}× | {'' if mem is None else f'{mem:.1f}':>13} |"
        )
    print()
    for name in ("cold, --no-cache", "cold, empty cache"):
        print(
            f"info  {name:<18} CPU / parse-only {cpu[name] / cpu['parse-only']:.3f}×, "
            f"wall / TEST_LINTER {wall[name] / wall['TEST_LINTER']:.3f}×, "
            f"CPU / TEST_LINTER CPU {cpu[name] / cpu['TEST_LINTER']:.3f}×"
        )
    failed = False
    for name, limit in TARGETS.items():
        value = ratios[name]
        ok = value <= limit
        failed |= not ok
        unit = "" if "MB" in name else "×"
        note = " (the larger of the two cold runs)" if name.startswith("cold") else ""
        if "MB" in name:
            note = f" (on {len(tests):,} files; the target is at 20,000: benchmarks/bench_scale.py)"
        print(f"{'PASS' if ok else 'FAIL'}  {name:<34} {value:8.3f}{unit}  (target ≤ {limit}{unit}){note}")
    consistent = len(outputs["hwlint"]) == 1
    print(f"{'PASS' if consistent else 'FAIL'}  cold (both) and warm print the same diagnostics")
    failed |= not consistent
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "tree": str(tree),
                    "files": len(tests),
                    "bytes": size,
                    "cores": os.cpu_count(),
                    "python": sys.version.split()[0],
                    "rounds": args.rounds,
                    "wall": walls,
                    "cpu": cpus,
                    "median_wall": wall,
                    "median_cpu": cpu,
                    "memory_mb": memory,
                    "ratios": ratios,
                    "targets": TARGETS,
                    "passed": not failed,
                },
                indent=2,
            )
            + "\n"
        )
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--test-linter", required=True, help="PyTorch's tools/linter/adapters/test_linter.py")
    parser.add_argument("--tree", required=True, help="a folder of test files")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (medians are taken over them)")
    parser.add_argument("--pairs", type=int, default=6, help="one-file and start-up runs per round")
    parser.add_argument("--venv", help="install hwlint into this virtual environment (made if missing; reused)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--skip-memory", action="store_true", help="do not measure peak memory")
    parser.add_argument("--json", help="also write the figures to this file")
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
