"""`hwlint fix --pr-description`: the description of the pull request that
carries a fix, in Markdown, as a PyTorch contributor writes one: a title,
the summary by kind, each class and how it was classified, the classes left
for a human and why, the runtime check (`--verify-runtime`), and the test
plan (the `--hw-classification` runs of each file, then `hwlint check`).

One description for the whole run, or one per file or per folder
(`--pr-per`), so that a large migration goes as pull requests a reviewer can
read. Everything here is built from the fix's records (hwlint.fix.result,
hwlint.fix.verify_runtime), never from the words of its messages; the
summary's own lines come from hwlint.fix.summary, so the description and
the terminal say the same.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal, NamedTuple, Sequence, cast

from hwlint.core.diagnostics import UserError
from hwlint.fix.migrate.outcome import KINDS, Done
from hwlint.fix.plan_records import Unfixed
from hwlint.fix.result import FileResult, FixReport
from hwlint.fix.summary import done_line
from hwlint.fix.verify_runtime import ModuleCheck, RuntimeCheck
from hwlint.infra.atomic import write_text_atomic
from hwlint.rules import PER_FINDING

# How the run is cut into descriptions (`--pr-per`): one per test file, one
# per folder of test files, or one for everything.
Per = Literal["file", "folder", "all"]
PER: tuple[Per, ...] = ("file", "folder", "all")
STDOUT = "-"

# The classifications whose classes run on any machine; each other member
# (CUDA, XPU, MPS, a configured NPU) needs a machine with its device, so the
# test plan gives it a command of its own.
_ANYWHERE = frozenset({"GENERIC", "ACCELERATOR", "CPU"})
# Up to this many tests of a migrated class are named (as the summary does).
_LIST_AT_MOST = 10
# A command longer than this is written a file a line.
_WIDE = 100
# What checks the files after the fix (the test plan's last command).
CHECK = "hwlint check"
# The name of the description of the files at the project's root (--pr-per folder).
_ROOT = "__root__"


class Target(NamedTuple):
    """Where the descriptions go (a file, or `-` for stdout, for one
    description; a folder for one per file or per folder), and whether the
    run was `--unsafe` (the descriptions say so, and rerun it so)."""

    path: str
    per: Per
    unsafe: bool = False


class Row(NamedTuple):
    """One class of the description's table: the class as the fix leaves
    it named, its classification (several for a split) and how it got it."""

    path: str
    line: int
    class_name: str
    classification: str
    how: str
    members: tuple[str, ...]  # the classifications the test plan runs for it
    migrated: bool = False  # by a class migration (`--unsafe`), not only declared


@dataclass
class Description:
    """One pull request's description: its file name in the folder
    (--pr-per file|folder; "" for one description), title, the test files
    it covers, the test plan's commands, and its Markdown."""

    name: str
    title: str
    paths: tuple[str, ...]
    commands: tuple[str, ...]
    text: str
    written_to: str = field(default="")

    def to_dict(self) -> dict[str, object]:
        """`fix --format json`'s `pr_descriptions` entry."""
        return {
            "path": self.written_to,
            "title": self.title,
            "files": list(self.paths),
            "test_plan": list(self.commands),
        }


def target(value: str, per: str | None, *, unsafe: bool = False, stdout_used_by: str | None = None) -> Target:
    """The place `--pr-description VALUE` (and `--pr-per`) names, checked
    before anything is fixed; a UserError (one line) when it cannot be
    written. `stdout_used_by`: the option already writing on stdout, if any."""
    mode = cast(Per, per or "all")
    path = Path(value)
    if value == STDOUT:
        if mode != "all":
            raise UserError(f"--pr-per {mode} writes a description per {mode} into a folder: name one, not `-`")
        if stdout_used_by:
            raise UserError(f"--pr-description - and {stdout_used_by} both write on stdout: name a file")
        return Target(value, mode, unsafe)
    parent = path.parent
    if not parent.is_dir():
        raise UserError(f"--pr-description {value}: the folder {parent} does not exist")
    if mode == "all" and path.is_dir():
        raise UserError(
            f"--pr-description {value} is a folder: name a file, or add --pr-per file|folder "
            "to write one description per file or folder into it"
        )
    if mode != "all" and path.exists() and not path.is_dir():
        raise UserError(
            f"--pr-description {value} is a file: --pr-per {mode} writes one description per {mode} into a folder"
        )
    return Target(value, mode, unsafe)


