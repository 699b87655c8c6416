"""Configuration: `[tool.hwlint]` in pyproject.toml, or hwlint.toml, and the project root.

Every key is validated here, so that later stages can trust the values and a
typo in a key is one clear error naming the file and the key, not a silently
ignored setting.
"""

# No `from __future__ import annotations` here: typing.NamedTuple compiles each
# string annotation into a ForwardRef, a third of this module's import time.

import keyword
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Literal, Mapping, NamedTuple

from hwlint.core.diagnostics import UserError

if TYPE_CHECKING:
    from datetime import date

DEFAULT_CLASSIFICATIONS = ("GENERIC", "ACCELERATOR", "CPU", "CUDA", "MPS", "XPU")

# How a class without its own declaration is judged (HWC001): "inherit" takes
# its bases' classification; "explicit" (TEST_LINTER's policy) asks every
# test class for its own.
Inheritance = Literal["inherit", "explicit"]


class Generator(NamedTuple):
    """A function known to make test classes (`generators` setting): the
    class it returns derives from its positional argument `base` (so it has
    that class's classification), and is named `name` with `{N}` replaced by
    positional argument N (a class's name, or a string); or it copies test
    methods into its positional argument `tests_into`."""

    base: int | None = None
    name: str | None = None
    tests_into: int | None = None


class Phase(NamedTuple):
    """A migration phase agreed with an area's maintainers (`[[tool.hwlint.phases]]`).

    A file belongs to the first phase, in configuration order, whose `paths`
    match it (so a catch-all phase can come last). Once `due` has passed,
    its allowlisted files are HWC305; `start` (optional) is when the phase
    began, for the report's "files at start" and burn-down."""

    name: str
    paths: tuple[str, ...]
    due: "date"
    owners: tuple[str, ...] = ()
    start: "date | None" = None


class Runner(NamedTuple):
    """A CI runner (`[[tool.hwlint.runners]]`): the classifications it runs
    (canonical members, aliases resolved), the device type its per-device
    classes are collected for, and how many shards split its tests."""

    name: str
    members: tuple[str, ...]
    device: str
    shards: int = 1


class Config(NamedTuple):
    """The settings a run uses, every one validated (parse_settings), with the
    project root and the file they came from."""

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
    inheritance: Inheritance = "inherit"
    select: tuple[str, ...] = ("HWC0", "HWC1", "HWC3")
    ignore: tuple[str, ...] = ()
    per_file_ignores: Mapping[str, tuple[str, ...]] = {}
    baseline: int | None = None  # unset: the allowlist's largest size in git history (hwlint.report.figures)
    lintrunner_code: str = "HWLINT"
    # An out-of-tree backend's own accelerator API, added to PyTorch's
    # (hwlint.facts.Accelerators): modules (`torch_npu.npu`), probe flags
    # (`TEST_OPENREG`) and device names (`"openreg"`, `.openreg()`).
    extend_accelerator_modules: tuple[str, ...] = ()
    extend_accelerator_flags: tuple[str, ...] = ()
    extend_devices: tuple[str, ...] = ()
    # @only* decorators HWC103 accepts besides @onlyAccelerator (e.g.
    # onlyNativeDeviceTypes: hwlint's older rule; TEST_LINTER's has none).
    allowed_only_decorators: tuple[str, ...] = ()
    # The oldest PyTorch release the project's tests must run on: HWC201's
    # rewrites use no torch.accelerator API newer than this (hwlint.rules.torch_api).
    # 2.7 is the first release whose torch.accelerator has the device-index
    # functions under their lasting names (current_device_index).
    oldest_torch: str = "2.7"  # PyTorch's own tree: the release it builds (_with_own_torch)
    # Functions that make test classes at run time (hwlint.rules.uncertain): a
    # class they make is seen, not a reason to call its file uncertain.
    generators: Mapping[str, Generator] = {}
    phases: tuple[Phase, ...] = ()
    runners: tuple[Runner, ...] = ()

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
    # fix writes these names into code: a keyword (`class`, `None`) would not parse.
    if not value.isidentifier() or keyword.iskeyword(value):
        raise _err(source, f"[tool.hwlint] {key}: {value!r} is not a Python identifier")
    return value


