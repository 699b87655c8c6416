"""How a cold `hwlint check` scales with cores: `-j 1..N`, and the serial part.

    python benchmarks/bench_jobs.py --project DIR [--project DIR ...] [--jobs 1,2,4,8,16]
                                    [--runs 3] [--test-linter PATH] [--json FILE]
                                    [--python PATH]

Each `--project` is a folder `hwlint check` runs in (its pyproject.toml's
`[tool.hwlint]` says which files are tests), e.g. the four trees' test
folders. For each `-j` in `--jobs`, every round runs `hwlint check
--no-cache --exit-zero -j N` in each project (the scenarios' order rotates
from round to round, so that a change in the machine's load hits all of them
alike); figures are medians over rounds, summed over the projects:

- wall: the seconds a user waits;
- main: the CPU seconds (user + sys) of hwlint's own process, not its
  workers (`getrusage(RUSAGE_SELF)` read as the process exits). This part
  does not shrink with cores: it bounds the speed-up (Amdahl);
- workers: the CPU seconds of the processes it started;
- serial fraction: main / (main + workers); the speed-up that fraction
  allows on N cores is 1 / (s + (1 - s) / N), printed for 16 cores;
- speed-up: wall at `-j 1` over wall at `-j N`.

With `--test-linter` (PyTorch's tools/linter/adapters/test_linter.py, never
copied into this repository), TEST_LINTER runs on the same files with
`MAX_JOBS=N`, as lintrunner runs it (`python test_linter.py @PATHSFILE`), for
its wall and its main process's CPU. `-j` above the machine's cores is
measured as asked (the figures then show the machine, not hwlint).

`--python`: the interpreter both tools run under (default: this one). The
main process's CPU includes the interpreter's start-up, and what a
development environment adds to it is not hwlint's: here an editable
install's import hook and a sandbox's `.pth` (certifi) took 0.055 s where
a user's install, `python -m venv V && V/bin/pip install .`, starts in
0.011 s. Pass `--python V/bin/python` to measure what users run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence

# Both wrappers start with this: as the process exits, it writes its own
# CPU and that of the children it waited for (its pool's workers).
_USAGE = """\
import atexit, json, os, resource, runpy, sys
def _usage():
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(os.environ["BENCH_JOBS_USAGE"], "w") as f:
        json.dump({"main": own.ru_utime + own.ru_stime, "workers": kids.ru_utime + kids.ru_stime}, f)
atexit.register(_usage)
"""

# hwlint's command line, run in this process.
_HWLINT = (
    _USAGE
    + """\
_exit = os._exit
def _record_then_exit(code):  # hwlint's fast path skips the interpreter's teardown
    _usage()
    _exit(code)
os._exit = _record_then_exit
from hwlint.__main__ import main
sys.argv = ["hwlint", *sys.argv[1:]]
main()
"""
)

# TEST_LINTER, the same way.
_TEST_LINTER = (
    _USAGE
    + """\
