"""HWC201 on the distributed, jit and autograd tests of real trees.

    python benchmarks/bench_distributed.py TREE [TREE...] [--oldest-torch 2.9] [--parts distributed jit autograd]

For each tree, on a copy of its files whose path names one of the parts (a
folder `distributed/`, or `test_autograd.py`; the tree itself is never
written), as benchmarks/bench_rewrite.py does for whole trees:

1. classifies every unclassified test class. `--classify naive` as
   bench_rewrite.py does: ACCELERATOR when its file passes it to
   `instantiate_device_type_tests`, else GENERIC. `--classify migrate`
   (the default) as a migration to device-generic tests would, which is
   what PyTorch's migrated distributed tests look like: a class that
   hard-codes a device (any HWC201 site) or whose tests need an
   accelerator (`@skip_if_lt_x_gpu(2)`, `@requires_nccl()`) becomes
   ACCELERATOR and is passed to `instantiate_device_type_tests` (a line
   appended to its file), the others as above. Distributed test classes
   are seldom instantiated today: naively, nearly all of them are GENERIC,
   where HWC201 only says that they are misclassified;
2. counts HWC201's sites in ACCELERATOR classes by pattern (the distributed
   ones: `"nccl"` backends, `@requires_nccl()`, `torch.cuda.set_device()`,
   `torch.cuda.device_count()`, `f"cuda:{rank}"`, `torch.device("cuda",
   rank)`; and the others), and those with a device-generic rewrite in the
   `oldest-torch` release (the rule plans one);
3. runs `hwlint fix --unsafe --select HWC201`'s rewrites and counts those
   made and verified;
4. checks the result: every file parses, no finding of any rule is new, a
   second run rewrites nothing.

It prints one table per tree and one for all, the sites in GENERIC classes
(a misclassification, never rewritten) and the reasons for what is left,
and exits 1 when fewer than 80% of the sites with a device-generic
equivalent were rewritten and verified, or when step 4 finds anything.
"""

from __future__ import annotations

import argparse
import collections
import difflib
import shutil
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_rewrite import classify_naively, findings  # noqa: E402

from hwlint.core.config import load_config  # noqa: E402
from hwlint.core.diagnostics import NotFixable, Rewrite  # noqa: E402
from hwlint.engine.check import CheckResult, run_check  # noqa: E402
from hwlint.facts import Site  # noqa: E402
from hwlint.fix.apply import apply_fixes  # noqa: E402
from hwlint.fix.plan import ClassFix  # noqa: E402
from hwlint.fix.result import FixError  # noqa: E402
from hwlint.fix.transform import fix_source  # noqa: E402

TARGET = 0.80
ORDER = (
    'backend "<ccl>"',
    'backend "<ccl>", pg_options',
    "@requires_<ccl>()",
    "ProcessGroup<CCL>, <CCL>_* env",
    "torch.<dev>.set_device()",
    "torch.<dev>.device_count()",
    'f"<dev>:{i}"',
    'torch.device("<dev>", i)',
    'device="<dev>"',
    ".<dev>()",
    '.to("<dev>")',
    'torch.device("<dev>")',
    "torch.<dev>.<fn>()",
)


def pattern(site: Site) -> str:
    if site.kind == "module":
        last = site.name.rsplit(".", 1)[-1]
        return f"torch.<dev>.{last}()" if last in ("set_device", "device_count") else "torch.<dev>.<fn>()"
    if site.kind == "torch.device" and "," in site.text:
        return 'torch.device("<dev>", i)'
    return {
        "keyword": 'device="<dev>"',
        "method": ".<dev>()",
        "to": '.to("<dev>")',
        "torch.device": 'torch.device("<dev>")',
        "fstring": 'f"<dev>:{i}"',
        "backend": 'backend "<ccl>"',
        "backend-options": 'backend "<ccl>", pg_options',
        "decorator": "@requires_<ccl>()",
        "backend-feature": "ProcessGroup<CCL>, <CCL>_* env",
    }[site.kind]


def sites_by_class(result: CheckResult, member: str) -> dict[tuple[str, int, int], str]:
    """(path, line, column) -> pattern of every hard-coded device in a `member` class."""
    sites = {}
    for ctx in result.contexts:
        for info in ctx.test_classes():
            if info.classification == member:
                for site in (*info.facts.devices, *info.facts.distributed):
                    sites[(ctx.path, site.line, site.column)] = pattern(site)
    return sites


