"""Parity of hwlint's default rules with PyTorch's TEST_LINTER, on real trees.

    python benchmarks/bench_parity.py FOLDER --oracle /path/to/test_linter.py

FOLDER holds test files (every `*.py` under it is linted, by both linters);
the oracle is a copy of PyTorch's `tools/linter/adapters/test_linter.py`,
fetched outside this repository (never commit it). Steps:

1. copy the `*.py` files of FOLDER to a work folder (`--work`, default a
   temporary one), so that the tree itself is never changed;
2. run TEST_LINTER (imported, its allowlist emptied, `check_file` on each
   file) and give every class it reports as unclassified a mechanical
   classification (`mechanical_member`), written into the copy as the first
   statement of the class body: instantiated `only_for` one device (CPU,
   CUDA, MPS, XPU) -> that device; instantiated otherwise -> ACCELERATOR;
   never instantiated but writing `device="cuda"` or `.cuda()` -> CUDA;
   else GENERIC. The choice is what a hurried migration would write, so
   every classification's rules have much to find;
3. run TEST_LINTER and `hwlint check --format json` (default rules, no
   allowlist, no cache) on the classified copy;
4. look for each TEST_LINTER finding in hwlint's: same file, same rule (by
   the class's classification: `[only_for]` is HWC104 for an ACCELERATOR
   class and HWC111 for a device class, `RULES`), same class, same line
   (the method's line for device_param/decorator, the call's for
   only_for/except_for/accelerator_availability), each occurrence;
5. print the table, every TEST_LINTER finding hwlint misses, and every
   hwlint finding of those rules TEST_LINTER does not make, grouped by
   reason. HWC001's recall is measured on the copy before step 2.

Exit status 0 when every rule reaches --target (default 99%) and all rules
together reach --target-all (default 99.5%), else 1.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections import Counter, defaultdict
from pathlib import Path
from types import ModuleType
from typing import Iterable, NamedTuple

# (TEST_LINTER's rule, the group of the class it reports) -> hwlint's code.
# TEST_LINTER registers its rules per classification; the device classes
# (CPU, CUDA, MPS, XPU) share theirs, so they are one group, "device".
# Rows of the table, in this order. Rules of other TEST_LINTER versions
# (decorator, accelerator_availability) are measured when the oracle has them.
RULES: dict[tuple[str, str], str] = {
    ("device_param", "GENERIC"): "HWC102",
    ("device_param", "ACCELERATOR"): "HWC102",
    ("device_param", "device"): "HWC102",
    ("instantiation", "GENERIC"): "HWC101",
    ("instantiation", "ACCELERATOR"): "HWC101",
    ("instantiation", "device"): "HWC101",
    ("only_for", "ACCELERATOR"): "HWC104",
    ("only_for", "device"): "HWC111",
    ("except_for", "device"): "HWC111",
    ("decorator", "ACCELERATOR"): "HWC103",
    ("accelerator_availability", "GENERIC"): "HWC105",
}
DEVICE_MEMBERS = ("CPU", "CUDA", "MPS", "XPU")
ORACLE_SEGMENTS = ("accelerator", "cuda", "hpu", "ipu", "mps", "mtia", "xla", "xpu")
INSTANTIATE = "instantiate_device_type_tests"


class Finding(NamedTuple):
    path: str  # relative to the work folder
    code: str  # hwlint's code
    class_name: str
    line: int


class OracleFinding(NamedTuple):
    finding: Finding
    rule: str  # TEST_LINTER's rule name, without brackets
    group: str  # the class's classification, "device" for CPU/CUDA/MPS/XPU


def load_oracle(oracle: Path, scratch: Path) -> ModuleType:
    """Import TEST_LINTER from a copy placed as tools/linter/adapters/ under
    `scratch` (its REPO_ROOT is three folders up), with an empty allowlist."""
    adapters = scratch / "oracle-root" / "tools" / "linter" / "adapters"
    adapters.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(oracle, adapters / "test_linter.py")
    spec = importlib.util.spec_from_file_location("parity_test_linter", adapters / "test_linter.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    module._allowlist = set()  # type: ignore[attr-defined]
    return module


def run_oracle(oracle: ModuleType, work: Path, files: list[Path]) -> list[tuple[str, str, int, str]]:
    """(path, rule, line, description) of each TEST_LINTER message."""
    found = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarnings of the trees' own files
        for path in files:
            for message in oracle.check_file(str(path)):
                found.append(
                    (
                        path.relative_to(work).as_posix(),
                        message.name.strip("[]"),
                        message.line or 0,
                        message.description or "",
                    )
                )
    return found


def class_at(tree: ast.Module, line: int) -> ast.ClassDef | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.lineno == line:
            return node
    return None


def owner_class(tree: ast.Module, line: int, rule: str) -> str:
    """The test class a TEST_LINTER finding belongs to: the class defined at
    `line` (hw_classification, instantiation), the one whose instantiation is
    at `line` (only_for, except_for), else the outermost class spanning it."""
    if rule in ("only_for", "except_for"):
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and node.lineno == line and node.args and isinstance(node.args[0], ast.Name):
                return node.args[0].id
    best: ast.ClassDef | None = None
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.lineno <= line <= (node.end_lineno or node.lineno):
            if best is None or node.lineno < best.lineno:  # the outermost: TEST_LINTER lints module-level classes
                best = node
    return best.name if best else ""


def instantiations(tree: ast.Module) -> dict[str, list[ast.Call]]:
    """Each class name's `instantiate_device_type_tests` calls, anywhere in
    the module (`common_device_type.instantiate_device_type_tests` too)."""
    calls: dict[str, list[ast.Call]] = defaultdict(list)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and (getattr(node.func, "id", None) or getattr(node.func, "attr", None)) == INSTANTIATE
            and node.args
            and isinstance(node.args[0], ast.Name)
        ):
            calls[node.args[0].id].append(node)
    return calls


def only_device(call: ast.Call) -> str | None:
    """The one device of `only_for="cuda"` (or `["cuda"]`), when it is one
    of TEST_LINTER's device classifications; None otherwise."""
    for kw in call.keywords:
        if kw.arg != "only_for":
            continue
        value = kw.value
        if isinstance(value, (ast.List, ast.Tuple)) and len(value.elts) == 1:
            value = value.elts[0]
        if isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value.upper() in DEVICE_MEMBERS:
            return value.value.upper()
    return None