def describe(
    report: FixReport, runtime: RuntimeCheck | None, where: Target, *, members: Sequence[str] = ()
) -> list[Description]:
    """The descriptions of what `report` changed (or, not written, would
    change): one, or one per file or folder (`where.per`) that has a changed
    file. `members`: the configured classifications, in the order commands
    name them."""
    per = where.per
    groups: dict[str, list[FileResult]] = {}
    for result in sorted(report.files, key=lambda r: r.path):
        groups.setdefault(_group(result.path, per), []).append(result)
    descriptions = []
    for key, results in groups.items():
        unfixed = [u for u in report.unfixed if _group(u.path, per) == key]
        modules = [m for m in runtime.modules if _group(m.path, per) == key] if runtime is not None else None
        part = FixReport(results, unfixed, report.written)
        check = RuntimeCheck(runtime.python, tuple(modules)) if runtime is not None and modules is not None else None
        descriptions.append(_description(key, part, check, per=per, unsafe=where.unsafe, members=members))
    return descriptions


def write(descriptions: Sequence[Description], where: Target) -> str:
    """Write the descriptions (each atomically) where `where` says; what was
    written, in one line. A folder (--pr-per) is made when missing."""
    if where.path == STDOUT:
        return ""
    folder = Path(where.path)
    try:
        if where.per == "all":
            for d in descriptions:
                write_text_atomic(folder, d.text)
                d.written_to = where.path
        else:
            folder.mkdir(exist_ok=True)
            for d in descriptions:
                write_text_atomic(folder / d.name, d.text)
                d.written_to = str(folder / d.name)
    except OSError as exc:
        raise UserError(f"--pr-description {where.path}: cannot write: {exc.strerror or exc}") from None
    if not descriptions:
        return "No pull-request description written: the fix changes no file."
    if where.per == "all":
        return f"Wrote the pull-request description to {where.path}."
    n = len(descriptions)
    return f"Wrote {n} pull-request description{'s' if n != 1 else ''} to {where.path}/ (one per {where.per})."


def _group(path: str, per: Per) -> str:
    """The description a test file goes in: itself, its folder, or the one."""
    if per == "all":
        return ""
    if per == "file":
        return path
    folder = str(PurePosixPath(path).parent)
    return "" if folder == "." else folder


def _file_name(key: str, per: Per) -> str:
    """The description's file in the --pr-per folder: the file's or folder's
    path with `/` as `__` (test/inductor -> test__inductor.md)."""
    if per == "all":
        return ""
    stem = key.removesuffix(".py") if per == "file" else key
    return (stem.replace("/", "__") or _ROOT) + ".md"


def _description(
    key: str, report: FixReport, runtime: RuntimeCheck | None, *, per: Per, unsafe: bool, members: Sequence[str]
) -> Description:
    """One description: title, summary, classes, left, runtime check, test plan."""
    rows = [row for result in report.files for row in rows_of(result)]
    paths = tuple(r.path for r in report.files)
    title = _title(report, rows, key if per != "all" else "", len(paths))
    commands = plan_commands(rows, paths, members)
    lines = [f"# {title}", ""]
    if not report.written:
        lines += ["> Described from a dry run: nothing is written yet; this is what `hwlint fix` writes.", ""]
    lines += _summary(report, unsafe)
    lines += _classes(rows)
    lines += _left(report.unfixed)
    lines += runtime_section(runtime, paths, unsafe)
    lines += ["## Test plan", ""]
    lines += [
        "Each command runs the file's tests of those classifications only (`run_tests`' `--hw-classification`); "
        "a device's classes run on a machine that has it.",
        "",
        "```sh",
        *commands[:-1],
        _wrapped(CHECK, paths),
        "```",
    ]
    return Description(_file_name(key, per), title, paths, tuple(commands), "\n".join(lines) + "\n")


