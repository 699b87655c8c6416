"""The cache as a layer around the stages.

hwlint.infra.cache stores bytes; this module decides what is kept and under
which key, and wraps the stages that are worth it. The stages themselves
(discover, config, read/facts, allowlist, resolve, rules) know nothing of
it. Every key is derived from all the inputs of what it keeps:

- facts of a file: its content hash, in a folder named after the facts
  stage's options (hwlint.facts.collect.FactsOptions, whole) and hwlint's code;
- a named file's include/exclude/.gitignore verdict:
  hwlint.facts.discover.selection_inputs;
- a settings file's `[tool.hwlint]` table: its name and bytes;
- the allowlist read for a check: its path and bytes (`memoize`);
- the diagnostics of a whole-tree run: every setting of Config, the rules
  on, and every file resolution read or looked for (`TreeMemo`).

A cache folder that git tracks is never used (`trusted_folder`).
"""

from __future__ import annotations

import os
import struct
import sys
import time
from pathlib import Path
from typing import Any, Callable, TypeGuard, TypeVar, cast

from hwlint.allowlist.model import (
    Allowlist,
    allowlist_from_bytes,
    allowlist_from_tuple,
    allowlist_to_tuple,
    read_allowlist_bytes,
)
from hwlint.core.config import Config, TableReader, read_settings_file, table_from_bytes
from hwlint.core.diagnostics import Diagnostic, fix_from_plain, fix_to_plain
from hwlint.facts import SCHEMA, ModuleFacts, from_blob, to_blob
from hwlint.facts.collect import Blob, FactsOptions, FactsSource, Progress, facts_of, read_bytes
from hwlint.facts.discover import Matcher, selection_inputs
from hwlint.infra.cache import Cache, chosen_folder, memo_name, namespace_key, table_get, table_put, tracked_by_git
from hwlint.infra.hashing import DIGEST_SIZE, digest

T = TypeVar("T")
CacheArg = "bool | str | Path | Cache | None"

# -- which folder, and whether to trust it ---------------------------------------

_UNTRUSTED: dict[Path, bool] = {}  # folder -> tracked by git (asked once per process)


def trusted_folder(root: Path, cache: bool | str | Path | None) -> Path | None:
    """The cache folder a run uses (hwlint.infra.cache.chosen_folder), unless git
    tracks it: then one notice, and the run goes on without a cache."""
    folder = chosen_folder(root, cache)
    if folder is None or not folder.is_dir():
        return folder
    if folder not in _UNTRUSTED:
        _UNTRUSTED[folder] = tracked_by_git(folder)
        if _UNTRUSTED[folder]:
            print(
                f"hwlint: notice: git tracks the cache folder {folder} (it was committed): not using it; "
                f"remove it from git (`git rm -r --cached {folder.name}`)",
                file=sys.stderr,
            )
    return None if _UNTRUSTED[folder] else folder


def _namespace(config: Config) -> str:
    return namespace_key((SCHEMA, FactsOptions.of(config)))


def store_for(config: Config, directory: Path | str | None = None) -> Cache:
    """The cache of `config`'s facts in `directory` (default: the usual folder)."""
    from hwlint.infra.cache import cache_folder

    return Cache(cache_folder(config.root, directory), _namespace(config))


def open_cache(config: Config, cache: bool | str | Path | Cache | None = None) -> Cache | None:
    """The cache a run uses: `cache` as run_check's (True: unless disabled;
    None: only when a folder is named; False: none; a path; a Cache)."""
    if isinstance(cache, Cache):
        return cache
    folder = trusted_folder(config.root, cache)
    return None if folder is None else Cache(folder, _namespace(config))


# -- memos ---------------------------------------------------------------------------


def memoize(
    store: Cache | None,
    name: str,
    key: Any,
    compute: Callable[[], T],
    encode: Callable[[T], Any] = lambda value: value,
    decode: Callable[[Any], T] = lambda value: value,
) -> T:
    """`compute()`, or what it returned last time for the same `key` (all of
    its inputs: compared whole). `encode` turns the value into plain data
    marshal can store; `decode` raises on a stored value of another shape."""
    if store is None:
        return compute()
    key_hash = digest(repr(key).encode("utf-8", "surrogatepass"))
    stored = store.memo_get(name)
    if type(stored) is tuple and len(stored) == 2 and stored[0] == key_hash:
        try:
            return decode(stored[1])
        except (TypeError, ValueError):
            pass  # another shape: compute it again
    value = compute()
    store.memo_put(name, (key_hash, encode(value)))
    return value