def writes_cuda(node: ast.ClassDef) -> bool:
    """Whether the class's text hard-codes CUDA: `device="cuda"` (or
    `"cuda:0"`) as a keyword argument, or a `.cuda()` call."""
    for sub in ast.walk(node):
        if not isinstance(sub, ast.Call):
            continue
        if isinstance(sub.func, ast.Attribute) and sub.func.attr == "cuda":
            return True
        for kw in sub.keywords:
            value = kw.value
            if (
                kw.arg == "device"
                and isinstance(value, ast.Constant)
                and isinstance(value.value, str)
                and value.value.split(":", 1)[0] == "cuda"
            ):
                return True
    return False


def mechanical_member(node: ast.ClassDef, calls: list[ast.Call]) -> str:
    """The classification a hurried migration gives a class: the one device
    every instantiation limits it to with `only_for`; ACCELERATOR for any
    other instantiation; CUDA for a class never instantiated that hard-codes
    CUDA; else GENERIC."""
    if calls:
        devices = {only_device(call) for call in calls}
        if len(devices) == 1 and None not in devices:
            return devices.pop()  # type: ignore[return-value]
        return "ACCELERATOR"
    return "CUDA" if writes_cuda(node) else "GENERIC"


def classify(path: Path, lines: Iterable[int]) -> tuple[Counter[str], int]:
    """Write the mechanical classification into the classes defined at
    `lines`. Returns (classes classified by member, skipped: a body on the
    `class` line itself)."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    calls = instantiations(tree)
    text = source.splitlines(keepends=True)
    inserts = []
    skipped = 0
    for line in set(lines):
        node = class_at(tree, line)
        if node is None:
            skipped += 1
            continue
        first = node.body[0]
        if first.lineno == node.lineno:
            skipped += 1
            continue
        indent = re.match(r"[ \t]*", text[first.lineno - 1]).group(0)  # type: ignore[union-attr]
        member = mechanical_member(node, calls.get(node.name, []))
        # Before the first statement (decorators of a first method included).
        at = min([first.lineno] + [d.lineno for d in getattr(first, "decorator_list", [])])
        inserts.append((at, f"{indent}hw_classification = HardwareClassification.{member}\n", member))
    for at, declaration, _ in sorted(inserts, reverse=True):
        text.insert(at - 1, declaration)
    path.write_text("".join(text), encoding="utf-8")
    return Counter(member for _, _, member in inserts), skipped


def run_hwlint(work: Path) -> list[dict[str, object]]:
    (work / "hwlint.toml").write_text('include = ["**/*.py"]\nallowlist = "no-allowlist.txt"\n')
    proc = subprocess.run(
        [sys.executable, "-m", "hwlint", "check", "--format", "json", "--no-cache", "--exit-zero"],
        cwd=work,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        sys.exit(f"hwlint failed ({proc.returncode}): {proc.stderr.strip()}")
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def class_group(oracle: ModuleType, tree: ast.Module, name: str) -> str:
    """The group TEST_LINTER registers a module-level class's rules under:
    its classification as TEST_LINTER reads it, "device" for CPU, CUDA,
    MPS and XPU; "" when it has none."""
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            member = oracle._get_hw_classification(node)
            if member is None:
                return ""
            return "device" if member.name in DEVICE_MEMBERS else str(member.name)
    return ""


def oracle_findings(
    oracle: ModuleType, raw: list[tuple[str, str, int, str]], trees: dict[str, ast.Module]
) -> list[OracleFinding]:
    found = []
    for path, rule, line, _ in raw:
        owner = owner_class(trees[path], line, rule)
        if rule == "hw_classification":
            found.append(OracleFinding(Finding(path, "HWC001", owner, line), rule, ""))
            continue
        group = class_group(oracle, trees[path], owner)
        code = RULES.get((rule, group))
        if code is not None:
            found.append(OracleFinding(Finding(path, code, owner, line), rule, group))
    return found


def oracle_rules(oracle: Path) -> set[str]:
    """The rule names this version of TEST_LINTER reports (`name="[only_for]"`)."""
    return set(re.findall(r"""name=["']\[(\w+)\]["']""", oracle.read_text(encoding="utf-8")))


def match(expected: list[Finding], actual: list[Finding]) -> tuple[Counter[Finding], Counter[Finding]]:
    """(missed, extra): multiset differences."""
    want, have = Counter(expected), Counter(actual)
    return want - have, have - want


def reason(finding: Finding, tree: ast.Module, lines: list[str], oracle_classes: set[tuple[str, str]]) -> str:
    """Why hwlint reports what TEST_LINTER does not, from the source at the finding."""
    if (finding.path, finding.class_name) not in oracle_classes:
        return "class TEST_LINTER does not lint (no test methods of its own, or nested)"
    text = lines[finding.line - 1].strip() if 0 < finding.line <= len(lines) else ""
    decorated = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.ClassDef)
        and n.name == finding.class_name
        and n.decorator_list
        and n.decorator_list[0].lineno <= finding.line < n.lineno
    ]
    if finding.code == "HWC105" and decorated:
        return "probe in a class decorator (deliberately broader)"
    if finding.code == "HWC105":
        flag = re.search(r"\bTEST_[A-Z0-9_]+", text)
        if "torch.npu" in text:
            return "call into torch.npu (PrivateUse1, deliberately broader)"
        if flag:
            return f"TEST_* flag ({flag.group(0)}; deliberately broader)"
        return f"other: {text[:70]}"
    if finding.code == "HWC103":
        names = re.findall(r"@(?:\w+\.)*(only\w+)", "".join(lines[max(0, finding.line - 8) : finding.line]))
        return f"decorator {sorted(set(names))} (TEST_LINTER's list does not name it)"
    if finding.code == "HWC111":
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.lineno == finding.line]
        if calls and not any(kw.arg in ("allow_mps", "allow_xpu") for call in calls for kw in call.keywords):
            return "MPS/XPU class instantiated without allow_mps/allow_xpu (TEST_LINTER does not check it)"
    if finding.code == "HWC102" and not re.match(r"def test_", text):
        return "test method TEST_LINTER does not check (async, or not named test_*)"
    return f"other {finding.code}: {text[:70]}"