def _title(report: FixReport, rows: Sequence[Row], where: str, files: int) -> str:
    """What the pull request does, in one line: the classes it touches (how
    many by a migration), or the devices it rewrites, and where."""
    scope = where or _count(files, "test file")
    if not rows:
        return f"Rewrite {_count(report.rewritten, 'hard-coded device')} in {scope}"
    migrated = sum(r.migrated for r in rows)
    return f"Declare hw_classification: {_count(len(rows), 'test class')} in {scope}" + (
        f" ({migrated} migrated)" if migrated else ""
    )


def _summary(report: FixReport, unsafe: bool) -> list[str]:
    """The summary's own first line, the migrations by kind, what is left."""
    replaced = sum(f.replaces for result in report.files for f in result.fixes)
    lines = [
        "## Summary",
        "",
        done_line(report.written, len(report.files), replaced, report.classified, report.rewritten),
        "",
    ]
    if report.migrated:
        verb = "Migrated" if report.written else "Would migrate"
        lines += [f"{verb} by `hwlint fix --unsafe` (review the diff), by kind:", ""]
        lines += [
            f"- {n} {KINDS.get(kind, kind)} (`{kind}`)"
            for kind, n in sorted(report.migrated.items(), key=lambda kv: (-kv[1], kv[0]))
        ]
        lines.append("")
    elif unsafe:
        lines += ["Made by `hwlint fix --unsafe`: no class migration.", ""]
    if report.unfixed:
        # A rewrite is of a site, not of a class (as the summary counts them).
        things = "class" if all(u.code not in PER_FINDING for u in report.unfixed) else "finding"
        lines += [f"Left for a human: {_count(len(report.unfixed), things)} (below, with why).", ""]
    return lines


def rows_of(result: FileResult) -> list[Row]:
    """Each class of one file that the fix classified or migrated, with how."""
    rows: dict[str, Row] = {}
    for f in result.declared:
        how = (
            f"string declaration replaced by the member ({f.evidence})"
            if f.replaces
            else f"declared ({f.applicability}: {f.evidence})"
        )
        rows[f.class_name] = Row(result.path, f.line, f.class_name, f.member, how, (f.member,))
    splits: dict[str, list[Done]] = {}
    tests: dict[str, list[Done]] = {}  # by the class each test is in now
    for d in result.migrated:
        if d.kind == "split":
            splits.setdefault(d.class_name, []).append(d)
        elif d.method:
            tests.setdefault(d.to_class or d.class_name, []).append(d)
        elif d.member is not None:
            how = f"migrated (`{d.kind}`): {d.detail}" + _collected(d)
            old = rows.get(d.class_name)
            if old is not None:  # declared, then instantiated for its device ("device-class")
                how = f"{old.how}; {how}"
            rows[d.class_name] = Row(result.path, d.line, d.class_name, d.member, how, (d.member,), True)
    for name, made in splits.items():
        moved = {m.new: m.tests for m in result.moves if m.old == name}
        parts = [
            f"`{d.to_class}` ({d.member}, {_count(len(moved.get(d.to_class, ())), 'test')}"
            + (f", collected as {_names(d.collected)})" if d.collected else ")")
            for d in made
        ]
        made_members = tuple(dict.fromkeys(d.member for d in made if d.member is not None))
        how = "split into " + ", ".join(parts)
        rows[name] = Row(result.path, made[0].line, name, ", ".join(made_members), how, made_members, True)
    for name, done in tests.items():
        rows[name] = _tests_row(rows.get(name), result.path, name, done)
    return sorted(rows.values(), key=lambda r: (r.line, r.class_name))