def _validate_codes(
    source: Path, key: str, codes: tuple[str, ...], is_code: Callable[[str], bool] | None
) -> tuple[str, ...]:
    # The rule registry is above configuration: whoever loads the settings
    # for a run passes its judgement of codes (hwlint.engine.project).
    for code in codes:
        if code != "ALL" and is_code is not None and not is_code(code):
            raise _err(source, f"[tool.hwlint] {key}: unknown rule code or prefix {code!r}")
    return codes


def _generators(source: Path, value: Any) -> dict[str, Generator]:
    import string

    if not isinstance(value, dict):
        raise _err(source, f"[tool.hwlint] generators must be a table of function names, got {value!r}")
    out = {}
    for func, spec in value.items():
        key = f"[tool.hwlint] generators.{func}"
        _identifier(source, "generators", func)
        if not isinstance(spec, dict) or not spec or set(spec) - {"base", "name", "tests-into"}:
            raise _err(source, f'{key} must be a table with "base" (and "name") or "tests-into", got {spec!r}')
        for field in ("base", "tests-into"):
            index = spec.get(field)
            if index is not None and (isinstance(index, bool) or not isinstance(index, int) or index < 0):
                raise _err(source, f"{key}.{field} must be an argument position (0, 1, ...), got {index!r}")
        template = spec.get("name")
        if template is not None:
            try:
                fields = [
                    f
                    for _, f, _, _ in string.Formatter().parse(_str(source, f"generators.{func}.name", template))
                    if f is not None
                ]
            except ValueError as exc:
                raise _err(source, f"{key}.name {template!r}: {exc}") from None
            if not fields or not all(f.isdigit() for f in fields):
                raise _err(source, f"{key}.name {template!r}: use {{0}}, {{1}}... for the function's arguments")
        if ("base" in spec) == ("tests-into" in spec):
            raise _err(source, f'{key}: give either "base" (the argument the class derives from) or "tests-into"')
        if "tests-into" in spec and template is not None:
            raise _err(source, f'{key}: "name" goes with "base", not with "tests-into"')
        out[func] = Generator(spec.get("base"), template, spec.get("tests-into"))
    return out


_PHASE_KEYS = ("name", "paths", "due", "owners", "start")


def _date(source: Path, where: str, key: str, value: Any) -> "date":
    import datetime

    # tomllib gives datetime.datetime (a subclass of date) for `2027-03-31T12:00`:
    # a phase is due on a day, not at an hour.
    if isinstance(value, datetime.date) and not isinstance(value, datetime.datetime):
        return value
    hint = " (write it without quotes)" if isinstance(value, str) else ""
    raise _err(source, f"{where} {key} must be a TOML date like 2027-03-31{hint}, got {value!r}")