def classify_migrating(root: Path) -> dict[str, int]:
    """Declare every unclassified test class: ACCELERATOR, instantiated per
    device, when it hard-codes a device or its tests need an accelerator;
    ACCELERATOR when instantiated already; else GENERIC."""
    config = load_config(start=root)
    result = run_check(config, None, select=("HWC001",), use_allowlist=False)
    counts: collections.Counter[str] = collections.Counter()
    unclassified = {(d.path, d.class_name) for d in result.diagnostics if d.code == "HWC001" and d.class_name}
    for ctx in result.contexts:
        instantiated = {i.class_name for i in ctx.facts.instantiations}
        fixes: list[ClassFix] = []
        added: list[str] = []
        seen: dict[str, int] = {}
        for cls in ctx.facts.classes:
            occurrence = seen.get(cls.name, 0)
            seen[cls.name] = occurrence + 1
            if (ctx.path, cls.name) not in unclassified:
                continue
            member = "GENERIC"
            if cls.name in instantiated:
                member = "ACCELERATOR"
            elif cls.devices or cls.distributed or cls.requires:
                member = "ACCELERATOR"
                if cls.name not in added and cls.branch.path == ():
                    added.append(cls.name)
            fixes.append(ClassFix(cls.name, occurrence, member, "unsafe", "migrate", cls.line, cls.column))
        if not fixes:
            continue
        file = root / ctx.path
        try:
            data = fix_source(file.read_bytes(), fixes, config)
        except FixError as exc:
            print(f"  not classified: {ctx.path}: {exc}", file=sys.stderr)
            continue
        if added:
            data += (
                "\n\nfrom torch.testing._internal.common_device_type import instantiate_device_type_tests  # bench\n"
                + "".join(f"instantiate_device_type_tests({name}, globals())  # bench\n" for name in added)
            ).encode()
        file.write_bytes(data)
        counts.update(f.member for f in fixes)
    return dict(counts)


def wanted(path: Path, parts: tuple[str, ...]) -> bool:
    return any(p in parts for p in path.parts[:-1]) or any(p in path.name for p in parts)


class Measure(NamedTuple):
    files: int
    classified: dict[str, int]
    rows: dict[str, list[int]]  # pattern -> [sites, with a device-generic rewrite, rewritten and verified]
    generic: collections.Counter[str]  # pattern -> sites in GENERIC classes
    reasons: collections.Counter[str]
    new: collections.Counter[tuple[str, int, str, str | None]]
    broken: list[str]
    again: int
    failed: list[str]
    oldest: str


def measure(tree: Path, parts: tuple[str, ...], oldest_torch: str | None, classify: str) -> Measure:
    with tempfile.TemporaryDirectory(prefix="hwlint-bench-distributed-") as tmp:
        root = Path(tmp) / "tree"
        copied = 0
        for file in sorted(tree.rglob("*.py")):
            rel = file.relative_to(tree)
            if file.is_file() and wanted(rel, parts):
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(file, root / rel)
                copied += 1
        root.mkdir(parents=True, exist_ok=True)
        settings = '[tool.hwlint]\ninclude = ["**/test_*.py", "**/*_test.py"]\nallowlist = "no-allowlist.txt"\n'
        if oldest_torch:
            settings += f'oldest-torch = "{oldest_torch}"\n'
        (root / "hwlint.toml").write_text(settings)
        classified = classify_naively(root) if classify == "naive" else classify_migrating(root)
        config = load_config(start=root)
        before = run_check(config, None, select=("ALL",), use_allowlist=False)
        sites = sites_by_class(before, "ACCELERATOR")
        generic = sites_by_class(before, "GENERIC")
        fixes = {(d.path, d.line, d.column): d.fix for d in before.diagnostics if d.code == "HWC201"}
        planned = {key for key in sites if isinstance(fixes.get(key), Rewrite)}
        reasons = collections.Counter(
            fix.reason for key, fix in fixes.items() if key in sites and isinstance(fix, NotFixable)
        )
        report = apply_fixes(config, before, unsafe=True, classes=None, write=True, jobs=None)
        rewritten = {(f.path, r.line, r.column) for f in report.files for r in f.rewritten}
        reasons.update(
            u.reason for u in report.unfixed if u.code == "HWC201" and u.reason.startswith("not rewritten: ")
        )
        failed = [f"{f.path}: {f.error}" for f in report.files if getattr(f, "error", None)]
        after = run_check(config, None, select=("ALL",), use_allowlist=False)
        # An import added for `@requires_accelerator_dist_backend()` moves
        # the lines below it: compare the findings where they are now.
        moved = {f.path: line_map(f.original, f.fixed) for f in report.files if f.fixed and f.changed}
        was: collections.Counter[tuple[str, int, str, str | None]] = collections.Counter()
        for (path, line, code, cls), n in findings(before).items():
            was[(path, moved[path].get(line, line) if path in moved else line, code, cls)] += n
        new = findings(after) - was
        broken = [
            d.path
            for d in after.diagnostics
            if d.code == "HWC000" and all(b.path != d.path or b.code != "HWC000" for b in before.diagnostics)
        ]
        again = apply_fixes(config, after, unsafe=True, classes=None, write=False, jobs=None)
    rows: dict[str, list[int]] = {}
    for key, label in sites.items():
        row = rows.setdefault(label, [0, 0, 0])
        row[0] += 1
        row[1] += key in planned
        row[2] += key in rewritten
    return Measure(
        copied,
        classified,
        rows,
        collections.Counter(generic.values()),
        reasons,
        new,
        broken,
        again.rewritten,
        failed,
        config.oldest_torch,
    )