def load_allowlist(config: Config, store: Cache | None) -> Allowlist:
    """The allowlist as a check reads it (no layout); remembered by its bytes:
    a one-file check spends more on parsing a long list than on the file."""
    root, relative = config.root, config.allowlist
    data = read_allowlist_bytes(root, relative)
    if data is None or store is None:
        return allowlist_from_bytes(data, root, relative, layout=False)
    return memoize(
        store,
        "allowlist",
        (relative, digest(data)),
        lambda: allowlist_from_bytes(data, root, relative, layout=False),
        allowlist_to_tuple,
        lambda value: allowlist_from_tuple(value, relative),
    )


def selector(config: Config, store: Cache | None) -> Callable[[str], bool] | None:
    """discover's verdict for a named file, remembered by all its inputs."""
    if store is None:
        return None
    matchers: list[Matcher] = []

    def selected(rel: str) -> bool:
        key = selection_inputs(config, rel)
        verdict = store.selection_get(key)
        if verdict is None:
            if not matchers:
                matchers.append(Matcher(config))
            verdict = matchers[0].selected(rel)
            store.selection_put(key, verdict)
        return verdict

    return selected


def settings_reader(cache: bool | str | Path | None) -> TableReader:
    """config.read_table, remembering each file's table by its name and bytes
    in the cache folder of the root that file would make (a warm run then
    imports no TOML parser)."""

    def read(path: Path) -> dict[str, Any] | None:
        data = read_settings_file(path)
        folder = trusted_folder(path.parent, cache) if cache is not False else None
        if folder is not None:
            known, table = table_get(folder, path.name, data)
            if known:
                # The table as table_from_bytes made it, from the same bytes.
                return cast("dict[str, Any] | None", table)
        table = table_from_bytes(path, data)
        if folder is not None:
            table_put(folder, path.name, data, table)
        return table

    return read


# -- facts -----------------------------------------------------------------------------

# A file modified this close to when its stat was taken may have changed
# again within the filesystem's timestamp granularity (git's "racy" files;
# FAT and some network filesystems keep 2 s): its stat vouches for nothing.
_RACY_NS = 2_000_000_000
# A stat as kept: size, mtime_ns, ctime_ns, inode; a record: the stat, the
# content hash, and when the stat was taken (ns).
_STAT = struct.Struct("<4q")
_TAKEN = struct.Struct("<q")
_RECORD = struct.Struct(f"<4q{DIGEST_SIZE}sq")
_TAKEN_AT = _RECORD.size - _TAKEN.size
_NO_STAT = bytes(_STAT.size)


def _begins(record: object, prefix: bytes) -> TypeGuard[bytes]:
    """Whether `record` (from the cache file: anything) is a _RECORD that
    begins with `prefix` (a stat, or a stat and its hash)."""
    return type(record) is bytes and len(record) == _RECORD.size and record.startswith(prefix)


