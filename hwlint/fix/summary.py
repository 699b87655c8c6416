"""The words of `hwlint fix`'s summary (FixReport.summary): what was done,
the migrations by kind, and what is left for a human, counted by reason;
and what a refused migration leaves (`refused_unfixed`).

The wording is apart from the records it describes (hwlint.fix.result):
these functions take the counts and the records they name, nothing of the
run that made them.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from hwlint.fix.kinds import MigrationKind, UnfixedKind
from hwlint.fix.migrate.outcome import KINDS, Done, Refused
from hwlint.fix.plan_records import ClassMove, Respelling, Unfixed
from hwlint.rules import PER_FINDING
from hwlint.rules.missing_classification import MissingClassification

# Up to this many classes left for a human are listed without --show-unfixed.
_LIST_AT_MOST = 10


def done_line(written: bool, files: int, replaced: int, classified: Mapping[str, int], rewritten: int) -> str:
    """The summary's first line: the classes classified, the string
    declarations replaced and the hard-coded devices rewritten, in how many
    files, with the classifications counted (FixReport.classified)."""
    declared = sum(classified.values()) - replaced
    classes = f"{declared} class{'es' if declared != 1 else ''}"
    strings = f"{replaced} string declaration{'s' if replaced != 1 else ''}"
    if not replaced:
        done = f"Classified {classes}" if written else f"Would classify {classes}"
    elif not declared:
        done = f"Fixed {strings}" if written else f"Would fix {strings}"
    else:
        done = f"Classified {classes} and fixed {strings}" if written else f"Would classify {classes} and fix {strings}"
    if rewritten:
        devices = f"{rewritten} hard-coded device{'s' if rewritten != 1 else ''}"
        rewrote = f"rewrote {devices}" if written else f"rewrite {devices}"
        done = (
            f"{done} and {rewrote}"
            if declared or replaced
            else (f"Rewrote {devices}" if written else f"Would rewrite {devices}")
        )
    breakdown = ", ".join(f"{member} {n}" for member, n in classified.items())
    return f"{done} in {files} file{'s' if files != 1 else ''}" + (f" ({breakdown})" if breakdown else "") + "."


def respelt_lines(written: bool, respelt: Sequence[tuple[str, Respelling]]) -> list[str]:
    """The misspelt devices respelt (HWC003's "did you mean"), each with where it was found."""
    if not respelt:
        return []
    count = f"{len(respelt)} misspelt device{'s' if len(respelt) != 1 else ''}"
    lines = [f"{'Respelt' if written else 'Would respell'} {count} (unsafe: review the diff):"]
    lines.extend(f'  {path}:{x.line}: "{x.wrong}" -> "{x.right}"' for path, x in respelt)
    return lines


def unfixed_lines(unfixed: Sequence[Unfixed], *, show_unfixed: bool = False) -> list[str]:
    """What is left for a human, counted by reason with an example each;
    each class too with `show_unfixed`, or when there are few."""
    if not unfixed:
        return []
    lines: list[str] = []
    n = len(unfixed)
    ordered = sorted(unfixed, key=lambda u: (u.path, u.line))
    groups: dict[str, list[Unfixed]] = {}
    for u in ordered:
        groups.setdefault(u.group, []).append(u)
    # A rewrite is of a site, not of a class.
    things = "class" if all(u.code not in PER_FINDING for u in unfixed) else "finding"
    plural = "es" if things == "class" else "s"
    lines.append(f"{n} {things}{plural if n != 1 else ''} need{'s' if n == 1 else ''} a human, by reason:")
    width = len(str(max(len(g) for g in groups.values())))
    for group, members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        example = members[0]
        lines.append(f"  {len(members):>{width}} {group} (e.g. {example.path}:{example.line} {example.class_name})")
    if show_unfixed or n <= _LIST_AT_MOST:
        lines.append(f"Each {things}:")
        lines.extend(f"  {u.path}:{u.line}: {u.class_name}: {u.reason}" for u in ordered)
    else:
        lines.append("`hwlint fix --show-unfixed` lists each class; `--format json` prints them for scripts.")
    return lines


def migration_lines(
    written: bool,
    migrated: Mapping[str, int],
    done: Sequence[tuple[str, Done]],
    moves: Sequence[tuple[str, ClassMove]],
) -> list[str]:
    """The class migrations, by kind (FixReport.migrated), and the
    per-device classes the runtime collects from the classes now
    instantiated; `done` and `moves` are each file's migrations and moves,
    with its path."""
    if not migrated:
        return []
    verb = "Migrated" if written else "Would migrate"
    lines = [f"{verb} (unsafe: review the diff), by kind:"]
    width = len(str(max(migrated.values())))
    lines.extend(
        f"  {n:>{width}} {KINDS.get(kind, kind)}"
        for kind, n in sorted(migrated.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    # A moved test's class is the one it went to; several tests moved there are one line.
    collected = list(dict.fromkeys((path, d.to_class or d.class_name, d.collected) for path, d in done if d.collected))
    if collected:
        lines.append("Instantiated per device, collected as (where the machine has the device):")
        lines.extend(f"  {path}: {name} -> {', '.join(names)}" for path, name, names in collected[:_LIST_AT_MOST])
        if len(collected) > _LIST_AT_MOST:
            lines.append(f"  ... {len(collected) - _LIST_AT_MOST} more (`--format json` lists them)")
    shown = [(path, m) for path, m in moves if m.old != m.new]
    if shown:
        lines.append("Tests moved to new classes:")
        lines.extend(
            f"  {path}: tests of {m.old} now in {m.new}" + (f": {_tests(m.tests)}" if m.tests else "")
            for path, m in shown[:_LIST_AT_MOST]
        )
        if len(shown) > _LIST_AT_MOST:
            lines.append(f"  ... {len(shown) - _LIST_AT_MOST} more (`--format json` lists them)")
    return lines


def not_generalized_lines(stayed: Sequence[tuple[str, Refused]], *, show_all: bool = False) -> list[str]:
    """The one-device classes that stay one device, each with what blocked
    making it device-generic (the site and why); counted by kind of
    blocker, with an example each, when there are many."""
    if not stayed:
        return []
    n = len(stayed)
    lines = [
        f"{n} one-device class{'es' if n != 1 else ''} not made device-generic, by what blocked {'them' if n != 1 else 'it'}:"
    ]
    ordered = sorted(stayed, key=lambda pr: (pr[0], pr[1].migration.line))
    if show_all or n <= _LIST_AT_MOST:
        lines.extend(
            f"  {path}:{x.migration.line}: {x.migration.class_name}: {x.blocked_by.describe()}" for path, x in ordered
        )
        return lines
    groups: dict[str, list[tuple[str, Refused]]] = {}
    for path, x in ordered:
        groups.setdefault(x.blocked_by.kind, []).append((path, x))
    width = len(str(max(len(g) for g in groups.values())))
    for kind, members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        path, x = members[0]
        lines.append(
            f"  {len(members):>{width}} {kind} (e.g. {path}:{x.migration.line} {x.migration.class_name}: {x.blocked_by.describe()})"
        )
    lines.append(
        "`hwlint fix --show-unfixed` lists each class; `--format json` gives each blocker (`not_generalized`)."
    )
    return lines


def not_split_lines(whole: Sequence[tuple[str, Refused, str]], *, show_all: bool = False) -> list[str]:
    """The mixed classes classified whole because their split was refused
    (path, refusal, the classification written), each with why: some of
    their tests do not fit it (a GENERIC class's tests that need an
    accelerator skip on every runner that selects it)."""
    if not whole:
        return []
    n = len(whole)
    lines = [f"{n} mixed class{'es' if n != 1 else ''} classified whole, not split by test, because:"]
    ordered = sorted(whole, key=lambda w: (w[0], w[1].migration.line))
    shown = ordered if show_all or n <= _LIST_AT_MOST else ordered[:_LIST_AT_MOST]
    lines.extend(
        f"  {path}:{x.migration.line}: {x.migration.class_name} ({member}): {x.reason.removeprefix('not split: ')}"
        for path, x, member in shown
    )
    if len(shown) < n:
        lines.append(
            f"  and {n - len(shown)} more: `hwlint fix --show-unfixed` lists each, `--format json` too (`not_split`)."
        )
    return lines


def _tests(tests: Sequence[str]) -> str:
    """The tests a move took, as the summary lists them (a few, then how many more)."""
    return ", ".join(tests[:_LIST_AT_MOST]) + (
        f" and {len(tests) - _LIST_AT_MOST} more" if len(tests) > _LIST_AT_MOST else ""
    )


# The kind of what is left when a migration is refused: the reason the
# class had (hwlint.rules.infer.REASONS), or the tests' own.
_LEFT: dict[MigrationKind, UnfixedKind] = {
    "only-for": "only-for-several",
    "device-param": "device-not-instantiated",
    "accelerator-tests": "accelerator-tests",
    "generalize": "generalize",  # hwlint.fix.apply says whether the class is left
    "any-gpu": "any-gpu",
    "split": "mixed-accelerator-use",  # hwlint.fix.apply says whether the class is left
    "device-tests": "device-tests",
}


def refused_unfixed(path: str, refused: Refused) -> Unfixed:
    """What a refused migration leaves for a human: its class, where the
    refusal says (else the class's line), why, and what kind of left it is."""
    m = refused.migration
    where = refused.line or m.line
    # A device class left (hwlint.fix.apply._left_mixed): its instantiation refused, not its tests'.
    left = m.kind == "device-tests" and refused.mixed
    return Unfixed(
        path,
        where,
        m.class_name,
        refused.reason,
        "not-instantiable" if left else _LEFT[m.kind],
        code=refused.code or MissingClassification.code,
        blocked_by=refused.blocked_by if m.kind == "generalize" or left else None,
    )