def _tests_row(old: Row | None, path: str, name: str, done: Sequence[Done]) -> Row:
    """The row of a class whose tests were migrated: a class made for
    one-device tests moved out of theirs, the class itself redeclared when
    every test moved, or an ACCELERATOR class (the only classes whose tests
    are migrated) with tests made device-generic. The tests are named, a
    few, then how many more; the first one's detail stands for the moved."""
    moved = [d for d in done if d.kind == "move-tests" and d.member is not None]
    if moved and moved[0].class_name != name:
        m = moved[0]
        member = m.member or ""
        tests = m.detail if len(moved) == 1 else f"{_tests([d.method for d in moved])} (e.g. {m.detail})"
        how = (
            f"new class for {_count(len(moved), 'one-device test')} of `{m.class_name}` "
            f"(`move-tests`{_collected(m, ', ')}): {tests}"
        )
        return Row(path, m.line, name, member, how, (member,), True)
    by_kind: dict[str, list[str]] = {}
    for d in done:
        by_kind.setdefault(d.kind, []).append(d.method)
    member = (moved[0].member or "") if moved else (old.classification if old is not None else "ACCELERATOR")
    head = f"{old.how}; " if old is not None else ("" if moved else "already ACCELERATOR; ")
    collected = _collected(moved[0]) if moved else ""
    tests = "; ".join(f"`{kind}`: {_tests(methods)}" for kind, methods in by_kind.items())
    line = old.line if old is not None else done[0].line
    return Row(path, line, name, member, f"{head}tests migrated{collected}: {tests}", (member,), True)


def _tests(methods: Sequence[str]) -> str:
    """`test_a, test_b`; past a few, how many more."""
    more = f" and {len(methods) - _LIST_AT_MOST} more" if len(methods) > _LIST_AT_MOST else ""
    return ", ".join(methods[:_LIST_AT_MOST]) + more


def _collected(d: Done, within: str = "") -> str:
    """The per-device classes the runtime collects from the class, if any:
    in parentheses, or after `within` inside the caller's."""
    if not d.collected:
        return ""
    return f"{within}collected as {_names(d.collected)}" if within else f" (collected as {_names(d.collected)})"


def _names(names: Sequence[str]) -> str:
    return ", ".join(f"`{name}`" for name in names)


def _count(n: int, thing: str) -> str:
    """`1 class`, `2 classes`, `3 tests`."""
    plural = "es" if thing.endswith(("s", "sh", "ch")) else "s"
    return f"{n} {thing}{plural if n != 1 else ''}"