def _oracle_test_classes(oracle: ModuleType, tree: ast.Module) -> list[str]:
    """The names of the classes TEST_LINTER lints in a module. Its versions
    differ: newer ones have `_collect_test_classes` (classes in if/try
    blocks too); older ones lint the module's top-level classes that
    `_is_test_class` accepts, in `check_file`."""
    collect = getattr(oracle, "_collect_test_classes", None)
    if collect is not None:
        return list(collect(tree))
    return [node.name for node in tree.body if isinstance(node, ast.ClassDef) and oracle._is_test_class(node)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="a folder of test files (every *.py under it)")
    parser.add_argument("--oracle", type=Path, required=True, help="path of a copy of PyTorch's test_linter.py")
    parser.add_argument("--work", type=Path, help="work folder for the classified copy (default: a temporary one)")
    parser.add_argument("--target", type=float, default=99.0, help="per-rule recall target, percent")
    parser.add_argument("--target-all", type=float, default=99.5, help="recall target over all rules, percent")
    parser.add_argument("--show", type=int, default=5, help="examples shown per group of differences")
    args = parser.parse_args(argv)
    if not args.oracle.is_file():
        parser.error(f"{args.oracle}: no such file (fetch TEST_LINTER outside the repository first)")
    if not args.folder.is_dir():
        parser.error(f"{args.folder}: not a folder")

    scratch = Path(tempfile.mkdtemp(prefix="hwlint-parity-"))
    work = (args.work or scratch / "tree").resolve()
    if work.exists():
        shutil.rmtree(work)
    sources = sorted(p for p in args.folder.rglob("*.py") if p.is_file())
    for source in sources:
        target = work / source.relative_to(args.folder)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    files = sorted(work.rglob("*.py"))
    oracle = load_oracle(args.oracle, scratch)

    # HWC001 recall, and the naive classification.
    before = run_oracle(oracle, work, files)
    trees: dict[str, ast.Module] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in files:
            rel = path.relative_to(work).as_posix()
            try:
                trees[rel] = ast.parse(path.read_text(encoding="utf-8"))
            except (SyntaxError, ValueError, UnicodeDecodeError):
                trees[rel] = ast.Module(body=[], type_ignores=[])
    unclassified = [o.finding for o in oracle_findings(oracle, before, trees) if o.rule == "hw_classification"]
    hw_before = [
        Finding(d["path"], "HWC001", d["class_name"] or "", d["line"])  # type: ignore[arg-type]
        for d in run_hwlint(work)
        if d["code"] == "HWC001"
    ]
    missed_001, _ = match(unclassified, hw_before)
    by_file: dict[str, list[int]] = defaultdict(list)
    for f in unclassified:
        by_file[f.path].append(f.line)
    classified: Counter[str] = Counter()
    skipped = 0
    for rel, at in by_file.items():
        done, not_done = classify(work / rel, at)
        classified += done
        skipped += not_done

    # Both linters on the classified copy.
    after = run_oracle(oracle, work, files)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for rel in by_file:
            trees[rel] = ast.parse((work / rel).read_text(encoding="utf-8"))
    judged = [o for o in oracle_findings(oracle, after, trees) if o.rule != "hw_classification"]
    expected = [o.finding for o in judged]
    has = oracle_rules(args.oracle)
    codes = {code for (rule, _), code in RULES.items() if rule in has}
    actual = [
        Finding(d["path"], d["code"], d["class_name"] or "", d["line"])  # type: ignore[arg-type]
        for d in run_hwlint(work)
        if d["code"] in codes
    ]
    missed, extra = match(expected, actual)

    print(f"# Parity with TEST_LINTER: {args.folder} ({len(files)} files)\n")
    by_member = ", ".join(f"{m} {n}" for m, n in sorted(classified.items()))
    print(
        f"HWC001: {len(unclassified) - sum(missed_001.values())} / {len(unclassified)} of TEST_LINTER's "
        f"[hw_classification] findings; {sum(classified.values())} classes classified mechanically ({by_member})"
        + (f", {skipped} left (body on the class line)" if skipped else "")
        + "\n"
    )
    print("| TEST_LINTER rule | classes | hwlint | found |\n|---|---|---|---|")
    # Each miss is one row's: rows of one code can expect the same finding
    # (`[only_for]` and `[except_for]` of one call), and the first row in
    # RULES's order that expects it takes the miss.
    left = Counter(missed)
    lost: Counter[tuple[str, str]] = Counter()
    for row in RULES:
        for o in judged:
            if (o.rule, o.group) == row and left[o.finding] > 0:
                left[o.finding] -= 1
                lost[row] += 1
    total = found_all = 0
    passed = True
    for (rule, group), code in RULES.items():
        if rule not in has:
            continue
        wanted = sum(1 for o in judged if (o.rule, o.group) == (rule, group))
        found = wanted - lost[(rule, group)]
        total += wanted
        found_all += found
        passed &= not wanted or 100 * found / wanted >= args.target
        print(f"| {rule} | {group} | {code} | {found:,} / {wanted:,} |")
    share = 100 * found_all / total if total else 100.0
    passed &= share >= args.target_all and not missed_001
    print(f"| all | | | **{share:.1f}%** of {total:,} |\n")

    print(f"## TEST_LINTER findings hwlint misses: {sum(missed.values())}\n")
    for f, n in sorted(missed.items()):
        print(f"- {f.path}:{f.line} {f.code} {f.class_name}" + (f" (x{n})" if n > 1 else ""))
    # The classes TEST_LINTER lints, by its own collection.
    oracle_classes = {(path, name) for path, tree in trees.items() for name in _oracle_test_classes(oracle, tree)}
    groups: dict[str, list[Finding]] = defaultdict(list)
    for f, n in extra.items():
        lines = (work / f.path).read_text(encoding="utf-8").splitlines()
        groups[f"{f.code} {reason(f, trees[f.path], lines, oracle_classes)}"].extend([f] * n)
    print(f"\n## hwlint findings TEST_LINTER does not make: {sum(extra.values())}\n")
    for group, members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"- {len(members)}: {group}")
        for f in members[: args.show]:
            print(f"    - {f.path}:{f.line} {f.class_name}")
    if args.work is None:
        shutil.rmtree(scratch, ignore_errors=True)
    print("\nPASS" if passed else "\nFAIL")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
