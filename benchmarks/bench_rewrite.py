"""How much of HWC201 `hwlint fix --unsafe --select HWC201` rewrites, on any tree.

    python benchmarks/bench_rewrite.py PATH/TO/TREE [--oldest-torch 2.9]

Works on a copy of the tree (the tree itself is never written):

1. classifies it naively, as issue 15 measured it: every unclassified test
   class becomes ACCELERATOR when its file passes it to
   `instantiate_device_type_tests`, else GENERIC;
2. counts HWC201's sites in ACCELERATOR classes by pattern (`device="cuda"`,
   `.cuda()`, `.to("cuda")`, `torch.device("cuda")`, one-device module
   calls), and those for which the rule plans a device-generic rewrite;
3. runs the rewrites (verified, as `hwlint fix` does) and counts them;
4. checks the result: every file still parses, no finding of any rule is
   new (findings compare by file, line, rule and class: rewrites move
   columns, never lines), and a second run rewrites nothing.

It prints the share of sites rewritten, by pattern, the reasons for the
rest, and exits 1 when fewer than 80% of the sites that have a device-generic
equivalent were rewritten, or when step 4 finds anything.
"""

from __future__ import annotations

import argparse
import collections
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from hwlint.core.config import load_config  # noqa: E402
from hwlint.core.diagnostics import NotFixable, Rewrite  # noqa: E402
from hwlint.engine.check import CheckResult, run_check  # noqa: E402
from hwlint.fix.apply import apply_fixes  # noqa: E402
from hwlint.fix.plan import ClassFix  # noqa: E402
from hwlint.fix.result import FixError  # noqa: E402
from hwlint.fix.transform import fix_source  # noqa: E402

TARGET = 0.80
PATTERNS = {
    "keyword": 'device="<dev>"',
    "method": ".<dev>()",
    "to": '.to("<dev>")',
    "torch.device": 'torch.device("<dev>")',
    "module": "torch.<dev>.<fn>()",
    "fstring": 'f"<dev>:{i}"',
    "backend": 'backend "<ccl>"',
    "backend-options": 'backend "<ccl>", pg_options',
    "decorator": "@requires_<ccl>()",
    "backend-feature": "ProcessGroup<CCL>, <CCL>_* env",
}


def classify_naively(root: Path) -> dict[str, int]:
    """Declare every unclassified test class: ACCELERATOR when instantiated
    per device in its file, else GENERIC."""
    config = load_config(start=root)
    result = run_check(config, None, select=("HWC001",), use_allowlist=False)
    plans: dict[str, list[ClassFix]] = {}
    for ctx in result.contexts:
        instantiated = {i.class_name for i in ctx.facts.instantiations}
        seen: dict[str, int] = {}
        occurrence: dict[tuple[str, int], int] = {}
        for cls in ctx.facts.classes:
            occurrence[(cls.name, cls.line)] = seen.get(cls.name, 0)
            seen[cls.name] = occurrence[(cls.name, cls.line)] + 1
        for d in result.diagnostics:
            if d.path == ctx.path and d.code == "HWC001" and d.class_name:
                member = "ACCELERATOR" if d.class_name in instantiated else "GENERIC"
                plans.setdefault(d.path, []).append(
                    ClassFix(
                        d.class_name,
                        occurrence.get((d.class_name, d.line), 0),
                        member,
                        "unsafe",
                        "naive",
                        d.line,
                        d.column,
                    )
                )
    counts: collections.Counter[str] = collections.Counter()
    for path, fixes in plans.items():
        file = root / path
        try:
            file.write_bytes(fix_source(file.read_bytes(), fixes, config))
        except FixError as exc:
            print(f"  not classified: {path}: {exc}", file=sys.stderr)
            continue
        counts.update(f.member for f in fixes)
    return dict(counts)


def accelerator_sites(result: CheckResult) -> dict[tuple[str, int, int], str]:
    """(path, line, column) -> kind of every hard-coded device in an ACCELERATOR class."""
    sites = {}
    for ctx in result.contexts:
        for info in ctx.test_classes():
            if info.classification == "ACCELERATOR":
                for site in (*info.facts.devices, *info.facts.distributed):
                    sites[(ctx.path, site.line, site.column)] = site.kind
    return sites


