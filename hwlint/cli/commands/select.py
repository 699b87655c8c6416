"""`hwlint select`: the tests a runner with given hardware should run,
as files or pytest node ids, for `pytest $(hwlint select GENERIC CPU --format pytest)`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from hwlint.cli.commands.decorators import guarded, options, write_output
from hwlint.cli.commands.report import progress_bar
from hwlint.cli.options import SELECT_COMMAND, cache_choice
from hwlint.core.diagnostics import UserError
from hwlint.engine.api import load_project
from hwlint.output.selection import matrix_document, render

if TYPE_CHECKING:
    from hwlint.core.config import Config
    from hwlint.engine.api import CheckResult


@click.command()
@click.argument("members", nargs=-1)
@options(*SELECT_COMMAND)
@guarded
def select(
    members: tuple[str, ...],
    fmt: str,
    include_unclassified: bool,
    device: str | None,
    runner: str | None,
    matrix: bool,
    durations: tuple[Path, ...],
    runtime: bool,
    python: str | None,
    timeout: float,
    config_file: Path | None,
    jobs: int | None,
    output: Path | None,
    no_cache: bool,
    cache_dir: Path | None,
) -> None:
    """List the test files, or `path::Class` node ids, whose classification
    (inheritance included) is one of MEMBERS.

    A CPU runner asks for `GENERIC CPU`, a CUDA runner for `ACCELERATOR
    CUDA`: classes instantiated per device type are named as pytest collects
    them on that device (`TestFooCUDA`). A file where the runtime may collect
    classes hwlint cannot see is listed whole, whatever MEMBERS, with a
    warning naming why; `--runtime` asks the runtime itself. `--runner NAME`
    selects for a configured runner; `--matrix` prints every runner's
    selection split into shards, as a CI matrix. Exits 0 when something is
    selected, 1 when nothing is (like grep), 2 on errors."""
    from hwlint.engine.api import run_check

    cache = cache_choice(no_cache, cache_dir, True)
    config = load_project(config_file, cache=cache)
    _refuse_conflicts(members, runner=runner, device=device, matrix=matrix, durations=durations)
    wanted, device = _wanted(config, members, runner=runner, device=device, matrix=matrix)
    cases = _read_durations(durations)
    with progress_bar("Reading test files") as hook:
        result = run_check(config, None, jobs=jobs, progress=hook, cache=cache)
    choose = _Chooser(
        result, runtime=runtime, include_unclassified=include_unclassified, python=python, timeout=timeout, jobs=jobs
    )
    if matrix:
        write_output(matrix_document(_shards(result, choose, cases, durations), config.root), output)
        return
    selection = choose(wanted, device)
    _warn(selection, set())
    write_output(render(selection, fmt, config.root), output)
    if not selection.tests and not selection.uncertain:
        what = " or ".join(wanted) + (" or unclassified" if include_unclassified else "")
        where = f" for device {device}" if device else ""
        click.echo(f"hwlint: no test class is {what}{where}", err=True)
        sys.exit(1)


def _refuse_conflicts(
    members: tuple[str, ...], *, runner: str | None, device: str | None, matrix: bool, durations: tuple[Path, ...]
) -> None:
    """The options that cannot go together, and a selection of nothing named."""
    if matrix and (members or runner or device):
        raise UserError("--matrix selects for every configured runner: give no MEMBERS, --runner or --device")
    if durations and not matrix:
        raise UserError("--durations balances the shards of --matrix: give --matrix too")
    if runner is not None and (members or device):
        raise UserError(f"--runner {runner} sets the members and the device: give no MEMBERS or --device with it")
    if not members and runner is None and not matrix:
        raise UserError(
            "name the classifications to select (e.g. `hwlint select GENERIC CPU`), or --runner NAME, or --matrix"
        )


def _wanted(
    config: Config, members: tuple[str, ...], *, runner: str | None, device: str | None, matrix: bool
) -> tuple[tuple[str, ...], str | None]:
    """The members asked for (none with --matrix: each runner's own) and the
    device they are selected for: a runner's, --device, or the members'."""
    from hwlint.select.matrix import find_runner
    from hwlint.select.selection import canonical_members, default_device

    if matrix:
        if not config.runners:
            raise UserError(
                f"--matrix: no runners are configured: add [[tool.hwlint.runners]] to "
                f"{config.source or config.root / 'pyproject.toml'}"
            )
        return (), device
    if runner is not None:
        chosen = find_runner(config, runner)
        return chosen.members, chosen.device
    wanted = canonical_members(config, members)
    if device is None:
        return wanted, default_device(wanted)
    device = device.strip()
    if not device.isidentifier():
        raise UserError(f"--device {device!r}: expected a device type such as cpu, cuda or xpu")
    return wanted, device


class _Chooser:
    """A selection for some members on a device: from the facts, or with
    --runtime from what the runtime collects, each module imported once per
    device type asked for, as a runner of that type collects it (on any
    machine: collection-only bases)."""

    def __init__(
        self,
        result: CheckResult,
        *,
        runtime: bool,
        include_unclassified: bool,
        python: str | None,
        timeout: float,
        jobs: int | None,
    ) -> None:
        self.result, self.runtime, self.include_unclassified = result, runtime, include_unclassified
        self.python, self.timeout, self.jobs = python, timeout, jobs
        self.collected: dict[str | None, Any] = {}

    def __call__(self, members: tuple[str, ...], device: str | None) -> Any:
        from hwlint.select.selection import select_runtime, select_tests

        result, include_unclassified = self.result, self.include_unclassified
        if not self.runtime:
            return select_tests(result, members, include_unclassified=include_unclassified, device=device)
        if device not in self.collected:
            from hwlint.infra.runtime import collect

            config = result.config
            paths = [ctx.path for ctx in result.contexts]
            with progress_bar(f"Importing test modules{f' for {device}' if device else ''}") as hook:
                self.collected[device] = collect(
                    config.root,
                    paths,
                    python=self.python or sys.executable,
                    attribute=config.attribute,
                    timeout=self.timeout,
                    jobs=self.jobs,
                    progress=hook,
                    device=device,
                )
        return select_runtime(
            result, self.collected[device], members, include_unclassified=include_unclassified, device=device
        )


def _read_durations(durations: tuple[Path, ...]) -> list[tuple[str, str, float]] | None:
    """The test cases of --durations' reports; None without any."""
    from hwlint.select.matrix import read_durations

    return [case for report in durations for case in read_durations(report)] if durations else None


def _shards(
    result: CheckResult, choose: _Chooser, cases: list[tuple[str, str, float]] | None, durations: tuple[Path, ...]
) -> list[Any]:
    """`--matrix`: every configured runner's selection in balanced shards,
    weighed by the `cases` of --durations' reports when given."""
    from hwlint.select.matrix import balance, units, weigh_by_durations

    shards = []
    warned: set[str] = set()
    for each in result.config.runners:
        selection = choose(each.members, each.device)
        _warn(selection, warned)
        found = units(result, selection)
        if cases is not None:
            found, unknown = weigh_by_durations(found, cases)
            if unknown:
                click.echo(
                    f"hwlint: warning: {each.name}: {unknown} of {len(found)} selected node ids are not "
                    f"in {', '.join(map(str, durations))}: each of their tests counts the median time",
                    err=True,
                )
        shards += balance(each, found)
    return shards


def _warn(selection: Any, warned: set[str]) -> None:
    """The selection's warnings on stderr, each once (a matrix selects once per runner)."""
    lines = [f"hwlint: warning: {warning}" for warning in selection.warnings]
    for path, reasons in sorted(selection.uncertain.items()):
        first = reasons[0]
        more = f" (and {len(reasons) - 1} more)" if len(reasons) > 1 else ""
        lines.append(f"hwlint: warning: {path}:{first.line}: uncertain, selected whole: {first.message}{more}")
    for line in lines:
        if line not in warned:
            warned.add(line)
            click.echo(line, err=True)
