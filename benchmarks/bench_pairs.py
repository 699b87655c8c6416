"""How often `hwlint fix --unsafe` declares what PyTorch's contributors declared, on real before/after pairs.

    python benchmarks/bench_pairs.py PAIRS [--json FILE] [--show] [--hwlint CMD]

PAIRS is a folder outside this repository (never commit it) with one folder
per pair, each holding a PyTorch test file as it was before a contributor's
migration pull request ("[Testcase Refactoring] ...": `before.py`), as it was
after it (`after.py`), and `meta.json` (`repo_path`, the file's path in
pytorch/pytorch, `pr`, `title`, `before_commit`, `after_commit`, `area`;
`approximate` when a version is not the pull request's own). For each pair:

1. a temporary project laid out as PyTorch's tree: `pyproject.toml` with
   `[tool.hwlint]` including `test/**/*.py`, `torch/__init__.py` and
   `version.txt` (so that `oldest-torch` is the release PyTorch built, as
   in its checkout), and `before.py` at its `repo_path`;
2. `hwlint fix --unsafe --format json --show-unfixed --no-cache` there (the
   `hwlint` on PATH, or `--hwlint CMD`); what it leaves unclassified, by
   class, from its JSON;
3. the contributor's classes, read from `after.py` with `ast`: every class
   that declares `hw_classification` in its own body, with its member and its
   tests (the `test_*` names its body binds: `def`, or an assignment such as
   `test_x = Base.test_x`);
4. where each of those tests lives in hwlint's fixed file (the classes whose
   body binds the name; the one of the contributor's class name when there is
   one), and that class's classification: declared in it, or inherited from
   a base declared in the same file (`ast`, no hwlint internals);
5. a verdict per contributor class: **agree** when every one of its tests
   found in hwlint's output sits in a class of the contributor's member (a
   class hwlint split agrees when its tests land in classes of that member);
   **differ** when some test sits in a class of another member; else
   **left**: hwlint left the class unclassified (its reason is shown), or
   none of its tests is in hwlint's output though the before file has it;
   **unscored** when there is nothing to judge: the class defines no test
   of its own (TEST_LINTER asks no classification of it, nor does hwlint),
   or none of its tests is in the before file (the contributor wrote them).
   Unscored classes are shown, and left out of the shares.

A contributor's test is found by its name; one the contributor renamed
after a device (`test_x_cuda_y` -> `test_x_gpu_y`, `*_nccl_*` -> `*_xccl_*`)
is found by its name with the device words hidden, when that matches one
test only (shown as `old -> new`).

`--oracle FILE` (a copy of PyTorch's `tools/linter/adapters/test_linter.py`,
fetched outside this repository) runs TEST_LINTER on each `after.py`: a
contributor class it reports is **rejected** (the contributor's own
classification breaks PyTorch's rule, so it is no answer for hwlint to
match). Rejected classes are shown, verdict and all, and left out of the
scored shares; the totals over every class are printed too.

It prints a table per pair (class, the contributor's member, hwlint's,
verdict), then the totals (classes, agree, differ and left shares, by area).
`--show` prints, for each class that does not agree, each test and the
classes it landed in. `--json FILE` writes every pair's rows. Exit status 0;
2 when a pair's `fix` gave no report (hwlint not installed, a crash): no
figure is printed then, as it would count every class as left.
Issue 33's target: agree >= 80%, differ <= 5%.

`benchmarks/pairs_manifest.json` says where each of the 66 pairs measured
up to 2026-12-07 came from, without their text: the file's path, the pull
request, and for each version its repository and commit where known and
its id in the stored-code index (`read_file(id=...)` of the project's
search tool reads it back whole, for a session to lay out PAIRS again).
`held_out` marks the pairs collected after the work they measure: 6 on
2026-12-06, and on 2026-12-07 501-509, 601-606, 701-703 and 801-804 (the
last four from a fork's "after" versions, measured before any change made
for them).
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_parity import load_oracle  # noqa: E402  (TEST_LINTER imported as bench_parity does)

SETTINGS = '[tool.hwlint]\ninclude = ["test/**/*.py"]\n'
# The project is laid out as PyTorch's own tree: its tests run on the torch
# it builds, whose release hwlint reads from version.txt (`oldest-torch`'s
# default there). PyTorch's main built 2.11 or later when these pull
# requests (2026, numbers 192,000 and up) were written; of the
# equivalents hwlint has, none asks for more than 2.9.
PYTORCH_TREE = {"torch/__init__.py": "", "version.txt": "2.11.0a0\n"}
TARGET_AGREE = 0.80
TARGET_DIFFER = 0.05


@dataclass
class ClassInfo:
    """A class of a module: its own declaration (a member name), its bases'
    names and the `test_*` names its body binds."""

    name: str
    line: int
    declared: str | None
    bases: list[str]
    tests: list[str]


@dataclass
class TestPlace:
    """Where one of the contributor's tests landed in hwlint's output."""

    test: str
    classes: list[str]
    members: list[str | None]
    found_as: str = ""  # the name in hwlint's output, when the contributor renamed it


@dataclass
class Row:
    """One contributor class and hwlint's answer for it."""

    cls: str
    contributor: str
    hwlint: str
    verdict: str
    why: str = ""
    places: list[TestPlace] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # TEST_LINTER's messages on the contributor's class