def findings(result: CheckResult) -> collections.Counter[tuple[str, int, str, str | None]]:
    return collections.Counter((d.path, d.line, d.code, d.class_name) for d in result.diagnostics)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree", type=Path)
    parser.add_argument("--oldest-torch", default=None, help="the oldest-torch setting (default: hwlint's)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hwlint-bench-rewrite-") as tmp:
        root = Path(tmp) / "tree"
        shutil.copytree(args.tree, root, symlinks=True, ignore=shutil.ignore_patterns(".git", ".hwlint_cache"))
        settings = '[tool.hwlint]\ninclude = ["**/test_*.py", "**/*_test.py"]\nallowlist = "no-allowlist.txt"\n'
        if args.oldest_torch:
            settings += f'oldest-torch = "{args.oldest_torch}"\n'
        (root / "hwlint.toml").write_text(settings)
        print(f"{args.tree}: classified naively: {classify_naively(root)}")

        config = load_config(start=root)
        before = run_check(config, None, select=("ALL",), use_allowlist=False)
        sites = accelerator_sites(before)
        fixes = {(d.path, d.line, d.column): d.fix for d in before.diagnostics if d.code == "HWC201"}
        planned = {key for key in sites if isinstance(fixes.get(key), Rewrite)}
        not_planned = collections.Counter(
            fix.reason for key, fix in fixes.items() if key in sites and isinstance(fix, NotFixable)
        )

        report = apply_fixes(config, before, unsafe=True, classes=None, write=True, jobs=None)
        rewritten = {(f.path, r.line, r.column) for f in report.files for r in f.rewritten}
        # Planned sites the tree did not allow (the rule's own "no rewrite"
        # findings are counted above).
        not_done = collections.Counter(
            u.reason for u in report.unfixed if u.code == "HWC201" and u.reason.startswith("not rewritten: ")
        )

        after = run_check(config, None, select=("ALL",), use_allowlist=False)
        new = findings(after) - findings(before)
        broken = [
            d
            for d in after.diagnostics
            if d.code == "HWC000" and all(b.path != d.path or b.code != "HWC000" for b in before.diagnostics)
        ]
        again = apply_fixes(config, after, unsafe=True, classes=None, write=False, jobs=None)

    print(f"\nHWC201 sites in ACCELERATOR classes (oldest-torch {config.oldest_torch}):")
    print(f"  {'pattern':<32}{'sites':>7}{'generic':>9}{'rewritten':>11}{'share':>8}")
    total = [0, 0, 0]
    for kind, label in PATTERNS.items():
        keys = [k for k, v in sites.items() if v == kind]
        row = [len(keys), sum(k in planned for k in keys), sum(k in rewritten for k in keys)]
        total = [a + b for a, b in zip(total, row)]
        share = f"{row[2] / row[1]:.0%}" if row[1] else "-"
        print(f"  {label:<32}{row[0]:>7}{row[1]:>9}{row[2]:>11}{share:>8}")
    share_all = total[2] / total[1] if total[1] else 1.0
    print(f"  {'all':<32}{total[0]:>7}{total[1]:>9}{total[2]:>11}{share_all:>8.0%}")
    print("  (generic: the rule plans a device-generic rewrite; rewritten: made and verified)")
    if not_planned:
        print("\nNo device-generic rewrite (the rule's reason):")
        for reason, n in not_planned.most_common():
            print(f"  {n:>5}  {reason}")
    if not_done:
        print("\nPlanned but not rewritten (the fix's reason):")
        for reason, n in not_done.most_common():
            print(f"  {n:>5}  {reason}")
    print(
        f"\nAfter the rewrite: {len(broken)} files no longer parse, {sum(new.values())} new findings, "
        f"a second run would rewrite {again.rewritten}."
    )
    for key, n in list(new.items())[:10]:
        print(f"  new: {key} x{n}")
    ok = share_all >= TARGET and not broken and not new and again.rewritten == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
