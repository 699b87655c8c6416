"""Configuration: `[tool.hwlint]` in pyproject.toml, or hwlint.toml, and the project root.

Every key is validated here, so that later stages can trust the values and a
typo in a key is one clear error naming the file and the key, not a silently
ignored setting.
"""

# No `from __future__ import annotations` here: typing.NamedTuple compiles each
# string annotation into a ForwardRef, a third of this module's import time.

import os
import sys
from pathlib import Path
from typing import Any, Callable, Mapping, NamedTuple

from hwlint.diagnostics import UserError

DEFAULT_CLASSIFICATIONS = ("GENERIC", "ACCELERATOR", "CPU", "CUDA", "MPS", "XPU")


class Config(NamedTuple):
    root: Path
    source: Path | None = None  # the file the settings came from, for messages
    include: tuple[str, ...] = ("test/**/test_*.py", "test/**/*_test.py")
    exclude: tuple[str, ...] = ()
    allowlist: str = "allowlist.txt"
    classifications: tuple[str, ...] = DEFAULT_CLASSIFICATIONS
    aliases: Mapping[str, str] = {}  # never mutated: the default {} is shared
    enum: str = "HardwareClassification"
    attribute: str = "hw_classification"
    import_from: str = "torch.testing._internal.common_utils"
    inheritance: str = "inherit"
    select: tuple[str, ...] = ("HWC0", "HWC1", "HWC3")
    ignore: tuple[str, ...] = ()
    per_file_ignores: Mapping[str, tuple[str, ...]] = {}
    baseline: int | None = None  # unset: the allowlist's largest size in git history (hwlint.report)
    lintrunner_code: str = "HWLINT"
    # An out-of-tree backend's own accelerator API, added to PyTorch's
    # (hwlint.facts.Accelerators): modules (`torch_npu.npu`), probe flags
    # (`TEST_OPENREG`) and device names (`"openreg"`, `.openreg()`).
    extend_accelerator_modules: tuple[str, ...] = ()
    extend_accelerator_flags: tuple[str, ...] = ()
    extend_devices: tuple[str, ...] = ()
    # The oldest PyTorch release the project's tests must run on: HWC201's
    # rewrites use no torch.accelerator API newer than this (hwlint.torch_api).
    # 2.7 is the first release whose torch.accelerator has the device-index
    # functions under their lasting names (current_device_index).
    oldest_torch: str = "2.7"

    @property
    def allowlist_path(self) -> Path:
        return self.root / self.allowlist


# Keys as written in TOML -> Config field names.
_KEYS = {name.replace("_", "-"): name for name in Config._fields if name not in ("root", "source")}


def torch_version(text: str) -> tuple[int, int]:
    """A PyTorch release as (major, minor): "2.7", "2.7.1" and "2.9.0+cu128"
    give (2, 7), (2, 7) and (2, 9); ValueError for anything else."""
    parts = text.split("+", 1)[0].split(".")
    if not 2 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
        raise ValueError(text)
    return int(parts[0]), int(parts[1])


def _err(source: Path, message: str) -> UserError:
    return UserError(f"{source}: {message}")


