"""`hwlint select --runner` / `--matrix`: the configured CI runners'
selections, split into shards of about equal work.

A shard's unit of work is what `select --format pytest` names: a
`path::Class` node id, or a whole file when the file is uncertain. Each is
weighed by its number of test methods (own and inherited; a parametrized
method counts once, the facts do not hold its expansions), or, given the
JUnit XML of an earlier run, by the time its tests took there. Units are
dealt out longest first to the least loaded shard (greedy LPT, within 4/3 of
the optimum), ties broken by node id and then by shard number, so the same
inputs always give the same matrix.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Mapping, NamedTuple, Sequence

from hwlint.core.config import Config, Runner
from hwlint.core.diagnostics import UserError
from hwlint.engine.api import CheckResult
from hwlint.rules.no_runner import test_methods
from hwlint.select.selection import Selection


class Unit(NamedTuple):
    """One unit of a shard: a node id (`path::Class`, root-relative) or an
    uncertain file's path, and its weight (tests, or seconds)."""

    node_id: str
    path: str
    class_name: str | None  # as pytest collects it; None for a whole file
    weight: float


class Shard(NamedTuple):
    runner: Runner
    number: int  # 1-based
    units: tuple[Unit, ...]  # in the order select lists them

    @property
    def weight(self) -> float:
        return sum(u.weight for u in self.units)


def find_runner(config: Config, name: str) -> Runner:
    """The configured runner `name`; a UserError listing the configured ones otherwise."""
    for runner in config.runners:
        if runner.name == name:
            return runner
    if not config.runners:
        raise UserError(
            f"--runner {name!r}: no runners are configured: add [[tool.hwlint.runners]] to "
            f"{config.source or 'pyproject.toml'}"
        )
    names = ", ".join(r.name for r in config.runners)
    raise UserError(f"--runner {name!r}: no such runner (configured: {names})")


def units(result: CheckResult, selection: Selection) -> list[Unit]:
    """The selection's units in the order `--format pytest` lists them:
    known classes, then uncertain files weighed by all their test classes'
    methods. A class instantiated per device with no device is a UserError,
    as it is for `--format pytest`."""
    out = []
    for test in selection.known():
        if test.collected_as is None:
            raise UserError(
                f"{test.path}: {test.class_name} is instantiated per device type: the runner needs a device"
            )
        out.append(Unit(f"{test.path}::{test.collected_as}", test.path, test.collected_as, float(test.methods)))
    per_file: dict[str, int] = {}
    for ctx in result.contexts:
        if ctx.path in selection.uncertain:
            per_file[ctx.path] = sum(test_methods(info) for info in ctx.test_classes())
    for path in sorted(selection.uncertain):
        out.append(Unit(path, path, None, float(max(1, per_file.get(path, 1)))))
    return out


def read_durations(path: Path) -> list[tuple[str, str, float]]:
    """(classname, name, seconds) of every testcase of a JUnit XML report
    (pytest's `--junitxml`, unittest-xml-reporting, PyTorch's CI reports)."""
    import xml.etree.ElementTree as ElementTree

    try:
        tree = ElementTree.parse(path)
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None
    except ElementTree.ParseError as exc:
        raise UserError(f"{path}: not a JUnit XML report: {exc}") from None
    cases = []
    for case in tree.getroot().iter("testcase"):
        classname, name, time = case.get("classname"), case.get("name"), case.get("time")
        if not classname or not name or time is None:
            continue
        try:
            seconds = float(time)
        except ValueError:
            raise UserError(f"{path}: testcase {classname}.{name}: time {time!r} is not a number") from None
        cases.append((classname, name, max(0.0, seconds)))
    if not cases:
        raise UserError(f"{path}: no <testcase> with classname, name and time: not a JUnit XML report of a run")
    return cases


def _module(path: str) -> str:
    return path[:-3].replace("/", ".") if path.endswith(".py") else path.replace("/", ".")


def _unit_for(classname: str, by_class: Mapping[str, list[Unit]], by_module: Mapping[str, Unit]) -> Unit | None:
    """The unit a testcase's classname (`test.test_foo.TestFooCUDA`, or
    `test_foo.TestFooCUDA` from another rootdir, or `TestFooCUDA`) belongs to."""
    module, _, cls = classname.rpartition(".")
    candidates = by_class.get(cls, [])
    if module:
        # The report's module may be relative to another folder than the project root.
        candidates = [u for u in candidates if _suffix_match(_module(u.path), module)] or (
            [] if len(candidates) > 1 else candidates
        )
    if len(candidates) == 1:
        return candidates[0]
    if module:
        files = [u for mod, u in by_module.items() if _suffix_match(mod, module)]
        if len(files) == 1:
            return files[0]
    return None


def _suffix_match(a: str, b: str) -> bool:
    return a == b or a.endswith("." + b) or b.endswith("." + a)


def weigh_by_durations(found: Sequence[Unit], cases: Sequence[tuple[str, str, float]]) -> tuple[list[Unit], int]:
    """The units weighed by an earlier run's times: the sum of their
    testcases' times; a unit the report does not know gets the median time
    of a test in the report times its test count. Also gives how many units
    were unknown."""
    by_class: dict[str, list[Unit]] = {}
    by_module: dict[str, Unit] = {}
    for unit in found:
        if unit.class_name is None:
            by_module[_module(unit.path)] = unit
        else:
            by_class.setdefault(unit.class_name, []).append(unit)
    seconds: dict[str, float] = {}
    for classname, _, time in cases:
        owner = _unit_for(classname, by_class, by_module)
        if owner is not None:
            seconds[owner.node_id] = seconds.get(owner.node_id, 0.0) + time
    median = statistics.median(time for _, _, time in cases)
    unknown = sum(1 for u in found if u.node_id not in seconds)
    return [u._replace(weight=seconds.get(u.node_id, median * u.weight)) for u in found], unknown


def balance(runner: Runner, found: Sequence[Unit]) -> list[Shard]:
    """The runner's units in `runner.shards` shards: greedy longest
    processing time first, deterministic (ties by node id, then by shard
    number). Each shard lists its units in the order of `found`."""
    loads = [0.0] * runner.shards
    assigned: list[list[int]] = [[] for _ in range(runner.shards)]
    order = sorted(range(len(found)), key=lambda i: (-found[i].weight, found[i].node_id))
    for i in order:
        target = min(range(runner.shards), key=lambda s: (loads[s], s))
        loads[target] += found[i].weight
        assigned[target].append(i)
    return [Shard(runner, s + 1, tuple(found[i] for i in sorted(assigned[s]))) for s in range(runner.shards)]
