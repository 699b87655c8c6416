"""The cache: each file's facts, keyed by its content, and the diagnostics
of the last whole-tree run, so that a run on an unchanged tree only reads
and hashes the files.

Where: `.hwlint_cache/` at the project root, or `--cache-dir DIR`, or
`HWLINT_CACHE_DIR` (CI can persist it between runs); `--no-cache` (or
`HWLINT_NO_CACHE=1`) turns it off.

What: entries are keyed by a hash of the file's bytes, never its mtime (a CI
checkout gives every file a new mtime; a file's recorded stat only spares
re-reading a file whose content was hashed when the stat was taken, see
`stats_get`), under a folder named after hwlint's
version and its own source files (their sizes and mtimes: the code that
wrote the entries), Python's version, the facts' schema and the options of
the facts stage (hwlint.facts.collect.FactsOptions, whole); any of those changing
is a new, empty folder. Facts are per file: resolution and rules always run on them,
so a subclass is re-judged when only its base class's file changed. The
memo of a whole-tree run records every input of resolution (the hash of each
checked file and of each base file read, and which candidate paths for an
import existed) and is used only when all of them are unchanged.

How: facts are split over 64 shard files by path, so that checking one file
loads one small shard, and a run rewrites only the shards it changed. Each
file is a magic string, a SHA-1 of the payload and the payload (marshal of
plain tuples: no code runs when loading it). A file that is truncated,
corrupt, from another format or unreadable is ignored (and rewritten);
writes go to a temporary file renamed over the old one, so that a reader
never sees half a file and concurrent runs (pre-commit, CI shards) at worst
redo some work. When the cache cannot be written (a read-only tree) the run
goes on without it, with one notice on stderr.

Trust: a cache folder that git tracks (committed, say by a pull request) is
never read: its entries could make a violation disappear. See
`tracked_by_git`.

This module is storage only: hwlint.engine.cached decides what is kept, keyed by
what.
"""

from __future__ import annotations

import marshal
import os
import sys
import zlib
from pathlib import Path
from typing import Any, Mapping

from hwlint import __version__
from hwlint.infra.hashing import DIGEST_SIZE as _DIGEST_SIZE
from hwlint.infra.hashing import digest

CACHE_DIR_NAME = ".hwlint_cache"
ENV_DIR = "HWLINT_CACHE_DIR"
ENV_DISABLE = "HWLINT_NO_CACHE"

_MAGIC = b"HWLINT-CACHE-2\n"  # the format of files and facts blobs
_SHARDS = 64
_SELECTION = "selection.bin"
_STATS = "stats.bin"
# Verdicts are ~25 bytes each; past this many (paths renamed, patterns and
# .gitignore files edited over months) the memo starts again.
_SELECTION_MAX = 20_000


def _shard_of(path: str) -> int:
    return zlib.crc32(path.encode("utf-8", "surrogatepass")) % _SHARDS


def _pack(value: Any) -> bytes:
    payload = marshal.dumps(value)
    return _MAGIC + digest(payload, bulk=len(payload) > 1 << 16) + payload


def _unpack(data: bytes) -> Any:
    """The value `_pack` stored, or None when `data` is not such a file."""
    head = len(_MAGIC)
    if len(data) < head + _DIGEST_SIZE or not data.startswith(_MAGIC):
        return None
    payload = data[head + _DIGEST_SIZE :]
    if digest(payload, bulk=len(payload) > 1 << 16) != data[head : head + _DIGEST_SIZE]:
        return None
    try:
        return marshal.loads(payload)
    except Exception:  # checksum matched but the format did not: ignore it
        return None


def _load(path: Path) -> Any:
    """The value a cache file holds, or None (missing, unreadable, damaged)."""
    try:
        with open(path, "rb", buffering=0) as fh:
            data = fh.readall()
    except OSError:
        return None
    return _unpack(data)


def code_fingerprint() -> tuple[tuple[str, int, int], ...]:
    """hwlint's own source files, by name, size and mtime (what Python itself
    checks its bytecode against). The version alone is not enough: an
    install from a git revision (pre-commit's `rev: <sha>`) or a working
    copy keeps the version while the rules change, and a cache written by
    other rules must not answer for these."""
    package = os.path.dirname(os.path.dirname(__file__))  # hwlint/, above infra/
    recorded = _recorded(package)
    if recorded is not None:
        return recorded
    found = []
    # The package's subpackages (one level: the stages, rules, the engine);
    # cli/commands/ decides nothing a cache keeps.
    subs = [""] + sorted(
        entry.name for entry in os.scandir(package) if entry.is_dir() and not entry.name.startswith(("_", "."))
    )
    for sub in subs:
        try:
            entries = list(os.scandir(os.path.join(package, sub)))
        except OSError:
            continue
        for entry in entries:
            if entry.name.endswith(".py"):
                try:
                    st = entry.stat()
                except OSError:
                    continue
                found.append((f"{sub}/{entry.name}", st.st_size, st.st_mtime_ns))
    return tuple(sorted(found))


