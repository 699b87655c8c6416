"""The project a command runs on: its configuration (hwlint.core.config), with
rule codes judged by the rule registry, and settings files read through the
cache layer (a warm run parses no TOML)."""

from __future__ import annotations

from pathlib import Path

from hwlint.core.config import Config, load_config
from hwlint.engine.cached import settings_reader
from hwlint.rules import is_code


def load_project(
    config_file: Path | None = None, start: Path | None = None, *, cache: bool | str | Path | None = False
) -> Config:
    """hwlint.core.config.load_config, validated against the rules; `cache` as
    run_check's (False: settings are not remembered)."""
    return load_config(config_file, start, read=settings_reader(cache), is_code=is_code)