def _named_tables(
    source: Path, key: str, noun: str, known: Iterable[str], required: Iterable[str], value: Any
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """The tables of `[[tool.hwlint.<key>]]` (phases, runners), each with how
    messages name it (`[[tool.hwlint.runners]] #2 (linux-cuda)`) and its
    name, after the checks they share: an array of tables, a non-empty name,
    no unknown key, names unique, the `required` keys present."""
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise _err(source, f"[tool.hwlint] {key} must be an array of tables ([[tool.hwlint.{key}]]), got {value!r}")
    known = tuple(known)
    names: set[str] = set()
    for number, table in enumerate(value, start=1):
        name = table.get("name")
        where = f"[[tool.hwlint.{key}]] #{number}"
        if not isinstance(name, str) or not name.strip():
            raise _err(source, f"{where}: name must be a non-empty string, got {name!r}")
        where = f"{where} ({name})"
        for entry in table:
            if entry not in known:
                raise _err(source, f"{where}: unknown key {entry!r} (known keys: {', '.join(sorted(known))})")
        if name in names:
            raise _err(source, f"{where}: another {noun} is named {name!r}: {noun} names must be unique")
        names.add(name)
        for entry in required:
            if entry not in table:
                raise _err(source, f"{where}: {entry} is required")
        yield where, name, table


def _phases(source: Path, value: Any) -> tuple[Phase, ...]:
    """`[[tool.hwlint.phases]]`: each table validated, names unique, and no
    pattern in two phases (which phase a file belongs to would then be an
    accident of order)."""
    phases: list[Phase] = []
    owner_of: dict[str, str] = {}  # pattern -> phase
    for where, name, table in _named_tables(source, "phases", "phase", _PHASE_KEYS, ("paths", "due"), value):
        paths = table["paths"]
        if not isinstance(paths, list) or not paths or not all(isinstance(p, str) and p.strip() for p in paths):
            raise _err(
                source,
                f"{where} paths must be a non-empty list of non-empty strings (gitignore-style, "
                f"like include), got {paths!r}",
            )
        for pattern in paths:
            if pattern in owner_of:
                raise _err(
                    source,
                    f"{where} paths: {pattern!r} is already in phase {owner_of[pattern]!r}: "
                    "a file belongs to one phase",
                )
            owner_of[pattern] = name
        owners = _str_list(source, f"phases ({name}) owners", table.get("owners", []))
        due = _date(source, where, "due", table["due"])
        start = _date(source, where, "start", table["start"]) if "start" in table else None
        if start is not None and start > due:
            raise _err(source, f"{where}: start {start} is after due {due}")
        phases.append(Phase(name, tuple(paths), due, owners, start))
    return tuple(phases)


_RUNNER_KEYS = ("name", "members", "device", "shards")


def _runners(source: Path, value: Any) -> list[tuple[str, str, list[str], str, int]]:
    """`[[tool.hwlint.runners]]`, each table's shape checked; the members are
    checked against the classifications once those are known (_runner_members).
    Gives (where, name, members as written, device, shards) per runner."""
    out: list[tuple[str, str, list[str], str, int]] = []
    for where, name, table in _named_tables(source, "runners", "runner", _RUNNER_KEYS, ("members", "device"), value):
        members = table["members"]
        if not isinstance(members, list) or not members or not all(isinstance(m, str) and m for m in members):
            raise _err(source, f"{where}: members must be a non-empty list of classifications, got {members!r}")
        device = table["device"]
        # The device becomes part of class names (TestFoo -> TestFooCUDA) and of CI job names.
        if not isinstance(device, str) or not device.isidentifier():
            raise _err(source, f"{where}: device must be a device type such as cpu, cuda or xpu, got {device!r}")
        shards = table.get("shards", 1)
        if isinstance(shards, bool) or not isinstance(shards, int) or shards < 1:
            raise _err(source, f"{where}: shards must be an integer >= 1, got {shards!r}")
        out.append((where, name, list(members), device.lower(), shards))
    return out


def _runner_members(
    source: Path,
    raw: list[tuple[str, str, list[str], str, int]],
    classifications: tuple[str, ...],
    aliases: Mapping[str, str],
) -> tuple[Runner, ...]:
    """The runners with their members canonical: case-insensitive, aliases
    resolved, as `hwlint select MEMBER...` takes them."""
    known = {m.upper(): m for m in classifications}
    for alias, target in aliases.items():
        known.setdefault(alias.upper(), target)
    runners = []
    for where, name, written, device, shards in raw:
        members: list[str] = []
        for item in written:
            member = known.get(item.strip().upper())
            if member is None:
                valid = ", ".join(classifications) + (f" (aliases: {', '.join(sorted(aliases))})" if aliases else "")
                raise _err(
                    source, f"{where}: members: {item!r} is not a configured classification: expected one of {valid}"
                )
            if member not in members:
                members.append(member)
        runners.append(Runner(name, tuple(members), device, shards))
    return tuple(runners)


def parse_settings(
    raw: Mapping[str, Any], root: Path, source: Path, *, is_code: Callable[[str], bool] | None = None
) -> Config:
    """Turn a `[tool.hwlint]` table into a Config, or raise UserError naming
    the key. `is_code`: whether a `select`/`ignore` entry names rules."""
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in _KEYS:
            known = ", ".join(sorted(_KEYS))
            raise _err(source, f"unknown key {key!r} in [tool.hwlint] (known keys: {known})")
        name = _KEYS[key]
        values[name] = _setting(source, key, name, value, is_code)
    _check_together(source, values)
    config = Config(root=root, source=source, **values)
    return config if "oldest_torch" in values else _with_own_torch(config)


def _with_own_torch(config: Config) -> Config:
    """`config` with the default `oldest-torch` of PyTorch's own tree (a root
    holding `torch/__init__.py` and `version.txt`): the release it builds,
    which its tests always run on ("2.12.0a0" gives "2.12"); `config`
    itself for any other tree."""
    try:
        if not (config.root / "torch" / "__init__.py").is_file():
            return config
        text = (config.root / "version.txt").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return config
    found = re.match(r"\s*(\d+)\.(\d+)", text)
    return config._replace(oldest_torch=f"{found.group(1)}.{found.group(2)}") if found else config


def _setting(source: Path, key: str, name: str, value: Any, is_code: Callable[[str], bool] | None) -> Any:
    """The value of one key (`key` as written, `name` its Config field), validated on its own."""
    if name in ("include", "exclude", "classifications"):
        return _str_list(source, key, value)
    if name in ("select", "ignore"):
        return _validate_codes(source, key, _str_list(source, key, value), is_code)
    if name in ("allowlist", "import_from", "lintrunner_code"):
        return _str(source, key, value)
    if name in ("enum", "attribute"):
        return _identifier(source, key, _str(source, key, value))
    if name in ("extend_accelerator_modules", "extend_accelerator_flags", "extend_devices", "allowed_only_decorators"):
        return _names(source, key, name, value)
    if name == "oldest_torch":
        try:
            torch_version(value if isinstance(value, str) else "")
        except ValueError:
            raise _err(
                source, f'[tool.hwlint] oldest-torch must be a PyTorch release such as "2.7", got {value!r}'
            ) from None
        return value
    if name == "inheritance":
        if value not in ("inherit", "explicit"):
            raise _err(source, f'[tool.hwlint] inheritance must be "inherit" or "explicit", got {value!r}')
        return value
    if name == "baseline":
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise _err(source, f"[tool.hwlint] baseline must be a non-negative integer, got {value!r}")
        return value
    if name == "aliases":
        if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            raise _err(source, f"[tool.hwlint] aliases must be a table of strings, got {value!r}")
        return dict(value)
    if name == "generators":
        return _generators(source, value)
    if name == "phases":
        return _phases(source, value)
    if name == "runners":
        return _runners(source, value)
    # per_file_ignores, the last of _KEYS
    if not isinstance(value, dict):
        raise _err(source, f"[tool.hwlint] per-file-ignores must be a table, got {value!r}")
    return {
        pattern: _validate_codes(source, f"per-file-ignores.{pattern}", _str_list(source, key, codes), is_code)
        for pattern, codes in value.items()
    }


def _names(source: Path, key: str, name: str, value: Any) -> tuple[str, ...]:
    """A list of names: dotted module names (`extend-accelerator-modules`),
    identifiers (the other `extend-*` keys), @only* decorators
    (`allowed-only-decorators`)."""
    names = _str_list(source, key, value)
    if name == "allowed_only_decorators":
        for item in names:
            if not (item.isidentifier() and item.startswith("only")):
                raise _err(source, f"[tool.hwlint] {key}: {item!r} is not the name of an @only* decorator")
        return names
    for item in names:
        parts = item.split(".") if name == "extend_accelerator_modules" else [item]
        if not all(part.isidentifier() for part in parts):
            what = "a dotted module name" if len(parts) > 1 or name == "extend_accelerator_modules" else "an identifier"
            raise _err(source, f"[tool.hwlint] {key}: {item!r} is not {what}")
    return names


def _check_together(source: Path, values: dict[str, Any]) -> None:
    """The checks of keys that depend on each other (classifications,
    import-from, aliases, runners, allowlist), once each key is valid on its
    own; the runners' members made canonical, and HWC401 selected by
    default once there are runners."""
    classifications = values.get("classifications", DEFAULT_CLASSIFICATIONS)
    if not classifications:
        raise _err(source, "[tool.hwlint] classifications must not be empty")
    for member in classifications:
        _identifier(source, "classifications", member)
    repeated = sorted({member for member in classifications if classifications.count(member) > 1})
    if repeated:
        raise _err(source, f"[tool.hwlint] classifications: {', '.join(repeated)} listed twice: list each member once")
    import_from = values.get("import_from")
    if import_from is not None and not all(
        part.isidentifier() and not keyword.iskeyword(part) for part in import_from.split(".")
    ):
        # fix writes `from <import-from> import <enum>`: anything else would not parse.
        raise _err(source, f"[tool.hwlint] import-from must be a dotted module name, got {import_from!r}")
    for alias, target in values.get("aliases", {}).items():
        _identifier(source, "aliases", alias)
        if alias in classifications:
            # A member always means itself (resolve looks members up first), so
            # such an alias would be a silently ignored setting.
            raise _err(source, f"[tool.hwlint] aliases: {alias} is already one of classifications")
        if target not in classifications:
            raise _err(source, f"[tool.hwlint] aliases: {alias} = {target!r} is not one of classifications")
    if "runners" in values:
        values["runners"] = _runner_members(source, values["runners"], classifications, values.get("aliases", {}))
        if values["runners"] and "select" not in values:
            # HWC401 (no-runner) is on by default once there are runners to
            # judge against; an explicit `select` is the user's word.
            values["select"] = (*Config._field_defaults["select"], "HWC4")
    allowlist = values.get("allowlist")
    if allowlist is not None and (os.path.isabs(allowlist) or ".." in Path(allowlist).parts):
        raise _err(source, f"[tool.hwlint] allowlist must be a path inside the project root, got {allowlist!r}")


def _parse_toml(path: Path, data: bytes) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib
    try:
        # tomllib.load does this decode itself, and lets its error escape.
        table: dict[str, Any] = tomllib.loads(data.decode("utf-8"))
        return table
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
    """The bytes of a settings file, or a UserError naming it."""
    try:
        return path.read_bytes()
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None


def read_table(path: Path) -> dict[str, Any] | None:
    """The hwlint settings a file holds, or None when it holds none."""
    return table_from_bytes(path, read_settings_file(path))


TableReader = Callable[[Path], "dict[str, Any] | None"]


def find_git_root(start: Path) -> Path | None:
    """The nearest folder from `start` up that holds `.git`, or None."""
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def load_config(
    config_file: Path | None = None,
    start: Path | None = None,
    *,
    read: TableReader = read_table,
    is_code: Callable[[str], bool] | None = None,
) -> Config:
    """Find and read the configuration.

    With `config_file`, that file is the configuration and its folder is the
    root. Otherwise walk up from `start` (the current directory) to the first
    hwlint.toml, or pyproject.toml with a [tool.hwlint] table; failing that,
    the git root (or `start`) is the root and defaults apply. `read` reads
    a settings file's table (a layer may remember tables); `is_code` judges
    rule codes (hwlint.engine.project passes the rule registry's).
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
    return _with_own_torch(Config(root=find_git_root(start) or start))