@dataclass
class PairResult:
    name: str
    meta: dict[str, Any]
    fix_exit: int | None
    error: str = ""
    no_report: bool = False  # `fix` printed no JSON report
    rows: list[Row] = field(default_factory=list)


def _member(value: ast.expr) -> str | None:
    """The member a declaration's value names: `HardwareClassification.X`
    (through any module prefix) or the string "X"."""
    if isinstance(value, ast.Attribute):
        return value.attr
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value.value.upper()
    return None


def _base_name(base: ast.expr) -> str | None:
    if isinstance(base, ast.Name):
        return base.id
    if isinstance(base, ast.Attribute):
        return base.attr
    return None


def classes_of(source: str) -> dict[str, ClassInfo]:
    """Every class of a module (nested ones too), by name; a name defined
    twice keeps its first definition."""
    found: dict[str, ClassInfo] = {}
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ClassDef) or node.name in found:
            continue
        declared: str | None = None
        tests: list[str] = []
        for statement in node.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if statement.name.startswith("test"):
                    tests.append(statement.name)
                continue
            targets: list[ast.expr] = []
            value: ast.expr | None = None
            if isinstance(statement, ast.Assign):
                targets, value = statement.targets, statement.value
            elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
                targets, value = [statement.target], statement.value
            for target in targets:
                if not isinstance(target, ast.Name) or value is None:
                    continue
                if target.id == "hw_classification":
                    declared = _member(value)
                elif target.id.startswith("test"):
                    tests.append(target.id)
        bases = [name for name in map(_base_name, node.bases) if name]
        found[node.name] = ClassInfo(node.name, node.lineno, declared, bases, tests)
    return found


def classification(classes: dict[str, ClassInfo], name: str, seen: frozenset[str] = frozenset()) -> str | None:
    """A class's member: its own declaration, else the first base of the same
    module that has one."""
    info = classes.get(name)
    if info is None or name in seen:
        return None
    if info.declared is not None:
        return info.declared
    for base in info.bases:
        member = classification(classes, base, seen | {name})
        if member is not None:
            return member
    return None


