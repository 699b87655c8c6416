"""`hwlint select`: the tests a runner with given hardware should run,
as files or pytest node ids, for `pytest $(hwlint select GENERIC CPU --format pytest)`."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from hwlint.cli.commands.decorators import guarded, options, write_output
from hwlint.cli.commands.report import progress_bar
from hwlint.cli.options import SELECT_COMMAND, cache_choice
from hwlint.core.diagnostics import UserError
from hwlint.engine.api import load_project


def _here(root: Path, path: str) -> str:
    """A root-relative path as seen from the current directory, which is
    where the shell that runs `pytest $(...)` is."""
    return Path(os.path.relpath(root / path)).as_posix()


def render(selection: Any, fmt: str, root: Path) -> str:
    if fmt == "files":
        return "".join(_here(root, path) + "\n" for path in selection.files)
    if fmt == "pytest":
        waiting = [t for t in selection.known() if t.collected_as is None]
        if waiting:
            first = waiting[0]
            raise UserError(
                f"{first.path}: {first.class_name} is instantiated per device type, so pytest collects it as "
                f"{first.class_name}<DEVICE> (e.g. {first.class_name}CUDA): pass --device to name the classes "
                "this runner collects" + (f" ({len(waiting) - 1} more like it)" if len(waiting) > 1 else "")
            )
        # An uncertain file is named whole (pytest runs all of it), in place of its classes.
        lines = [f"{_here(root, t.path)}::{t.collected_as}" for t in selection.known()]
        lines += [_here(root, path) for path in sorted(selection.uncertain)]
        return "".join(line + "\n" for line in lines)
    document = {
        "root": str(root),
        "members": list(selection.members),
        "include_unclassified": selection.include_unclassified,
        "device": selection.device,
        "files": selection.files,
        "tests": [
            {
                "path": t.path,
                "class_name": t.class_name,
                "classification": t.classification,
                "inherited_from": t.inherited_from,
                "instantiated": t.instantiated,
                "collected_as": t.collected_as,
                "node_id": t.node_id,
                "imported_from": t.imported_from,
            }
            for t in selection.tests
        ],
        "uncertain": [
            {
                "path": path,
                "reasons": [
                    {
                        "line": r.line,
                        "column": r.column,
                        "kind": r.kind,
                        "class_name": r.class_name,
                        "message": r.message,
                    }
                    for r in reasons
                ],
            }
            for path, reasons in sorted(selection.uncertain.items())
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def matrix_document(shards: list[Any], root: Path) -> str:
    """`--matrix`: GitHub Actions' `strategy.matrix` (`{"include": [...]}`),
    one entry per runner and shard, paths as `--format pytest` gives them."""
    include = []
    for shard in shards:
        tests = [_here(root, u.path) + (f"::{u.class_name}" if u.class_name else "") for u in shard.units]
        include.append(
            {
                "runner": shard.runner.name,
                "shard": shard.number,
                "shards": shard.runner.shards,
                "device": shard.runner.device,
                "members": list(shard.runner.members),
                "tests": tests,
                "files": sorted({_here(root, u.path) for u in shard.units}),
            }
        )
    return json.dumps({"include": include}, indent=2, ensure_ascii=False) + "\n"


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
    from hwlint.select.selection import canonical_members, default_device, select_runtime, select_tests

    cache = cache_choice(no_cache, cache_dir, True)
    config = load_project(config_file, cache=cache)
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
    from hwlint.select.matrix import balance, find_runner, read_durations, units, weigh_by_durations

    wanted: tuple[str, ...] = ()  # the members asked for; each runner's own with --matrix
    if matrix:
        if not config.runners:
            raise UserError(
                f"--matrix: no runners are configured: add [[tool.hwlint.runners]] to "
                f"{config.source or config.root / 'pyproject.toml'}"
            )
    elif runner is not None:
        chosen = find_runner(config, runner)
        wanted, device = chosen.members, chosen.device
    else:
        wanted = canonical_members(config, members)
        if device is not None:
            device = device.strip()
            if not device.isidentifier():
                raise UserError(f"--device {device!r}: expected a device type such as cpu, cuda or xpu")
        else:
            device = default_device(wanted)
    cases = [case for report in durations for case in read_durations(report)] if durations else None
    with progress_bar("Reading test files") as hook:
        result = run_check(config, None, jobs=jobs, progress=hook, cache=cache)
    # --runtime: each module imported once per device type asked for, as a
    # runner of that type collects it (on any machine: collection-only bases).
    collected: dict[str | None, Any] = {}

    def choose(members: tuple[str, ...], device: str | None) -> Any:
        if not runtime:
            return select_tests(result, members, include_unclassified=include_unclassified, device=device)
        if device not in collected:
            from hwlint.infra.runtime import collect

            paths = [ctx.path for ctx in result.contexts]
            with progress_bar(f"Importing test modules{f' for {device}' if device else ''}") as hook:
                collected[device] = collect(
                    config.root,
                    paths,
                    python=python or sys.executable,
                    attribute=config.attribute,
                    timeout=timeout,
                    jobs=jobs,
                    progress=hook,
                    device=device,
                )
        return select_runtime(
            result, collected[device], members, include_unclassified=include_unclassified, device=device
        )

    if matrix:
        shards = []
        warned: set[str] = set()
        for each in config.runners:
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
        write_output(matrix_document(shards, config.root), output)
        return
    selection = choose(wanted, device)
    _warn(selection, set())
    write_output(render(selection, fmt, config.root), output)
    if not selection.tests and not selection.uncertain:
        what = " or ".join(wanted) + (" or unclassified" if include_unclassified else "")
        where = f" for device {device}" if device else ""
        click.echo(f"hwlint: no test class is {what}{where}", err=True)
        sys.exit(1)


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