def _str_list(source: Path, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _err(source, f"[tool.hwlint] {key} must be a list of strings, got {value!r}")
    return tuple(value)


def _str(source: Path, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise _err(source, f"[tool.hwlint] {key} must be a non-empty string, got {value!r}")
    return value


def _identifier(source: Path, key: str, value: str) -> str:
    if not value.isidentifier():
        raise _err(source, f"[tool.hwlint] {key}: {value!r} is not a Python identifier")
    return value


def _validate_codes(source: Path, key: str, codes: tuple[str, ...], is_code: Callable[[str], bool] | None) -> tuple[str, ...]:
    # The rule registry is above configuration: whoever loads the settings
    # for a run passes its judgement of codes (hwlint.project).
    for code in codes:
        if code != "ALL" and is_code is not None and not is_code(code):
            raise _err(source, f"[tool.hwlint] {key}: unknown rule code or prefix {code!r}")
    return codes


def parse_settings(raw: Mapping[str, Any], root: Path, source: Path, *,
                   is_code: Callable[[str], bool] | None = None) -> Config:
    """Turn a `[tool.hwlint]` table into a Config, or raise UserError naming
    the key. `is_code`: whether a `select`/`ignore` entry names rules."""
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in _KEYS:
            known = ", ".join(sorted(_KEYS))
            raise _err(source, f"unknown key {key!r} in [tool.hwlint] (known keys: {known})")
        name = _KEYS[key]
        if name in ("include", "exclude", "classifications"):
            values[name] = _str_list(source, key, value)
        elif name in ("select", "ignore"):
            values[name] = _validate_codes(source, key, _str_list(source, key, value), is_code)
        elif name in ("allowlist", "import_from", "lintrunner_code"):
            values[name] = _str(source, key, value)
        elif name in ("enum", "attribute"):
            values[name] = _identifier(source, key, _str(source, key, value))
        elif name in ("extend_accelerator_modules", "extend_accelerator_flags", "extend_devices"):
            names = _str_list(source, key, value)
            for item in names:
                parts = item.split(".") if name == "extend_accelerator_modules" else [item]
                if not all(part.isidentifier() for part in parts):
                    what = "a dotted module name" if len(parts) > 1 or name == "extend_accelerator_modules" else "an identifier"
                    raise _err(source, f"[tool.hwlint] {key}: {item!r} is not {what}")
            values[name] = names
        elif name == "oldest_torch":
            try:
                torch_version(value if isinstance(value, str) else "")
            except ValueError:
                raise _err(source, f'[tool.hwlint] oldest-torch must be a PyTorch release such as "2.7", got {value!r}') from None
            values[name] = value
        elif name == "inheritance":
            if value not in ("inherit", "explicit"):
                raise _err(source, f'[tool.hwlint] inheritance must be "inherit" or "explicit", got {value!r}')
            values[name] = value
        elif name == "baseline":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise _err(source, f"[tool.hwlint] baseline must be a non-negative integer, got {value!r}")
            values[name] = value
        elif name == "aliases":
            if not isinstance(value, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in value.items()
            ):
                raise _err(source, f"[tool.hwlint] aliases must be a table of strings, got {value!r}")
            values[name] = dict(value)
        elif name == "per_file_ignores":
            if not isinstance(value, dict):
                raise _err(source, f"[tool.hwlint] per-file-ignores must be a table, got {value!r}")
            values[name] = {
                pattern: _validate_codes(source, f"per-file-ignores.{pattern}", _str_list(source, key, codes), is_code)
                for pattern, codes in value.items()
            }
    classifications = values.get("classifications", DEFAULT_CLASSIFICATIONS)
    if not classifications:
        raise _err(source, "[tool.hwlint] classifications must not be empty")
    for member in classifications:
        _identifier(source, "classifications", member)
    for alias, target in values.get("aliases", {}).items():
        _identifier(source, "aliases", alias)
        if alias in classifications:
            # A member always means itself (resolve looks members up first), so
            # such an alias would be a silently ignored setting.
            raise _err(source, f"[tool.hwlint] aliases: {alias} is already one of classifications")
        if target not in classifications:
            raise _err(source, f"[tool.hwlint] aliases: {alias} = {target!r} is not one of classifications")
    allowlist = values.get("allowlist")
    if allowlist is not None and (os.path.isabs(allowlist) or ".." in Path(allowlist).parts):
        raise _err(source, f"[tool.hwlint] allowlist must be a path inside the project root, got {allowlist!r}")
    return Config(root=root, source=source, **values)


def _parse_toml(path: Path, data: bytes) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib
    try:
        # tomllib.load does this decode itself, and lets its error escape.
        return tomllib.loads(data.decode("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: invalid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        # Without this a pyproject.toml saved as UTF-16 or Latin-1 was an
        # "internal error".
        raise UserError(f"{path}: invalid TOML: not UTF-8 (byte {exc.start}: 0x{exc.object[exc.start]:02x})") from None


def table_from_bytes(path: Path, data: bytes) -> dict[str, Any] | None:
    """The hwlint settings in the bytes of `path`, or None when it holds none."""
    document = _parse_toml(path, data)
    if path.name == "pyproject.toml":
        table = document.get("tool", {}).get("hwlint") if isinstance(document.get("tool"), dict) else None
    else:  # hwlint.toml: top-level keys, like ruff.toml; [tool.hwlint] is accepted too
        table = document.get("tool", {}).get("hwlint", document) if isinstance(document.get("tool"), dict) else document
    if table is not None and not isinstance(table, dict):
        raise UserError(f"{path}: [tool.hwlint] must be a table")
    return table


def read_settings_file(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None


def read_table(path: Path) -> dict[str, Any] | None:
    """The hwlint settings a file holds, or None when it holds none."""
    return table_from_bytes(path, read_settings_file(path))


TableReader = Callable[[Path], "dict[str, Any] | None"]


def find_git_root(start: Path) -> Path | None:
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def load_config(config_file: Path | None = None, start: Path | None = None, *,
                read: TableReader = read_table, is_code: Callable[[str], bool] | None = None) -> Config:
    """Find and read the configuration.

    With `config_file`, that file is the configuration and its folder is the
    root. Otherwise walk up from `start` (the current directory) to the first
    hwlint.toml, or pyproject.toml with a [tool.hwlint] table; failing that,
    the git root (or `start`) is the root and defaults apply. `read` reads
    a settings file's table (a layer may remember tables); `is_code` judges
    rule codes (hwlint.project passes the rule registry's).
    """
    if config_file is not None:
        config_file = config_file.resolve()
        if not config_file.is_file():
            raise UserError(f"{config_file}: configuration file not found")
        table = read(config_file) or {}
        return parse_settings(table, config_file.parent, config_file, is_code=is_code)
    start = (start or Path.cwd()).resolve()
    for directory in (start, *start.parents):
        for name in ("hwlint.toml", "pyproject.toml"):
            candidate = directory / name
            if candidate.is_file():
                found = read(candidate)
                if found is not None:
                    return parse_settings(found, directory, candidate, is_code=is_code)
    return Config(root=find_git_root(start) or start)