def run_fix(project: Path, command: Sequence[str]) -> tuple[int, dict[str, Any] | None, str]:
    """`fix --unsafe` in the project: its exit status, its JSON report, its stderr."""
    env = dict(os.environ)
    env["NO_COLOR"] = "1"
    for name in ("HWLINT_CACHE_DIR", "HWLINT_NO_CACHE"):
        env.pop(name, None)
    done = subprocess.run(
        [*command, "fix", "--unsafe", "--format", "json", "--show-unfixed", "--no-cache"],
        cwd=project,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        report: dict[str, Any] | None = json.loads(done.stdout)
    except ValueError:
        report = None
    return done.returncode, report, done.stderr


# Words contributors rename tests by when they make them device-generic.
_DEVICE_WORDS = re.compile(r"(?<![a-z])(cuda|gpu|xpu|npu|mps|accelerator|device|nccl|xccl|hccl)(?![a-z])", re.I)


def _unnamed(test: str) -> str:
    return _DEVICE_WORDS.sub("*", test.replace("_", " ")).replace(" ", "_")


# The words contributors rename classes by (`TestFooCuda` -> `TestFooDevice`, a split's `Generic`).
_CLASS_WORDS = re.compile(r"Only(?=[A-Z])|CUDA|Cuda|XPU|Xpu|GPU|Gpu|NPU|Npu|MPS|Mps|CPU|Cpu|Device|Accelerator|Generic")


def _class_unnamed(name: str) -> str:
    return _CLASS_WORDS.sub("*", name)


def judge(
    contributor: ClassInfo, fixed: dict[str, ClassInfo], unfixed: dict[str, str], before: frozenset[str] = frozenset()
) -> Row:
    """The verdict for one of the contributor's classes (see the module's
    docstring); `before`: the tests of the before file."""
    member = contributor.declared or "?"
    places: list[TestPlace] = []
    every = {test for info in fixed.values() for test in info.tests}
    for test in contributor.tests:
        found_as = ""
        if test not in every:
            # Renamed after a device by the contributor: the one test whose name matches with the words hidden.
            alike = sorted({other for other in every if _unnamed(other) == _unnamed(test)})
            if len(alike) == 1:
                found_as = alike[0]
        name = found_as or test
        homes = [info.name for info in fixed.values() if name in info.tests]
        if contributor.name in homes:
            homes = [contributor.name]
        elif len(homes) > 1:
            # Bound by several classes (a test name two classes share): the
            # one(s) named as the contributor's class, device words hidden
            # (`TestExportOnFakeCuda` for `TestExportOnFakeDevice`).
            named = [home for home in homes if _class_unnamed(home) == _class_unnamed(contributor.name)]
            homes = named or homes
        places.append(TestPlace(test, homes, [classification(fixed, home) for home in homes], found_as))
    found = [place for place in places if place.classes]
    members = sorted({m for place in found for m in place.members if m is not None})
    shown = "+".join(members) if members else "-"
    if not found:
        if not contributor.tests:
            return Row(contributor.name, member, shown, "unscored", "it defines no test of its own", places)
        earlier = {_unnamed(test) for test in before}
        if not any(test in before or _unnamed(test) in earlier for test in contributor.tests):
            return Row(contributor.name, member, shown, "unscored", "none of its tests is in the before file", places)
        return Row(contributor.name, member, shown, "left", "no test of it in hwlint's output", places)
    if any(m is not None and m != member for place in found for m in place.members):
        return Row(contributor.name, member, shown, "differ", "", places)
    if all(place.members and all(m == member for m in place.members) for place in found):
        return Row(contributor.name, member, shown, "agree", "", places)
    homes = sorted({home for place in found for home, m in zip(place.classes, place.members) if m is None})
    reasons = sorted({unfixed.get(home, "unclassified") for home in homes})
    return Row(contributor.name, member, shown, "left", f"{', '.join(homes)}: {'; '.join(reasons)}", places)


def rejected_classes(oracle: ModuleType, scratch: Path, repo_path: str, after: str) -> dict[str, list[str]]:
    """TEST_LINTER's messages on `after` (placed at `repo_path` under the
    oracle's root, as bench_parity.load_oracle laid it out in `scratch`: it
    lints test files by name), by the class each names first (`'TestFoo'`
    or `'TestFoo.test_x'`)."""
    target = scratch / "oracle-root" / repo_path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(after, encoding="utf-8")
    found: dict[str, list[str]] = {}
    try:
        for message in oracle.check_file(str(target)):
            named = re.search(r"'([A-Za-z_]\w*)(?:\.\w+)?'", message.description or "")
            if named is not None:
                found.setdefault(named.group(1), []).append(f"{message.name} line {message.line}")
    finally:
        target.unlink()
    return found


def run_pair(folder: Path, command: Sequence[str], oracle: tuple[ModuleType, Path] | None = None) -> PairResult:
    meta: dict[str, Any] = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    before = (folder / "before.py").read_text(encoding="utf-8")
    after = (folder / "after.py").read_text(encoding="utf-8")
    result = PairResult(folder.name, meta, None)
    wanted = [info for info in classes_of(after).values() if info.declared is not None]
    with tempfile.TemporaryDirectory(prefix="hwlint-pair-") as temp:
        project = Path(temp)
        (project / "pyproject.toml").write_text(SETTINGS, encoding="utf-8")
        for name, text in PYTORCH_TREE.items():
            (project / name).parent.mkdir(parents=True, exist_ok=True)
            (project / name).write_text(text, encoding="utf-8")
        target = project / meta["repo_path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(before, encoding="utf-8")
        code, report, stderr = run_fix(project, command)
        result.fix_exit = code
        if report is None:
            result.no_report = True
            result.error = (stderr.strip().splitlines() or [f"exit {code}, no JSON"])[-1]
        fixed_text = target.read_text(encoding="utf-8")
    unfixed: dict[str, str] = {}
    for entry in (report or {}).get("unfixed", []):
        if entry.get("class_name") and entry.get("path") == meta["repo_path"]:
            unfixed.setdefault(entry["class_name"], entry.get("kind") or "unclassified")
    try:
        fixed = classes_of(fixed_text)
    except SyntaxError as error:
        result.error = result.error or f"hwlint's output does not parse: {error}"
        fixed = {}
    tests_before = frozenset(test for info in classes_of(before).values() for test in info.tests)
    result.rows = [judge(info, fixed, unfixed, tests_before) for info in wanted]
    if oracle is not None:
        rejected = rejected_classes(*oracle, meta["repo_path"], after)
        for row in result.rows:
            row.rejected = rejected.get(row.cls, [])
    return result


def print_pair(result: PairResult, show: bool) -> None:
    meta = result.meta
    approximate = " (approximate)" if meta.get("approximate") else ""
    print(f"\n{result.name}  {meta['repo_path']}  [{meta.get('area', '?')}]  PR {meta.get('pr', '?')}{approximate}")
    if result.error:
        print(f"  hwlint: {result.error}")
    if not result.rows:
        print("  (no class of after.py declares hw_classification)")
        return
    width = max(len(row.cls) for row in result.rows)
    for row in result.rows:
        why = f"  ({row.why})" if row.why else ""
        if row.rejected:
            why += f"  [rejected: TEST_LINTER reports the contributor's class: {', '.join(row.rejected)}]"
        print(f"  {row.cls:<{width}}  {row.contributor:<11} {row.hwlint:<22} {row.verdict}{why}")
        if show and row.verdict != "agree":
            for place in row.places:
                homes = ", ".join(f"{c}={m or '-'}" for c, m in zip(place.classes, place.members)) or "not found"
                renamed = f" -> {place.found_as}" if place.found_as else ""
                print(f"      {place.test}{renamed}: {homes}")


def totals(results: Sequence[PairResult], *, scored_only: bool = True) -> dict[str, Any]:
    """The verdicts counted, over the classes TEST_LINTER does not reject
    and that there is something to judge of (`scored_only`), or over all
    (an unscored class counted as left)."""
    rows = [
        (result.meta.get("area", "?"), "left" if row.verdict == "unscored" else row.verdict)
        for result in results
        for row in result.rows
        if not (scored_only and (row.rejected or row.verdict == "unscored"))
    ]
    counts = collections.Counter(verdict for _, verdict in rows)
    n = len(rows)
    by_area: dict[str, dict[str, int]] = {}
    for area, verdict in rows:
        by_area.setdefault(area, {"classes": 0, "agree": 0, "differ": 0, "left": 0})
        by_area[area]["classes"] += 1
        by_area[area][verdict] += 1
    return {
        "pairs": len(results),
        "classes": n,
        "agree": counts["agree"],
        "differ": counts["differ"],
        "left": counts["left"],
        "agree_share": round(counts["agree"] / n, 4) if n else 0.0,
        "differ_share": round(counts["differ"] / n, 4) if n else 0.0,
        "left_share": round(counts["left"] / n, 4) if n else 0.0,
        "by_area": dict(sorted(by_area.items())),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "pairs", type=Path, nargs="+", help="folders of pairs (<nn>-<name>/before.py, after.py, meta.json)"
    )
    parser.add_argument("--json", type=Path, help="write every pair's rows and the totals here")
    parser.add_argument("--show", action="store_true", help="each test of a class that does not agree")
    parser.add_argument("--hwlint", default="hwlint", help="the command that runs hwlint (default: hwlint)")
    parser.add_argument(
        "--oracle", type=Path, help="TEST_LINTER (test_linter.py): the contributor classes it reports are not scored"
    )
    args = parser.parse_args(argv)
    folders = [
        p
        for root in args.pairs
        for p in sorted(root.iterdir() if root.is_dir() else ())
        if (p / "meta.json").is_file() and (p / "before.py").is_file()
    ]
    if not folders:
        print(f"no pairs under {' '.join(map(str, args.pairs))}", file=sys.stderr)
        return 2
    if args.oracle is not None and not args.oracle.is_file():
        print(f"--oracle {args.oracle}: no such file", file=sys.stderr)
        return 2
    command = shlex.split(args.hwlint)
    with tempfile.TemporaryDirectory(prefix="hwlint-pairs-oracle-") as scratch:
        oracle = (load_oracle(args.oracle, Path(scratch)), Path(scratch)) if args.oracle is not None else None
        results = [run_pair(folder, command, oracle) for folder in folders]
    for result in results:
        print_pair(result, args.show)
    broken = [result for result in results if result.no_report]
    if broken:
        first = broken[0]
        print(
            f"\n{len(broken)} pair(s) got no report from `fix` (first: {first.name}: {first.error}): no figures",
            file=sys.stderr,
        )
        return 2
    summary = totals(results)
    everything = totals(results, scored_only=False)
    n = summary["classes"]
    unscored = sum(row.verdict == "unscored" and not row.rejected for result in results for row in result.rows)
    rejected = everything["classes"] - n - unscored
    print(
        f"\n{summary['pairs']} pairs, {n} contributor classes scored"
        + (f" ({rejected} more rejected by TEST_LINTER)" if args.oracle is not None else "")
        + (
            f" ({unscored} more with nothing to judge: no test of their own, or none in the before file)"
            if unscored
            else ""
        )
        + f": agree {summary['agree']} ({summary['agree_share']:.1%}; target >= {TARGET_AGREE:.0%}), "
        f"differ {summary['differ']} ({summary['differ_share']:.1%}; target <= {TARGET_DIFFER:.0%}), "
        f"left {summary['left']} ({summary['left_share']:.1%})"
    )
    if rejected or unscored:
        print(
            f"  all {everything['classes']} classes: agree {everything['agree']} ({everything['agree_share']:.1%}), "
            f"differ {everything['differ']} ({everything['differ_share']:.1%}), "
            f"left {everything['left']} ({everything['left_share']:.1%})"
        )
    for area, count in summary["by_area"].items():
        print(
            f"  {area:<14} {count['classes']:>3} classes: agree {count['agree']}, "
            f"differ {count['differ']}, left {count['left']}"
        )
    if args.json:
        payload = {"totals": summary, "all": everything, "pairs": [asdict(result) for result in results]}
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
