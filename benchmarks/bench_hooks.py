"""Benchmark of the daily loop: each pre-commit hook, the lintrunner adapter,
`report` and `select`, warm (the project's cache filled by an earlier run,
as on a maintainer's machine), against the same command with `--no-cache`
(what every command but `check` did before the cache became everyone's
default) and the interpreter's start-up, measured in the same run.

    python benchmarks/bench_hooks.py                 # a synthetic 2,000-file tree (benchmarks/corpus/)
    python benchmarks/bench_hooks.py --tree DIR      # a real tree (copied; never changed)

The tree is made a git repository and adopted (`hwlint allowlist init`,
committed), as a project that uses the hooks is. A commit's hooks see a few
staged files (`--staged`, default 3: median-size test files, each just
edited with a comment, so that their facts are not cached): `hwlint fix
FILES` (hwlint-fix), `hwlint check FILES` (hwlint), `hwlint allowlist
prune` (hwlint-allowlist: the whole tree, every commit) and `python -m
hwlint lintrunner @PATHS`. Then `report --format markdown` and `select
GENERIC CPU`, whole tree. Scenarios alternate within each round; medians
over `--runs` rounds. Target: every hook and the adapter under 1 s warm
(issue 20), reported with its ratio to --no-cache. Exits 1 if one misses.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_check import _environment, timed  # noqa: E402  (the same way of running a command)

TARGET_SECONDS = 1.0
HOOKS = ("hwlint-fix", "hwlint", "hwlint-allowlist", "lintrunner adapter")


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@hwlint.invalid", "-c", "commit.gpgsign=false", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def prepare(work: Path, tree: Path | None, files: int) -> Path:
    root = work / "project"
    if tree is None:
        from corpus import generate

        generate(root / "test", files=files, seed=0)
        (root / "pyproject.toml").write_text("[tool.hwlint]\n")
    else:
        shutil.copytree(tree, root / "test", symlinks=True, ignore=shutil.ignore_patterns(".git", "__pycache__"))
        (root / "pyproject.toml").write_text('[tool.hwlint]\ninclude = ["test/**/test_*.py", "test/**/*_test.py"]\n')
    _git(root, "init", "-q")
    subprocess.run(
        [sys.executable, "-m", "hwlint", "allowlist", "init", "--no-cache"], cwd=root, check=True, capture_output=True
    )
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "adopt hwlint")
    return root


def staged_files(root: Path, n: int) -> list[str]:
    """`n` median-size allowlisted test files: what a commit touches."""
    listed = [
        line.split()[0]
        for line in (root / "allowlist.txt").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    listed.sort(key=lambda rel: (root / rel).stat().st_size)
    middle = len(listed) // 2
    return listed[max(0, middle - n // 2) :][:n]


def _run(cmd: list[str], root: Path, env: dict[str, str]) -> float:
    run = timed(cmd, root, env)
    if run.returncode not in (0, 1):  # 2: a usage or internal error, not a measurement
        raise SystemExit(f"{' '.join(cmd[2:])}: exit {run.returncode}")
    return run.seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, help="a real test tree (copied); default: a synthetic one")
    parser.add_argument("--files", type=int, default=2000, help="files of the synthetic tree")
    parser.add_argument("--runs", type=int, default=5, help="rounds (medians are reported)")
    parser.add_argument("--staged", type=int, default=3, help="files a commit touches")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="hwlint-bench-hooks-") as tmp:
        work = Path(tmp)
        root = prepare(work, args.tree, args.files)
        env = _environment(work / "pycache")
        staged = staged_files(root, args.staged)
        paths_file = work / "paths.txt"
        paths_file.write_text("".join(f"{root / rel}\n" for rel in staged))
        hwlint = [sys.executable, "-m", "hwlint"]
        commands = {
            "hwlint-fix": [*hwlint, "fix", *staged],
            "hwlint": [*hwlint, "check", *staged],
            "hwlint-allowlist": [*hwlint, "allowlist", "prune"],
            "lintrunner adapter": [*hwlint, "lintrunner", f"@{paths_file}"],
            "report": [*hwlint, "report", "--format", "markdown"],
            "select": [*hwlint, "select", "GENERIC", "CPU"],
        }
        startup = [sys.executable, "-c", "import ast"]
        times: dict[str, list[float]] = {name: [] for name in commands}
        uncached: dict[str, list[float]] = {name: [] for name in commands}
        start: list[float] = []
        for cmd in commands.values():  # bytecode, and the cache, as a maintainer's machine has them
            timed(cmd, root, env)
        for round_ in range(args.runs):
            for rel in staged:  # each commit edits its files: their facts are new
                with open(root / rel, "a", encoding="utf-8") as f:
                    f.write(f"# edit {round_}\n")
            # The hooks a commit runs, in the README's order, then the rest.
            for name, cmd in commands.items():
                times[name].append(_run(cmd, root, env))
            for name, cmd in commands.items():
                uncached[name].append(_run([*cmd, "--no-cache"], root, env))
            start.append(timed(startup, root, env).seconds)
            _git(root, "checkout", "-q", "--", ".")  # the files as committed, for the next round
        files_checked = sum(1 for _ in (root / "test").rglob("*.py"))

    start_up = statistics.median(start)
    rows = []
    failed = False
    print(f"{'command':<22}{'warm s':>9}{'--no-cache s':>14}{'warm/no-cache':>15}{'/start-up':>11}  target")
    for name in commands:
        warm, cold = statistics.median(times[name]), statistics.median(uncached[name])
        verdict = ""
        if name in HOOKS:
            ok = warm < TARGET_SECONDS
            failed |= not ok
            verdict = f"< {TARGET_SECONDS:.0f} s: {'PASS' if ok else 'FAIL'}"
        print(f"{name:<22}{warm:>9.3f}{cold:>14.3f}{warm / cold:>15.2f}{warm / start_up:>11.1f}  {verdict}")
        rows.append(
            {
                "command": name,
                "warm": warm,
                "no_cache": cold,
                "warm_over_no_cache": warm / cold,
                "warm_over_startup": warm / start_up,
            }
        )
    print(f"interpreter start-up {start_up:.3f} s; {files_checked} .py files; {len(staged)} staged; {args.runs} rounds")
    if args.json:
        args.json.write_text(
            json.dumps(
                {"rows": rows, "startup": start_up, "files": files_checked, "staged": staged, "runs": args.runs},
                indent=2,
            )
            + "\n"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
