"""How far `hwlint fix` takes a migration toward an empty allowlist, on any trees.

    python benchmarks/bench_migrate.py TREE [TREE...] [--json FILE] [--verify-runtime] [--setting TOML]...

The trees (folders of test files, e.g. an accelerator backend's `test/`)
are outside this repository and are never written: their Python files are
copied into a temporary project, one folder per tree (`tree/<name>/`),
with hwlint's settings (bench_vs_test_linter.py's copy). Then, with this
repository's hwlint:

1. `hwlint allowlist init`: the files listed at adoption;
2. on a copy of that project: the safe `hwlint fix --show-unfixed --format
   json`, `hwlint allowlist prune`, the files still listed, and `hwlint
   check` (its exit status, the files over budget, HWC302);
3. on another copy of the same adopted project: the same with `fix
   --unsafe`;
4. with `--verify-runtime`, step 3's fix runs with `--verify-runtime` (the
   tests PyTorch collects from each changed module, before and after; the
   torch Python from `--torch-python` or HWLINT_TORCH_PYTHON), and its
   counts are reported.

It prints, for each run, the share of the initially listed files left, the
files over budget, whether `check` passes, and the classes left by reason
(the kinds `fix --format json` gives; an unsafe fix by the kind of its
evidence). It exits 1 when a target of issue 21 is missed: the safe fix
leaves at most 40% of the listed files, the unsafe one at most 10%, with no
file over budget and `check` green after each. `--json FILE` writes the
figures.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from bench_vs_test_linter import copy_python_files  # noqa: E402  (the benchmarks' shared helpers)

TARGETS = {"safe": 0.40, "unsafe": 0.10}
SETTINGS = '[tool.hwlint]\ninclude = ["tree/**/test_*.py", "tree/**/*_test.py"]\n'


class Failure(Exception):
    """A step that did not do what it must; the message says which."""


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    # This repository's hwlint, whatever is installed.
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    env["NO_COLOR"] = "1"
    for name in ("HWLINT_CACHE_DIR", "HWLINT_NO_CACHE"):
        env.pop(name, None)
    return env


def hwlint(project: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hwlint", *args],
        cwd=project,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def listed(project: Path) -> list[str]:
    """The files the allowlist lists."""
    path = project / "allowlist.txt"
    if not path.is_file():
        return []
    return [
        line.split()[0]
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


def make_project(settings: Sequence[str], trees: Sequence[Path], project: Path) -> int:
    """The trees' Python files under `tree/<name>/`, with `settings` (lines
    of `[tool.hwlint]`) after the include; the number of test files."""
    names: set[str] = set()
    tests = 0
    for tree in trees:
        name = tree.name
        while name in names:
            name += "_"
        names.add(name)
        tests += len(copy_python_files(tree, project, Path("tree") / name))
    (project / "pyproject.toml").write_text(SETTINGS + "".join(f"{line}\n" for line in settings), encoding="utf-8")
    return tests


def reason_of(unfixed: dict[str, Any]) -> str:
    """What a class left for a human is counted under: its kind, an unsafe
    fix with its member and the kind of its evidence, what a fix would surface."""
    kind = unfixed["kind"]
    if kind == "unsafe":
        return f"unsafe {unfixed['classification']} ({unfixed.get('evidence') or '?'})"
    if kind == "surfaces":
        return f"{unfixed['classification']} would surface {', '.join(unfixed['surfaced'])}"
    return kind or "other"


def migrate(
    adopted: Path, work: Path, initial: int, unsafe: bool, verify: str | None, env: dict[str, str]
) -> dict[str, Any]:
    """One fix run on a copy of the adopted project, and what it leaves."""
    project = work / ("unsafe" if unsafe else "safe")
    shutil.copytree(adopted, project, symlinks=True)
    args = ["fix", "--show-unfixed", "--format", "json", *(["--unsafe"] if unsafe else [])]
    if verify is not None:
        args += ["--verify-runtime", "--python", verify]
    start = time.perf_counter()
    fixed = hwlint(project, *args, env=env)
    seconds = time.perf_counter() - start
    try:
        report = json.loads(fixed.stdout)
    except ValueError:
        raise Failure(
            f"`hwlint {' '.join(args)}` printed no JSON (exit {fixed.returncode}): "
            f"{fixed.stderr.strip().splitlines()[-1:] or ''}"
        ) from None
    # What fix said, kept beside the project (`--keep` keeps it) for a look at the classes left.
    (project / "fix-report.json").write_text(fixed.stdout, encoding="utf-8")
    pruned = hwlint(project, "allowlist", "prune", env=env)
    if pruned.returncode not in (0, 1):
        raise Failure(f"`hwlint allowlist prune` failed: {pruned.stderr.strip()}")
    left = listed(project)
    check = hwlint(project, "check", "--format", "json", env=env)
    if check.returncode not in (0, 1):
        raise Failure(f"`hwlint check` failed (exit {check.returncode}): {check.stderr.strip()}")
    diagnostics = json.loads(check.stdout or "[]")
    over = sorted({d["path"] for d in diagnostics if d["code"] == "HWC302"})
    classes = [u for u in report["unfixed"] if u.get("code") != "HWC201"]
    reasons = collections.Counter(reason_of(u) for u in classes)
    result: dict[str, Any] = {
        "fix_seconds": round(seconds, 1),
        "fix_exit": fixed.returncode,
        "classified": report["classified"],
        "files_written": len({f["path"] for f in report["fixed"]}),
        "listed": len(left),
        "entries_left_share": round(len(left) / initial, 4) if initial else 0.0,
        "over_budget_files": len(over),
        "over_budget": over,
        "check_exit": check.returncode,
        "check_errors": len(diagnostics),
        "classes_unfixed": len(classes),
        "sites_unfixed": len(report["unfixed"]) - len(classes),
        "unfixed_by_reason": dict(reasons.most_common()),
    }
    if "verify_runtime" in report:
        result["verify_runtime"] = report["verify_runtime"]
    return result


def print_run(title: str, run: dict[str, Any], initial: int, target: float) -> None:
    share = run["entries_left_share"]
    print(
        f"\n{title}: {run['listed']} of {initial} listed files left ({share:.1%}; target <= {target:.0%}), "
        f"{run['over_budget_files']} over budget, check exit {run['check_exit']} "
        f"({run['check_errors']} errors), fix {run['fix_seconds']} s"
    )
    print(f"  classified: {', '.join(f'{m} {n}' for m, n in run['classified'].items()) or 'none'}")
    print(f"  {run['classes_unfixed']} classes left, by reason ({run['sites_unfixed']} HWC201 sites besides):")
    for reason, n in run["unfixed_by_reason"].items():
        print(f"    {n:>5} {reason}")
    verify = run.get("verify_runtime")
    if verify:
        print(
            "  runtime check: "
            + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in verify.items() if isinstance(v, int))
        )


def met(runs: dict[str, dict[str, Any]]) -> dict[str, bool]:
    found: dict[str, bool] = {}
    for name, target in TARGETS.items():
        run = runs[name]
        found[f"{name}: at most {target:.0%} of the listed files left"] = run["entries_left_share"] <= target
        found[f"{name}: no file over budget"] = run["over_budget_files"] == 0
        found[f"{name}: check passes"] = run["check_exit"] == 0
        if "verify_runtime" in run:
            found[f"{name}: no test lost"] = run["verify_runtime"].get("lost", 0) == 0
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", type=Path, help="folders of test files, outside this repository")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument(
        "--verify-runtime", action="store_true", help="run the unsafe fix with --verify-runtime and report its counts"
    )
    parser.add_argument(
        "--torch-python",
        default=os.environ.get("HWLINT_TORCH_PYTHON"),
        help="the Python with torch for --verify-runtime (default: $HWLINT_TORCH_PYTHON)",
    )
    parser.add_argument("--keep", type=Path, help="keep the projects in this (new) folder")
    parser.add_argument(
        "--setting",
        action="append",
        default=[],
        metavar="TOML",
        help="a line of [tool.hwlint] for the project, e.g. 'classifications = [..., \"NPU\"]' (repeatable)",
    )
    args = parser.parse_args(argv)
    trees = [tree.resolve() for tree in args.trees]
    for tree in trees:
        if not tree.is_dir():
            parser.error(f"{tree}: not a folder")
        if tree == REPO or REPO in tree.parents:
            parser.error(f"{tree}: inside this repository; copies of real trees are never made here")
    if args.verify_runtime and not args.torch_python:
        parser.error("--verify-runtime needs the Python with torch: --torch-python or HWLINT_TORCH_PYTHON")
    env = _environment()
    with tempfile.TemporaryDirectory(prefix="bench-migrate-") as scratch:
        work = args.keep.resolve() if args.keep else Path(scratch)
        work.mkdir(parents=True, exist_ok=bool(not args.keep))
        adopted = work / "adopted"
        adopted.mkdir()
        tests = make_project(args.setting, trees, adopted)
        init = hwlint(adopted, "allowlist", "init", env=env)
        if init.returncode != 0:
            print(f"bench_migrate: `hwlint allowlist init` failed: {init.stderr.strip()}", file=sys.stderr)
            return 2
        initial = len(listed(adopted))
        print(f"{len(trees)} trees, {tests} test files; `allowlist init` lists {initial} files")
        try:
            runs = {
                "safe": migrate(adopted, work, initial, False, None, env),
                "unsafe": migrate(
                    adopted, work, initial, True, args.torch_python if args.verify_runtime else None, env
                ),
            }
        except Failure as exc:
            print(f"bench_migrate: {exc}", file=sys.stderr)
            return 2
    for name, run in runs.items():
        print_run(f"fix{' --unsafe' if name == 'unsafe' else ''}", run, initial, TARGETS[name])
    targets = met(runs)
    print()
    for text, ok in targets.items():
        print(f"{'PASS' if ok else 'FAIL'}  {text}")
    if args.json:
        figures = {
            "settings": args.setting,
            "trees": [str(t) for t in trees],
            "test_files": tests,
            "listed_at_init": initial,
            "runs": runs,
            "targets": targets,
        }
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0 if all(targets.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