script = sys.argv[1]
sys.argv = sys.argv[1:]
runpy.run_path(script, run_name="__main__")
"""
)


class Sample:
    """One run: the seconds waited, and the CPU of the main process and of its workers."""

    def __init__(self, wall: float, main: float, workers: float) -> None:
        self.wall = wall
        self.main = main
        self.workers = workers


def measured(cmd: Sequence[str], cwd: Path, env: dict[str, str], ok: tuple[int, ...] = (0,)) -> Sample:
    """Run `cmd` (one of the wrappers above) and read back what it used.

    `ok` are the exit codes of a run that did its work: hwlint runs with
    `--exit-zero`, so anything else (an import error, a traceback) is a
    failed run, never a fast one; TEST_LINTER exits 1 when it finds something."""
    with tempfile.TemporaryDirectory() as tmp:
        usage = Path(tmp) / "usage.json"
        start = time.perf_counter()
        proc = subprocess.run(
            list(cmd),
            cwd=cwd,
            env={**env, "BENCH_JOBS_USAGE": str(usage)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        wall = time.perf_counter() - start
        if proc.returncode not in ok or not usage.is_file():
            raise SystemExit(f"bench_jobs: {' '.join(cmd)} in {cwd} failed ({proc.returncode}): {proc.stderr[-2000:]}")
        got = json.loads(usage.read_text())
    return Sample(wall, got["main"], got["workers"])


def _test_files(project: Path) -> list[Path]:
    """The files TEST_LINTER is given: every test file, named `test_*.py` or
    `*_test.py`, as benchmarks/bench_vs_test_linter.py gives it."""
    return sorted({*project.rglob("test_*.py"), *project.rglob("*_test.py")})


def serial_bound(fraction: float, cores: int) -> float:
    """The most a program with this serial fraction can speed up on `cores` (Amdahl)."""
    return 1 / (fraction + (1 - fraction) / cores)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", type=Path, action="append", required=True)
    parser.add_argument("--jobs", default=",".join(str(j) for j in (1, 2, 4, 8, 16) if j <= (os.cpu_count() or 1)))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--test-linter", type=Path)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--python", default=sys.executable, help="the interpreter both tools run under")
    args = parser.parse_args(argv)
    jobs = [int(j) for j in args.jobs.split(",")]
    env = {k: v for k, v in os.environ.items() if k not in ("HWLINT_CACHE_DIR", "HWLINT_NO_CACHE", "MAX_JOBS")}
    env["NO_COLOR"] = "1"

    paths_files: dict[Path, Path] = {}
    tmp = tempfile.TemporaryDirectory()
    # Both tools run from bytecode, as an installed package does (pip
    # compiles it): a machine with PYTHONDONTWRITEBYTECODE would otherwise
    # compile every module in every run, in the main process's CPU.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(Path(tmp.name) / "pycache")
    linter = args.test_linter
    if args.test_linter:
        # As in PyTorch: at tools/linter/adapters/, its allowlist (empty) beside it.
        adapters = Path(tmp.name) / "tools" / "linter" / "adapters"
        adapters.mkdir(parents=True)
        linter = adapters / "test_linter.py"
        linter.write_bytes(args.test_linter.read_bytes())
        (adapters / "test_linter_allowlist.json").write_text("[]\n")
        for project in args.project:
            listed = Path(tmp.name) / f"paths-{len(paths_files)}.txt"
            listed.write_text("".join(f"{f}\n" for f in _test_files(project)))
            paths_files[project] = listed

    scenarios: list[tuple[str, int]] = [("hwlint", j) for j in jobs]
    if args.test_linter:
        scenarios += [("TEST_LINTER", j) for j in jobs]
    samples: dict[tuple[str, int], list[Sample]] = {s: [] for s in scenarios}
    for round_ in range(-1, args.runs):  # round -1 writes the bytecode and is not counted
        rotation = scenarios[round_ % len(scenarios) :] + scenarios[: round_ % len(scenarios)]
        if round_ < 0:
            rotation = [next(s for s in scenarios if s[0] == tool) for tool in dict.fromkeys(t for t, _ in scenarios)]
        for tool, j in rotation:
            total = Sample(0.0, 0.0, 0.0)
            for project in args.project:
                if tool == "hwlint":
                    cmd = [args.python, "-c", _HWLINT, "check", "--no-cache", "--exit-zero", "-j", str(j)]
                    one = measured(cmd, project, env)
                else:
                    cmd = [args.python, "-c", _TEST_LINTER, str(linter), f"@{paths_files[project]}"]
                    one = measured(cmd, project, {**env, "MAX_JOBS": str(j)}, ok=(0, 1))
                total = Sample(total.wall + one.wall, total.main + one.main, total.workers + one.workers)
            if round_ >= 0:
                samples[(tool, j)].append(total)

    rows = []
    for tool, j in scenarios:
        runs = samples[(tool, j)]
        wall = statistics.median(s.wall for s in runs)
        own = statistics.median(s.main for s in runs)
        workers = statistics.median(s.workers for s in runs)
        base = statistics.median(s.wall for s in samples[(tool, jobs[0])])
        fraction = own / (own + workers) if own + workers else 0.0
        rows.append(
            {
                "tool": tool,
                "jobs": j,
                "wall_s": round(wall, 3),
                "main_cpu_s": round(own, 3),
                "workers_cpu_s": round(workers, 3),
                "serial_fraction": round(fraction, 4),
                "speedup": round(base / wall, 2) if wall else 0.0,
                "bound_at_16": round(serial_bound(fraction, 16), 1),
            }
        )
    print(
        f"cores on this machine: {os.cpu_count()}; python: {args.python}; projects: {', '.join(str(p) for p in args.project)}"
    )
    print(
        f"{'tool':<12} {'-j':>3} {'wall s':>8} {'main CPU s':>11} {'workers CPU s':>14} {'serial':>7} {'speed-up':>9} {'bound@16':>9}"
    )
    for r in rows:
        print(
            f"{r['tool']:<12} {r['jobs']:>3} {r['wall_s']:>8.2f} {r['main_cpu_s']:>11.3f} {r['workers_cpu_s']:>14.2f} "
            f"{r['serial_fraction']:>7.1%} {r['speedup']:>8.2f}x {r['bound_at_16']:>8.1f}x"
        )
    if args.json:
        args.json.write_text(json.dumps({"cores": os.cpu_count(), "rows": rows}, indent=2) + "\n")
    tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
