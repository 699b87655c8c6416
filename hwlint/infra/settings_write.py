"""Writing settings into the configuration file, keeping the rest of it as
it is (comments, order, formatting): tomlkit's round trip, and an atomic
write. What `hwlint devices --write` uses."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from hwlint.core.diagnostics import UserError


def settings_file(source: Path | None, root: Path) -> Path:
    """The file settings go to: the configuration's own, else the root's
    pyproject.toml (made when there is none)."""
    return source if source is not None else root / "pyproject.toml"


def write_settings(path: Path, settings: Mapping[str, Any]) -> str:
    """Set `settings` (keys as `[tool.hwlint]` spells them, whole values) in
    the hwlint table of `path`: `[tool.hwlint]` in a pyproject.toml (made
    when missing), the top level of a hwlint.toml unless it has that table.
    Returns the new text; the file is replaced atomically, or left as it
    was when anything fails."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    from hwlint.infra.atomic import write_bytes_atomic

    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read: {exc}") from None
    try:
        document = tomlkit.parse(text)
    except TOMLKitError as exc:
        raise UserError(f"{path}: invalid TOML: {exc}: fix it, then run the command again") from None
    table: Any
    tool = document.get("tool")
    if path.name != "pyproject.toml" and (tool is None or "hwlint" not in tool):
        table = document  # hwlint.toml: top-level keys
    else:
        if tool is None:
            tool = tomlkit.table(is_super_table=True)
            document["tool"] = tool
        if "hwlint" not in tool:
            tool["hwlint"] = tomlkit.table()
        table = tool["hwlint"]
    for key, value in settings.items():
        table[key] = value
    new = tomlkit.dumps(document)
    try:
        write_bytes_atomic(path, new.encode("utf-8"))
    except OSError as exc:
        raise UserError(f"{path}: cannot write: {exc.strerror or exc}: the file is left as it was") from None
    return new