def _recorded(package: str) -> tuple[tuple[str, int, int], ...] | None:
    """For an installed wheel, its files by the content hashes pip wrote in
    the RECORD beside the package (and their sizes, checked): the same for
    every install of that wheel, so a cache restored into a fresh CI
    environment is read, where mtimes (pip does not keep the wheel's) named
    a new folder each time. None for an editable install or a source tree."""
    site = os.path.dirname(package)
    try:
        infos = [e.name for e in os.scandir(site) if e.name.startswith("hwlint-") and e.name.endswith(".dist-info")]
    except OSError:
        return None
    if len(infos) != 1:
        return None
    try:
        with open(os.path.join(site, infos[0], "RECORD"), encoding="utf-8") as f:
            lines = [line.strip().split(",") for line in f if line.startswith("hwlint/") and ".py," in line]
    except OSError:
        return None
    found = []
    for fields in lines:
        if len(fields) != 3 or not fields[1].startswith("sha256="):
            return None
        try:
            size = os.stat(os.path.join(site, fields[0])).st_size
        except OSError:
            return None
        if str(size) != fields[2]:
            return None  # changed since it was installed: the mtimes tell
        found.append((fields[0] + "#" + fields[1], size, 0))
    return tuple(sorted(found)) or None


def namespace_key(inputs: Any) -> str:
    """The folder of entries written by this code for these `inputs` (the
    options of the stage whose output is kept, and its output's schema)."""
    key = (
        _MAGIC,
        __version__,
        code_fingerprint(),
        sys.implementation.name,
        tuple(sys.version_info[:3]),
        inputs,
    )
    return digest(repr(key).encode("utf-8")).hex()[:24]