class CachedFactsSource(FactsSource):
    """FactsSource whose files' facts are kept, keyed by their content."""

    with_keys = True

    def __init__(self, config: Config, store: Cache, jobs: int | None = None, progress: Progress | None = None) -> None:
        super().__init__(config, jobs, progress)
        self.store = store
        self.keys: dict[str, bytes | None] = {}  # content hash of every file read
        self.extras: dict[str, bytes | None] = {}  # non-test files loaded for resolution
        # hash_files's stats (the files, their packed _STATs), taken at
        # `taken` (ns), and the records (_RECORD) it found.
        self.stats: tuple[list[str], bytes] | None = None
        self.taken = 0
        self.recorded: dict[str, bytes] = {}

    def hash_files(self, files: list[str]) -> None:
        """Read and hash every file the cache has an entry for: the key is
        the content (a CI checkout gives every file a new mtime). A file
        without an entry is parsed anyway, and hashed by whoever parses it.
        Reading and SHA-1 let go of the interpreter lock: two threads do it
        in about half the time.

        Many files (a whole tree): a file whose stat (size, mtime, ctime,
        inode) is the one recorded with its hash by an earlier run is not
        read, as git's index does, unless it was modified within
        _RACY_NS of when that stat was taken (it may have changed again in
        the same timestamp tick). The key stays the content: a stat only
        says the content is the one hashed then."""
        store = self.store
        root, keys, sizes = self.root, self.keys, self.sizes
        bulk = len(files) > 8
        if bulk:
            files = self._known_by_stat(files)
        files = [rel for rel in files if store.has(rel)]

        def run(part: list[str]) -> None:
            for rel in part:
                data = read_bytes(os.path.join(root, rel))
                if data is None:
                    keys[rel] = None
                else:
                    keys[rel] = digest(data, bulk=bulk)
                    sizes[rel] = len(data)

        if len(files) < 256 or (os.cpu_count() or 1) < 2:
            run(files)
            return
        import threading  # only for big trees: a one-file run does not pay for it

        helper = threading.Thread(target=run, args=(files[1::2],), daemon=True)
        helper.start()
        try:
            run(files[0::2])
        finally:
            helper.join()

    def _known_by_stat(self, files: list[str]) -> list[str]:
        """Set the keys of the files whose stat vouches for an earlier hash;
        the others, to read. Each file's stat is taken before anyone reads
        it, so that what record_stats stores is never newer than its hash.
        The stats are kept packed, 32 bytes a file, in the order of `files`:
        a cold run over 20,000 files holds them while its workers parse."""
        self.taken = time.time_ns()
        recorded = self.store.stats_get()
        packed = bytearray()
        unknown = []
        root, keys, sizes = self.root, self.keys, self.sizes
        pack, taken_at = _STAT.pack, _TAKEN.unpack_from
        for rel in files:
            try:
                st = os.stat(os.path.join(root, rel))
            except OSError:
                packed += _NO_STAT
                unknown.append(rel)  # read_bytes says what happened
                continue
            stat = pack(st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
            packed += stat
            old = recorded.get(rel)
            if _begins(old, stat) and max(st.st_mtime_ns, st.st_ctime_ns) < taken_at(old, _TAKEN_AT)[0] - _RACY_NS:
                keys[rel] = old[_STAT.size : _STAT.size + DIGEST_SIZE]
                sizes[rel] = st.st_size
            else:
                unknown.append(rel)
        self.stats = (files, bytes(packed))
        self.recorded = recorded
        return unknown

    def record_stats(self, whole_tree: bool) -> None:
        """After the run: each file's stat with the hash of what was read
        (see hash_files), beside the records of other files unless the run
        saw the whole tree; written only when it changed."""
        if self.stats is None:
            return
        files, packed = self.stats
        entries = {} if whole_tree else dict(self.recorded)
        taken = _TAKEN.pack(self.taken)
        for index, rel in enumerate(files):
            key = self.keys.get(rel)
            stat = packed[index * _STAT.size : (index + 1) * _STAT.size]
            if key is None or stat == _NO_STAT:
                continue
            old = self.recorded.get(rel)
            if _begins(old, stat + key):
                entries[rel] = old  # the same stat and content: when it was first vouched for stays
            else:
                entries[rel] = stat + key + taken
        if entries != self.recorded:
            self.store.stats_put(entries)

    def collect(self, files: list[str]) -> dict[str, Blob | ModuleFacts]:
        values: dict[str, Blob | ModuleFacts] = {}
        missing: list[str] = []
        store = self.store
        for rel in files:
            key = self.keys.get(rel)
            blob = None
            if key is not None:
                blob = store.get(rel, key)
            else:
                store.misses += 1  # no entry (or unreadable)
            if blob is None:
                missing.append(rel)
            else:
                values[rel] = blob
        if self.progress is not None and values:
            self.progress(len(values), len(files))
        values.update(self.parse_all(missing, len(files)))
        return {rel: values[rel] for rel in files}

    def parse_one(self, rel: str) -> ModuleFacts:
        data = read_bytes(self.abspath(rel))
        facts = facts_of(rel, data, self.abspath(rel), self.options)
        if data is not None:
            key = self.keys[rel] = digest(data)
            self.store.put(rel, key, to_blob(facts))
        return facts

    def parsed(self, rel: str, key: bytes | None, blob: Blob) -> None:
        self.keys[rel] = key
        if key is not None:
            self.store.put(rel, key, blob)

    def read_elsewhere(self, rel: str) -> None:
        # An input of the run's resolution, as if `load` had read it.
        if rel not in self.extras:
            data = read_bytes(self.abspath(rel))
            self.extras[rel] = digest(data) if data is not None else None

    def load(self, rel: str) -> ModuleFacts | None:
        data = read_bytes(self.abspath(rel))
        key = digest(data) if data is not None else None
        self.extras[rel] = key
        if key is not None:
            blob = self.store.get(rel, key)
            if blob is not None:
                try:
                    return from_blob(blob)
                except Exception:
                    self.store.discard(rel)
        facts = facts_of(rel, data, self.abspath(rel), self.options)
        if key is not None:
            self.store.put(rel, key, to_blob(facts))
        return facts

    def rebuild(self, rel: str) -> ModuleFacts:
        self.store.discard(rel)
        return self.parse_one(rel)


# -- the memo of a whole-tree run --------------------------------------------------------


def _encode_diagnostic(d: Diagnostic) -> tuple[Any, ...]:
    return (
        d.path,
        d.line,
        d.column,
        d.code,
        d.name,
        d.message,
        d.severity,
        d.class_name,
        fix_to_plain(d.fix),
        d.method,
    )


def _decode_diagnostic(d: Any) -> Diagnostic:
    path, line, column, code, name, message, severity, class_name, fix, method = d
    return Diagnostic(path, line, column, code, name, message, severity, class_name, fix_from_plain(fix), method)


class TreeMemo:
    """The diagnostics of the last whole-tree run, reused when every input of
    resolution is unchanged: the test files and their contents, the base
    files read and the import candidates probed (a new file can change what
    an import finds). Keyed by every setting of Config and the rules on."""

    def __init__(self, store: Cache, config: Config, enabled: frozenset[str]) -> None:
        self.store = store
        settings = tuple(
            (name, repr(getattr(config, name))) for name in config._fields if name not in ("root", "source")
        )
        self.name = memo_name(("whole-tree", tuple(sorted(enabled)), settings, Diagnostic.__slots__))
        # Every input of this run's resolution (settings, rules, files and
        # their contents, base files, import probes), once the memo was found
        # valid or written: what `derived` keys values computed from the run by.
        self.fingerprint: str | None = None

    def _fingerprint(self, inputs: tuple[Any, ...]) -> None:
        self.fingerprint = memo_name((self.name, inputs))

    def get(self, source: CachedFactsSource, files: list[str]) -> tuple[list[Diagnostic], set[str]] | None:
        """(diagnostics, files that do not parse) of the last run, if still true."""
        if not all(source.keys.get(rel) is not None for rel in files):
            return None
        memo = self.store.memo_get(self.name)
        if memo is None or not self._valid(memo, source, files):
            return None
        try:
            found = [_decode_diagnostic(d) for d in memo["diagnostics"]], set(memo["broken"])
        except Exception:
            return None
        self.store.memo_hit = True
        self._fingerprint((memo["files"], memo["extras"], memo["probes"]))
        return found

    @staticmethod
    def _valid(memo: Any, source: CachedFactsSource, files: list[str]) -> bool:
        try:
            if memo["files"] != tuple((rel, source.keys.get(rel)) for rel in files):
                return False
            for rel, key in memo["extras"]:
                data = read_bytes(source.abspath(rel))
                if (digest(data) if data is not None else None) != key:
                    return False
            for rel, exists in memo["probes"]:
                if os.path.isfile(source.abspath(rel)) != exists:
                    return False
            return True
        except Exception:  # a memo of another shape: not valid
            return False

    def put(
        self,
        source: CachedFactsSource,
        files: list[str],
        probes: dict[str, bool],
        diagnostics: list[Diagnostic],
        broken: set[str],
    ) -> None:
        if not all(source.keys.get(rel) is not None for rel in files):
            return
        inputs = (
            tuple((rel, source.keys[rel]) for rel in files),
            tuple(sorted(source.extras.items())),
            tuple(sorted(probes.items())),
        )
        self.store.memo_put(
            self.name,
            {
                "files": inputs[0],
                "extras": inputs[1],
                "probes": inputs[2],
                "diagnostics": tuple(_encode_diagnostic(d) for d in diagnostics),
                "broken": tuple(sorted(broken)),
            },
        )
        self._fingerprint(inputs)

    def derived(self, diagnostics: list[Diagnostic]) -> Callable[[str, Callable[[], int]], int] | None:
        """A memo for what consumers compute from this run's result (the
        text format's "N fixable"), keyed by the run's inputs and its final
        diagnostics (the allowlist applied); None when the run has no
        fingerprint (not a whole tree, a file unread)."""
        fingerprint = self.fingerprint
        if fingerprint is None:
            return None
        key = (fingerprint, digest(repr([_encode_diagnostic(d) for d in diagnostics]).encode("utf-8", "surrogatepass")))
        store = self.store

        def remember(name: str, compute: Callable[[], int]) -> int:
            return memoize(store, f"derived-{name}", key, compute, decode=_integer)

        return remember


def _integer(value: Any) -> int:
    if type(value) is not int:
        raise TypeError("not an int")
    return value
