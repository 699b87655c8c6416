"""`hwlint devices`: the accelerator devices the tree uses that the
configuration does not name, and the settings that cover them."""

from __future__ import annotations

import json
from pathlib import Path

import click

from hwlint.cli.commands.decorators import guarded, options, write_output
from hwlint.cli.options import DEVICES_COMMAND, cache_choice
from hwlint.engine.api import load_project


@click.command()
@options(*DEVICES_COMMAND)
@guarded
def devices(
    config_file: Path | None,
    jobs: int | None,
    output: Path | None,
    no_cache: bool,
    cache_dir: Path | None,
    fmt: str,
    write: bool,
) -> None:
    """List the accelerator devices the test files use that the
    configuration does not name (HWC003: `.to("mlu")`, `torch.mlu.*`,
    `import torch_mlu`, ...), with how many files use each, and print the
    `[tool.hwlint]` lines that cover them; --write adds them. Exits 0."""
    from hwlint.core.diagnostics import Configure
    from hwlint.engine.api import run_check
    from hwlint.facts.devices import coverage, note
    from hwlint.infra.settings_write import settings_file, write_settings
    from hwlint.rules.unconfigured_device import UnconfiguredDevice

    cache = cache_choice(no_cache, cache_dir, True)
    config = load_project(config_file, cache=cache)
    result = run_check(
        config, None, jobs=jobs, select=(UnconfiguredDevice.code,), ignore=(), use_allowlist=False, cache=cache
    )
    found = result.unconfigured_devices()
    covering = coverage((name for name, _ in found), config)
    firsts: dict[str, dict[str, object]] = {}
    for d in result.diagnostics:  # sorted: each device's first is its first use in path order
        if isinstance(d.fix, Configure) and d.fix.device not in firsts:
            firsts[d.fix.device] = {"path": d.path, "line": d.line, "column": d.column}
    if write and found:
        target = settings_file(config.source, config.root)
        write_settings(target, covering.settings())
        click.echo(f"hwlint: wrote the settings for {', '.join(name for name, _ in found)} to {target}", err=True)
    if fmt == "json":
        text = (
            json.dumps(
                {
                    "devices": [{"name": name, "files": n, "first": firsts.get(name)} for name, n in found],
                    "settings": covering.settings() if found else {},
                    "toml": covering.toml() if found else "",
                },
                indent=2,
            )
            + "\n"
        )
    elif fmt == "toml":
        text = covering.toml() if found else ""
    else:
        text = note(found, config) or (
            f"No device found that the configuration does not name ({result.files_checked} files checked).\n"
        )
    write_output(text, output)