class Cache:
    """Facts per file and whole-run memos under one folder.

    `hits`/`misses` count facts looked up (tests and the benchmark read them);
    `memo_hit` tells whether the last whole-tree run was reused."""

    def __init__(self, directory: Path, namespace: str) -> None:
        self.base = Path(directory)
        self.directory = self.base / namespace
        self.hits = 0
        self.misses = 0
        self.memo_hit = False
        self.writable = True
        self._shards: dict[int, dict[str, Any]] = {}
        self._dirty: dict[int, set[str]] = {}  # shard -> paths removed from it (changed or not)
        self._selection: dict[bytes, bool] | None = None
        self._selection_new: dict[bytes, bool] = {}
        self._stats_new: dict[str, bytes] | None = None
        self._notice_given = False

    # -- facts --------------------------------------------------------------

    def _shard(self, index: int) -> dict[str, Any]:
        shard = self._shards.get(index)
        if shard is None:
            shard = self._read(f"facts-{index:02d}.bin")
            if not isinstance(shard, dict):
                shard = {}
            self._shards[index] = shard
        return shard

    def has(self, path: str) -> bool:
        """Whether there is an entry for `path` (whatever its content)."""
        return path in self._shard(_shard_of(path))

    def get(self, path: str, key: bytes) -> bytes | None:
        """The facts blob stored for `path` with content hash `key`, or None."""
        entry = self._shard(_shard_of(path)).get(path)
        if type(entry) is tuple and len(entry) == 2 and entry[0] == key and type(entry[1]) is bytes:
            self.hits += 1
            return entry[1]
        self.misses += 1
        return None

    def put(self, path: str, key: bytes, blob: bytes) -> None:
        index = _shard_of(path)
        self._shard(index)[path] = (key, blob)
        self._dirty.setdefault(index, set()).discard(path)

    def discard(self, path: str) -> None:
        """Forget a cached entry that turned out unusable."""
        index = _shard_of(path)
        shard = self._shard(index)
        if path in shard:
            del shard[path]
            self._dirty.setdefault(index, set()).add(path)

    def retain(self, paths: set[str]) -> None:
        """Forget the entries of files that are gone (after a whole-tree
        run: `paths` are the files it read)."""
        for index in range(_SHARDS):
            shard = self._shard(index)
            gone = [p for p in shard if p not in paths]
            for path in gone:
                del shard[path]
            if gone:
                self._dirty.setdefault(index, set()).update(gone)

    # -- which files named on the command line are test files --------------

    def selection_get(self, key: tuple[Any, ...]) -> bool | None:
        """The verdict stored for `key` (see discover._selection_key), or None."""
        if self._selection is None:
            stored = self._read(_SELECTION)
            self._selection = stored if isinstance(stored, dict) else {}
        verdict = self._selection.get(digest(repr(key).encode("utf-8", "surrogatepass")))
        return verdict if type(verdict) is bool else None

    def selection_put(self, key: tuple[Any, ...], verdict: bool) -> None:
        self._selection_new[digest(repr(key).encode("utf-8", "surrogatepass"))] = verdict

    # -- what each file's stat said when its content had a given hash ------

    def stats_get(self) -> dict[str, bytes]:
        """path -> its stat (size, mtime, ctime, inode), content hash and when
        that stat was taken, packed: see hwlint.engine.cached.CachedFactsSource.hash_files."""
        stored = self._read(_STATS)
        return stored if isinstance(stored, dict) else {}

    def stats_put(self, entries: dict[str, bytes]) -> None:
        """Replace the stat records (a whole-tree run knows every file's)."""
        self._stats_new = entries

    # -- whole-run memos ----------------------------------------------------

    def memo_get(self, name: str) -> Any:
        return self._read(f"memo-{name}.bin")

    def memo_put(self, name: str, value: Any) -> None:
        try:
            data = _pack(value)
        except ValueError:  # something marshal cannot store: no memo, no harm
            return
        self._write(f"memo-{name}.bin", data)

    # -- files ----------------------------------------------------------------

    def _read(self, name: str) -> Any:
        return _load(self.directory / name)

    def save(self) -> None:
        """Write the shards changed by this run, with what another run may
        have added to them meanwhile."""
        for index, removed in sorted(self._dirty.items()):
            name = f"facts-{index:02d}.bin"
            on_disk = self._read(name)
            merged = {p: e for p, e in on_disk.items() if p not in removed} if isinstance(on_disk, dict) else {}
            merged.update(self._shards.get(index, {}))
            if not self._write(name, _pack(merged)):
                return
        self._dirty.clear()
        if self._selection_new:
            on_disk = self._read(_SELECTION)
            merged = on_disk if isinstance(on_disk, dict) and len(on_disk) < _SELECTION_MAX else {}
            merged.update(self._selection_new)
            if self._write(_SELECTION, _pack(merged)):
                self._selection_new.clear()
        if self._stats_new is not None and self._write(_STATS, _pack(self._stats_new)):
            self._stats_new = None

    def _write(self, name: str, data: bytes) -> bool:
        if not self.writable:
            return False
        from hwlint.infra.atomic import write_bytes_atomic

        try:
            self._prepare()
            write_bytes_atomic(self.directory / name, data, durable=False)
        except OSError as exc:
            self.writable = False
            if not self._notice_given:
                self._notice_given = True
                reason = exc.strerror or str(exc)
                print(
                    f"hwlint: notice: cannot write the cache in {self.base} ({reason}); continuing without it",
                    file=sys.stderr,
                )
            return False
        return True

    def _prepare(self) -> None:
        if self.directory.is_dir():
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        # Like .pytest_cache and .mypy_cache: git ignores it by itself, and
        # backup tools skip it.
        for name, text in (
            (".gitignore", "# Created by hwlint.\n*\n"),
            ("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n# Created by hwlint.\n"),
        ):
            marker = self.base / name
            if not marker.exists():
                try:
                    marker.write_text(text, encoding="utf-8")
                except OSError:
                    pass


def cache_folder(root: Path, directory: Path | str | None = None) -> Path:
    """The cache folder: `directory` (--cache-dir), else HWLINT_CACHE_DIR,
    else `.hwlint_cache/` at the root; absolute."""
    if directory is None:
        env = os.environ.get(ENV_DIR)
        directory = Path(env) if env else Path(root) / CACHE_DIR_NAME
    return Path(os.path.abspath(directory))


def chosen_folder(root: Path, cache: "bool | str | Path | None") -> Path | None:
    """The folder a run uses, from run_check's `cache` argument:

    - True (`hwlint check`): the cache, in HWLINT_CACHE_DIR, else
      `.hwlint_cache/` at the root; none with HWLINT_NO_CACHE=1;
    - None (other commands, library calls): the same, but only when
      HWLINT_CACHE_DIR names a folder: a library call does not leave a
      folder in the caller's tree unasked;
    - False: none (--no-cache); a path: that folder (--cache-dir). The
      command line decides these (hwlint.cli.options.cache_choice).
    """
    if cache is False:
        return None
    if cache is not None and cache is not True:
        return cache_folder(root, cache)
    if os.environ.get(ENV_DISABLE, "") not in ("", "0"):
        return None
    if cache is None and not os.environ.get(ENV_DIR):
        return None
    return cache_folder(root)