def line_map(before: bytes, after: bytes) -> dict[int, int]:
    """Where each unchanged line of `before` is in `after` (1-based)."""
    old, new = before.splitlines(), after.splitlines()
    found: dict[int, int] = {}
    for block in difflib.SequenceMatcher(None, old, new, autojunk=False).get_matching_blocks():
        for i in range(block.size):
            found[block.a + i + 1] = block.b + i + 1
    return found


def table(title: str, rows: dict[str, list[int]]) -> tuple[int, int, int]:
    print(f"\n{title}")
    print(f"  {'pattern':<32}{'sites':>7}{'generic':>9}{'rewritten':>11}{'share':>8}")
    total = [0, 0, 0]
    for label in ORDER:
        if label not in rows:
            continue
        row = rows[label]
        total = [a + b for a, b in zip(total, row)]
        share = f"{row[2] / row[1]:.0%}" if row[1] else "-"
        print(f"  {label:<32}{row[0]:>7}{row[1]:>9}{row[2]:>11}{share:>8}")
    share = f"{total[2] / total[1]:.0%}" if total[1] else "-"
    print(f"  {'all':<32}{total[0]:>7}{total[1]:>9}{total[2]:>11}{share:>8}")
    return total[0], total[1], total[2]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", type=Path, nargs="+")
    parser.add_argument("--oldest-torch", default=None, help="the oldest-torch setting (default: hwlint's)")
    parser.add_argument("--parts", nargs="+", default=["distributed", "jit", "autograd"])
    parser.add_argument("--classify", choices=("migrate", "naive"), default="migrate")
    args = parser.parse_args()
    everything: dict[str, list[int]] = {}
    reasons: collections.Counter[str] = collections.Counter()
    ok = True
    for tree in args.trees:
        m = measure(tree, tuple(args.parts), args.oldest_torch, args.classify)
        print(f"\n== {tree}: {m.files} files, classified ({args.classify}) {m.classified}, oldest-torch {m.oldest}")
        table(
            "HWC201 sites in ACCELERATOR classes (generic: a device-generic rewrite; rewritten: made and verified)",
            m.rows,
        )
        print(f"  in GENERIC classes (misclassified, never rewritten): {dict(m.generic)}")
        for label, row in m.rows.items():
            total = everything.setdefault(label, [0, 0, 0])
            everything[label] = [a + b for a, b in zip(total, row)]
        reasons.update(m.reasons)
        print(
            f"  after: {len(m.broken)} files no longer parse, {sum(m.new.values())} new findings, "
            f"a second run would rewrite {m.again}; {len(m.failed)} files not written"
        )
        for line in m.failed[:5]:
            print(f"    {line}")
        for key in list(m.new)[:5]:
            print(f"    new: {key}")
        ok = ok and not m.broken and not m.new and m.again == 0
    _, with_generic, done = table("== all trees", everything)
    if reasons:
        print("\nNo rewrite, by reason:")
        for reason, n in reasons.most_common(25):
            print(f"  {n:>5}  {reason}")
    share = done / with_generic if with_generic else 1.0
    print(f"\n{done} of {with_generic} sites with a device-generic equivalent rewritten and verified: {share:.0%}")
    return 0 if ok and share >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