def _cell(text: str) -> str:
    """Text as one Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def _classes(rows: Sequence[Row]) -> list[str]:
    """The table of the classes classified or migrated."""
    if not rows:
        return []
    lines = ["## Classes", "", "| File | Class | Classification | How |", "|---|---|---|---|"]
    lines += [
        f"| `{r.path}` | `{r.class_name}` | {_cell(r.classification)} | {_cell(r.how)} |"
        for r in sorted(rows, key=lambda r: (r.path, r.line, r.class_name))
    ]
    return [*lines, ""]


def _left(unfixed: Sequence[Unfixed]) -> list[str]:
    """What the fix left for a human, each with why."""
    if not unfixed:
        return []
    lines = ["## Left for a human", "", "| Where | Class | Why |", "|---|---|---|"]
    lines += [
        f"| `{u.path}:{u.line}` | `{u.class_name}` | {_cell(u.reason)} |"
        for u in sorted(unfixed, key=lambda u: (u.path, u.line, u.class_name))
    ]
    return [*lines, ""]


def runtime_section(runtime: RuntimeCheck | None, paths: Sequence[str], unsafe: bool) -> list[str]:
    """The runtime check's counts, per module and per device type; or,
    not run, the command that runs it."""
    lines = ["## Runtime check", ""]
    if runtime is None:
        command = _wrapped(f"hwlint fix{' --unsafe' if unsafe else ''} --verify-runtime --python PYTHON", paths)
        return lines + [
            "Not run. `--verify-runtime` collects each changed module's tests with unittest before and after the "
            "fix, in a Python with torch, and writes no file that loses a test; it runs with the fix, on the "
            "files as they were:",
            "",
            "```sh",
            command,
            "```",
            "",
        ]
    t = runtime.totals()
    lines += [
        f"Collected by unittest before and after the fix (`{runtime.python}`; CUDA, XPU and MPS classes collected "
        f"without the devices): {t['checked']} of {_count(t['modules'], 'changed module')}, {t['skipped']} skipped; "
        f"{_count(t['tests_before'], 'test')} before, {t['tests_after']} after: {t['renamed']} renamed, "
        f"{t['per_device']} newly per-device, {t['added']} new, **{t['lost']} lost**"
        + (f"; {t['off_cpu']} no longer collected on CPU runners, where they ran before" if t["off_cpu"] else "")
        + ".",
        "",
    ]
    checked = [m for m in runtime.modules if m.skipped is None]
    if checked:
        lines += _module_table(checked)
        lines += _device_table(checked)
    for m in runtime.modules:
        if m.skipped:
            lines.append(f"- skipped `{m.path}`: {_cell(m.skipped)}")
        if m.error:
            lines.append(f"- `{m.path}` after the fix: {_cell(m.error)}")
        lines.extend(f"- LOST `{m.path}::{test}`" for test in m.lost)
        lines.extend(f"- off CPU runners: `{m.path}::{test}`" for test in m.off_cpu)
    if lines[-1]:
        lines.append("")
    return lines


def _module_table(modules: Sequence[ModuleCheck]) -> list[str]:
    """Per module: the tests before and after, and how they map."""
    lines = [
        "| File | Before | After | Renamed | Newly per-device | New | Lost |",
        "|---|--:|--:|--:|--:|--:|--:|",
    ]
    lines += [
        f"| `{m.path}` | {m.before} | {m.after} | {m.renamed} | {len(m.per_device)} | {len(m.added)} | {len(m.lost)} |"
        for m in modules
    ]
    return [*lines, ""]


def _device_table(modules: Sequence[ModuleCheck]) -> list[str]:
    """Per device type (as the runners collect them): the tests before and after."""
    before: dict[str, int] = {}
    after: dict[str, int] = {}
    for m in modules:
        for device, n in m.before_devices:
            before[device] = before.get(device, 0) + n
        for device, n in m.after_devices:
            after[device] = after.get(device, 0) + n
    devices = sorted(set(before) | set(after), key=lambda d: (d != "", d))
    if not devices:
        return []
    lines = ["| Device type | Before | After |", "|---|--:|--:|"]
    lines += [f"| {d or 'not per device'} | {before.get(d, 0)} | {after.get(d, 0)} |" for d in devices]
    return [*lines, ""]


def plan_commands(rows: Sequence[Row], paths: Sequence[str], members: Sequence[str]) -> list[str]:
    """The commands a reviewer runs: each file's tests of the classifications
    the fix touched there (those any machine runs in one command, each
    device's in its own), then `hwlint check` of the files."""
    order = {m: i for i, m in enumerate(members)}
    touched: dict[str, set[str]] = {}
    for row in rows:
        touched.setdefault(row.path, set()).update(row.members)
    commands = []
    for path in paths:
        found = sorted(touched.get(path, ()), key=lambda m: (order.get(m, len(order)), m))
        anywhere = [m for m in found if m in _ANYWHERE]
        if anywhere:
            commands.append(f"python {shlex.quote(path)} --hw-classification {' '.join(anywhere)}")
        commands.extend(
            f"python {shlex.quote(path)} --hw-classification {m}  # on a machine with {m}"
            for m in found
            if m not in _ANYWHERE
        )
    commands.append(" ".join([CHECK, *map(shlex.quote, paths)]))
    return commands


def _wrapped(head: str, paths: Sequence[str]) -> str:
    """`head` and the files, as a shell line; a file a line when that is long."""
    words = [head, *map(shlex.quote, paths)]
    line = " ".join(words)
    return line if len(line) <= _WIDE else " \\\n    ".join(words)