def tracked_by_git(folder: Path) -> bool:
    """Whether git tracks a file inside `folder` (it was committed).

    A committed cache is someone else's output: a pull request could commit
    entries that make a violation disappear. Read from git's index (cheap:
    the one-file check runs this every time); an index git writes in a form
    this does not read (version 4, split or sparse) is asked of `git
    ls-files`."""
    folder = Path(os.path.abspath(folder))
    top = next((d for d in (folder, *folder.parents) if (d / ".git").exists()), None)
    if top is None:
        return False
    try:
        prefix = folder.relative_to(top).as_posix().encode("utf-8", "surrogateescape") + b"/"
    except ValueError:
        return False
    if prefix == b"./":
        return True  # the cache is the work tree itself
    gitdir = top / ".git"
    try:
        if gitdir.is_file():  # a worktree or submodule: "gitdir: <path>"
            text = gitdir.read_text(encoding="utf-8").strip()
            gitdir = (top / text.partition("gitdir:")[2].strip()).resolve()
        with open(gitdir / "index", "rb") as fh:
            data = fh.read()
        split = any(name.startswith("sharedindex.") for name in os.listdir(gitdir))
    except OSError:
        return False  # no index: nothing is tracked
    if data[:4] == b"DIRC" and data[4:8] in (b"\0\0\0\2", b"\0\0\0\3") and not split:
        return _in_index(data, prefix)
    # Here, not at the top: a one-file check must not pay for subprocess.
    from hwlint.infra.git import tracks_under

    return tracks_under(top, prefix.decode("utf-8", "surrogateescape"))


def _in_index(data: bytes, prefix: bytes) -> bool:
    """Whether an entry of a version 2 or 3 index starts with `prefix`.
    Those versions store each path whole, NUL-terminated, right after the
    entry's 16-bit flags (and, in version 3, 16 more bits of extended
    flags); the flags' low 12 bits are the path's length."""
    start = data.find(prefix)
    while start >= 0:
        end = data.find(b"\0", start)
        length = min((end if end >= 0 else len(data)) - start, 0x0FFF)
        for at in (start - 2, start - 4):
            if at >= 12 and int.from_bytes(data[at : at + 2], "big") & 0x0FFF == length:
                return True
        start = data.find(prefix, start + 1)
    return False


# -- settings ------------------------------------------------------------------
# Finding the configuration parses TOML: tomllib and the datetime module it
# imports cost as much as the rest of a one-file check's work. The [tool.hwlint]
# table read from a file is kept in the cache folder, keyed by the file's bytes.

_TABLES = "settings.bin"
_TABLES_MAX = 64  # files (and versions of them) remembered
_NOTHING = "no [tool.hwlint] table"  # stored for a file that has none


def _table_key(name: str, data: bytes) -> bytes:
    # The file's name counts: hwlint.toml and pyproject.toml hold the table
    # in different places; so does the version that read it.
    return digest(f"{__version__}\0{name}\0".encode("utf-8", "surrogatepass") + data)


def table_get(folder: Path, name: str, data: bytes) -> tuple[bool, Any]:
    """(True, table or None) when the memo in `folder` knows the settings
    file `name` with these bytes."""
    tables = _load(folder / _TABLES)
    if not isinstance(tables, dict):
        return False, None
    found = tables.get(_table_key(name, data), _MISSING)
    if found is _MISSING or not (found == _NOTHING or isinstance(found, dict)):
        return False, None
    return True, None if found == _NOTHING else _thaw(found)


def table_put(folder: Path, name: str, data: bytes, table: dict[str, Any] | None) -> None:
    """Remember the table of a settings file, if the cache folder exists
    (a folder is never created for this alone)."""
    if not folder.is_dir():
        return
    tables = _load(folder / _TABLES)
    if not isinstance(tables, dict) or len(tables) >= _TABLES_MAX:
        tables = {}
    try:
        tables[_table_key(name, data)] = _NOTHING if table is None else _freeze(table)
        payload = _pack(tables)
    except ValueError:  # a value marshal cannot store (a TOML time): no memo
        return
    from hwlint.infra.atomic import write_bytes_atomic

    try:
        write_bytes_atomic(folder / _TABLES, payload, durable=False)
    except OSError:
        pass  # a read-only cache: the run says so when it writes its facts


_MISSING = object()
# A TOML date (`due = 2027-03-31` of a phase) as marshal can store it. TOML
# gives no tuples, so a tagged tuple cannot be mistaken for a value.
_DATE = "\0toml-date"


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _freeze(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_freeze(v) for v in value]
    if type(value).__module__ == "datetime" and type(value).__name__ == "date":  # not datetime: no import
        return (_DATE, value.isoformat())
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_thaw(v) for v in value]
    if type(value) is tuple and len(value) == 2 and value[0] == _DATE:
        from datetime import date

        return date.fromisoformat(value[1])
    return value


def memo_name(parts: Mapping[str, Any] | tuple[Any, ...]) -> str:
    return digest(repr(parts).encode("utf-8")).hex()[:16]
