"""The cache (hwlint/cache.py): what makes an entry valid, what invalidates it,
and that a damaged or unwritable cache never changes a result or crashes.

Counters come from a Cache passed to run_check (hits/misses of per-file
facts, memo_hit for a whole-tree run reused); the command line is run as a
user runs it, and its output compared with a run without the cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import hwlint.infra.cache
from hwlint.core.config import load_config
from hwlint.engine.cached import store_for
from hwlint.engine.check import run_check
from hwlint.facts import extract_source, from_blob, to_blob
from hwlint.infra.cache import CACHE_DIR_NAME, Cache
from tests.conftest import run_cli, write_project

HEADER = "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n"
GENERIC = (
    HEADER
    + "\nclass TestA(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n    def test_a(self):\n        pass\n"
)
UNCLASSIFIED = HEADER + "\nclass TestB(TestCase):\n    def test_b(self):\n        pass\n"
BASE = HEADER + "\nclass DeviceBase(TestCase):\n    hw_classification = HardwareClassification.{member}\n"
SUBCLASS = "from common_base import DeviceBase\n\n\nclass TestSub(DeviceBase):\n    def test_sub(self):\n        pass\n"


def _tree(tmp_path: Path, extra: dict[str, str] | None = None) -> Path:
    files = {
        "test/test_a.py": GENERIC,
        "test/test_b.py": UNCLASSIFIED,
        "test/common_base.py": BASE.format(member="ACCELERATOR"),
        "test/test_sub.py": SUBCLASS,
    }
    files.update(extra or {})
    return write_project(tmp_path / "proj", files)


def _run(root: Path, cache_dir: Path, paths: list[Path] | None = None) -> tuple[list[tuple[str, int, str]], Cache]:
    config = load_config(start=root)
    store = store_for(config, cache_dir)
    result = run_check(config, paths, jobs=1, cache=store)
    return [(d.path, d.line, d.code) for d in result.diagnostics], store


def _codes(root: Path, cache_dir: Path) -> list[tuple[str, int, str]]:
    return _run(root, cache_dir)[0]


def _cli(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hwlint", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


# -- hits, misses and what invalidates them ---------------------------------------


def test_second_run_hits_every_file_and_reuses_the_whole_run(tmp_path: Path) -> None:
    root, cache = _tree(tmp_path), tmp_path / "cache"
    first, store = _run(root, cache)
    assert (store.hits, store.misses, store.memo_hit) == (0, 4, False)  # 3 test files + the base file
    second, store = _run(root, cache)
    assert second == first
    assert store.memo_hit and store.misses == 0
    assert ("test/test_sub.py", 5, "HWC102") in first  # ACCELERATOR inherited from the base file


def test_content_change_misses_that_file_only(tmp_path: Path) -> None:
    root, cache = _tree(tmp_path), tmp_path / "cache"
    _run(root, cache)
    (root / "test/test_b.py").write_text(GENERIC.replace("TestA", "TestB"))
    codes, store = _run(root, cache)
    assert not store.memo_hit
    assert (store.hits, store.misses) == (3, 1)
    assert not any(path == "test/test_b.py" for path, _, _ in codes)


def test_mtime_is_not_the_key(tmp_path: Path) -> None:
    root, cache = _tree(tmp_path), tmp_path / "cache"
    _run(root, cache)
    for path in (root / "test").iterdir():
        os.utime(path, (1, 1))  # a fresh CI checkout: new mtimes, same bytes
    _, store = _run(root, cache)
    assert store.memo_hit
    # Same size, same mtime, other bytes: a miss.
    target = root / "test/test_b.py"
    stat = target.stat()
    target.write_text(UNCLASSIFIED.replace("test_b", "test_c"))
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert target.stat().st_size == stat.st_size
    codes, store = _run(root, cache)
    assert not store.memo_hit and store.misses == 1
    assert codes == _run(root, tmp_path / "fresh")[0]


def _many(tmp_path: Path) -> Path:
    """Enough files for a whole-tree run to trust stats (hash_files's bulk)."""
    files = {f"test/test_g{i}.py": GENERIC.replace("TestA", f"TestG{i}") for i in range(10)}
    return write_project(tmp_path / "proj", {**files, "test/test_b.py": UNCLASSIFIED})


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    import hwlint.engine.cached

    read: list[str] = []
    real = hwlint.engine.cached.read_bytes
    monkeypatch.setattr(hwlint.engine.cached, "read_bytes", lambda path: read.append(path) or real(path))
    return read


def test_an_unchanged_stat_vouches_for_the_hash_and_a_changed_ctime_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hwlint.engine.cached

    # Files written just before a run are racy (changed within 2 s of the
    # stat): here every stat older than the run counts.
    monkeypatch.setattr(hwlint.engine.cached, "_RACY_NS", 0)
    root, cache = _many(tmp_path), tmp_path / "cache"
    first, _ = _run(root, cache)
    read = _reads(monkeypatch)
    second, store = _run(root, cache)
    assert (second, store.memo_hit, read) == (first, True, [])
    # Other bytes of the same size, the old mtime put back: the ctime moved.
    target = root / "test/test_b.py"
    stat = target.stat()
    target.write_text(UNCLASSIFIED.replace("test_b", "test_c"))
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert (target.stat().st_size, target.stat().st_mtime_ns) == (stat.st_size, stat.st_mtime_ns)
    third, store = _run(root, cache)
    assert {os.path.basename(p) for p in read} == {"test_b.py"}  # hashed, then parsed
    assert not store.memo_hit and store.misses == 1
    assert third == _run(root, tmp_path / "fresh")[0]


def test_a_file_changed_just_before_its_stat_was_taken_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, cache = _many(tmp_path), tmp_path / "cache"
    _run(root, cache)  # every file is younger than 2 s: racy, its stat vouches for nothing
    read = _reads(monkeypatch)
    _, store = _run(root, cache)
    assert store.memo_hit and len(read) == 11


@pytest.mark.parametrize(
    ("setting", "facts_change"),
    [
        ({"enum": "HwClass"}, True),
        ({"attribute": "hw_class"}, True),
        ({"classifications": ["GENERIC", "ACCELERATOR", "CPU", "CUDA", "MPS", "XPU", "NPU"]}, False),
        ({"aliases": {"DEVICE_GENERIC": "ACCELERATOR"}}, False),
        ({"inheritance": "explicit"}, False),
        ({"extend-accelerator-modules": ["torch_npu.npu"]}, True),
        ({"extend-accelerator-flags": ["TEST_OPENREG"]}, True),
        ({"extend-devices": ["openreg"]}, True),
        ({"baseline": 7}, False),
    ],
)
def test_config_change_is_a_new_cache(tmp_path: Path, setting: dict, facts_change: bool) -> None:
    """A setting the facts stage receives (collect.FactsOptions) is a new
    folder of facts; any setting at all is a new whole-tree memo."""
    root, cache = _tree(tmp_path), tmp_path / "cache"
    before, _ = _run(root, cache)
    write_project(root, {}, setting)
    changed, store = _run(root, cache)
    assert (store.hits, store.misses, store.memo_hit) == ((0, 4, False) if facts_change else (4, 0, False))
    assert changed == _run(root, tmp_path / "fresh")[0]
    write_project(root, {}, {})  # back to the defaults: the first cache is still there
    again, store = _run(root, cache)
    assert again == before and store.memo_hit


def test_select_change_recomputes_the_rules_but_keeps_the_facts(tmp_path: Path) -> None:
    root, cache = _tree(tmp_path), tmp_path / "cache"
    _run(root, cache)
    config = load_config(start=root)
    store = store_for(config, cache)
    result = run_check(config, jobs=1, select=("HWC001",), cache=store)
    assert not store.memo_hit and (store.hits, store.misses) == (4, 0)
    assert {d.code for d in result.diagnostics} == {"HWC001"}


def test_version_change_is_a_new_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, cache = _tree(tmp_path), tmp_path / "cache"
    before, _ = _run(root, cache)
    monkeypatch.setattr(hwlint.infra.cache, "__version__", "999.0")
    after, store = _run(root, cache)
    assert after == before
    assert (store.hits, store.misses, store.memo_hit) == (0, 4, False)
    # The command line too: another version finds nothing to reuse.
    code = (
        "import sys, hwlint; hwlint.__version__ = '999.1'; "
        "from hwlint.engine.cached import store_for; from hwlint.engine.check import run_check; from hwlint.core.config import load_config; "
        f"c = load_config(); s = store_for(c, {str(cache)!r}); run_check(c, cache=s); "
        "print(s.hits, s.misses, s.memo_hit)"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120)
    assert proc.stdout.split() == ["0", "4", "False"], proc.stderr


def test_a_change_to_hwlints_own_code_is_a_new_cache(tmp_path: Path) -> None:
    """Same version, other rules (a git install, a working copy): a rule
    module's new mtime (what Python checks its bytecode against) must not
    meet the cache the old code wrote."""
    root, cache = _tree(tmp_path), tmp_path / "cache"
    before, _ = _run(root, cache)
    rule = Path(hwlint.infra.cache.__file__).parents[1] / "rules" / "duplicate.py"
    st = rule.stat()
    try:
        os.utime(rule, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
        after, store = _run(root, cache)
        assert after == before
        assert (store.hits, store.misses, store.memo_hit) == (0, 4, False)
    finally:
        os.utime(rule, ns=(st.st_atime_ns, st.st_mtime_ns))
    again, store = _run(root, cache)
    assert again == before and store.memo_hit


def test_base_class_file_change_rejudges_the_cached_subclass(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    first = _cli(root, "check", "--format", "json")
    assert [(d["path"], d["code"]) for d in json.loads(first.stdout)] == [
        ("test/test_b.py", "HWC001"),
        ("test/test_sub.py", "HWC101"),
        ("test/test_sub.py", "HWC102"),
    ]
    # Only the base file changes: test_sub.py's facts come from the cache,
    # and it is judged by the base's new classification.
    (root / "test/common_base.py").write_text(BASE.format(member="GENERIC"))
    second = _cli(root, "check", "--format", "json")
    assert [(d["path"], d["code"]) for d in json.loads(second.stdout)] == [("test/test_b.py", "HWC001")]
    config = load_config(start=root)
    store = store_for(config)
    assert store.base == root / CACHE_DIR_NAME
    run_check(config, jobs=1, cache=store)
    assert store.memo_hit  # the second command line run stored its memo


def test_base_class_in_another_test_file(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "test/test_base.py": BASE.format(member="ACCELERATOR") + "\n    def test_x(self, device):\n        pass\n",
            "test/test_sub.py": SUBCLASS.replace("common_base", "test_base"),
        },
    )
    cache = tmp_path / "cache"
    assert ("test/test_sub.py", 5, "HWC102") in _codes(root, cache)
    (root / "test/test_base.py").write_text(BASE.format(member="GENERIC") + "\n    def test_x(self):\n        pass\n")
    codes, store = _run(root, cache)
    assert ("test/test_sub.py", 5, "HWC102") not in codes
    assert not store.memo_hit and store.misses == 1


def test_a_new_file_that_an_import_now_finds(tmp_path: Path) -> None:
    # `from common_base import DeviceBase` in test/sub/ finds test/common_base.py,
    # until test/sub/common_base.py appears: the memo must see that.
    root = _tree(tmp_path, {"test/sub/test_deep.py": SUBCLASS.replace("TestSub", "TestDeep")})
    cache = tmp_path / "cache"
    assert ("test/sub/test_deep.py", 5, "HWC102") in _codes(root, cache)
    (root / "test/sub/common_base.py").write_text(BASE.format(member="GENERIC"))
    codes, store = _run(root, cache)
    assert not store.memo_hit
    assert ("test/sub/test_deep.py", 5, "HWC102") not in codes
    assert ("test/test_sub.py", 5, "HWC102") in codes


def test_a_deleted_base_file(tmp_path: Path) -> None:
    root, cache = _tree(tmp_path), tmp_path / "cache"
    assert ("test/test_sub.py", 5, "HWC102") in _codes(root, cache)
    (root / "test/common_base.py").unlink()
    codes, store = _run(root, cache)
    assert not store.memo_hit
    assert ("test/test_sub.py", 4, "HWC001") in codes  # nothing to inherit now


def test_partial_runs_use_the_facts_of_the_whole_tree_run(tmp_path: Path) -> None:
    root, cache = _tree(tmp_path), tmp_path / "cache"
    _run(root, cache)
    codes, store = _run(root, cache, [root / "test/test_sub.py"])
    assert codes == [("test/test_sub.py", 4, "HWC101"), ("test/test_sub.py", 5, "HWC102")]
    assert (store.hits, store.misses, store.memo_hit) == (2, 0, False)  # the file and its base


# -- damage, and where the cache lives ------------------------------------------------


def _shards(cache: Path) -> list[Path]:
    return sorted(cache.glob("*/*.bin"))


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"garbage",
        hwlint.infra.cache._MAGIC + b"\0" * 20 + b"not marshal",
        hwlint.infra.cache._MAGIC,
    ],
)
def test_damaged_cache_files_are_ignored_and_rebuilt(tmp_path: Path, damage: bytes) -> None:
    root, cache = _tree(tmp_path), tmp_path / "cache"
    expected = _cli(root, "check", "--format", "json", "--cache-dir", str(cache))
    files = _shards(cache)
    assert files and any(f.name.startswith("memo-") for f in files)
    for path in files:
        path.write_bytes(damage)
    again = _cli(root, "check", "--format", "json", "--cache-dir", str(cache))
    assert (again.returncode, again.stdout, again.stderr) == (expected.returncode, expected.stdout, "")
    _, store = _run(root, cache)
    assert store.memo_hit  # rewritten whole


def test_truncated_cache_files(tmp_path: Path) -> None:
    root, cache = _tree(tmp_path), tmp_path / "cache"
    expected = _codes(root, cache)
    for path in _shards(cache):
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    assert _codes(root, cache) == expected


def test_well_formed_files_of_the_wrong_shape(tmp_path: Path) -> None:
    root, cache = _tree(tmp_path), tmp_path / "cache"
    expected = _codes(root, cache)
    for path in _shards(cache):
        path.write_bytes(hwlint.infra.cache._pack(["not", "a", "dict"]))
    assert _codes(root, cache) == expected
    for path in _shards(cache):
        path.write_bytes(hwlint.infra.cache._pack({"test/test_a.py": ("x", 1), "other": {"a": 1}, "files": 3}))
    assert _codes(root, cache) == expected


def test_a_damaged_entry_is_parsed_again(tmp_path: Path) -> None:
    root, cache = _tree(tmp_path), tmp_path / "cache"
    expected = _codes(root, cache)
    config = load_config(start=root)
    store = store_for(config, cache)
    key = hwlint.infra.cache.digest((root / "test/test_sub.py").read_bytes())
    assert store.get("test/test_sub.py", key) is not None
    store.put("test/test_sub.py", key, b"\x78\x01 not zlib")
    store.save()
    for memo in cache.glob("*/memo-*.bin"):
        memo.unlink()
    assert _codes(root, cache) == expected
    assert from_blob(store_for(config, cache).get("test/test_sub.py", key)).path == "test/test_sub.py"


def test_unwritable_cache_dir_is_a_notice_not_a_failure(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    expected = _cli(root, "check", "--format", "json", "--no-cache")
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    for args, env in (
        ((f"--cache-dir={blocker / 'cache'}",), None),
        ((), {"HWLINT_CACHE_DIR": str(blocker / "cache")}),
    ):
        proc = _cli(root, "check", "--format", "json", *args, env=env)
        assert (proc.returncode, proc.stdout) == (expected.returncode, expected.stdout)
        (line,) = proc.stderr.splitlines()
        assert line.startswith("hwlint: notice: cannot write the cache in ") and "continuing without it" in line


def test_read_only_cache_folder(tmp_path: Path) -> None:
    root, cache = _tree(tmp_path), tmp_path / "cache"
    expected = _codes(root, cache)
    config = load_config(start=root)
    store = store_for(config, cache)
    store.writable = False  # what a failed write leaves (root can write anywhere)
    (root / "test/test_b.py").write_text(GENERIC.replace("TestA", "TestB"))
    assert run_check(config, jobs=1, cache=store).diagnostics != expected
    assert store.misses == 1


def test_no_cache_and_default_folder(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    plain = _cli(root, "check", "--no-cache")
    assert not (root / CACHE_DIR_NAME).exists()
    assert _cli(root, "check", env={"HWLINT_NO_CACHE": "1"}).stdout == plain.stdout
    assert not (root / CACHE_DIR_NAME).exists()
    assert _cli(root, "check").stdout == plain.stdout
    assert (root / CACHE_DIR_NAME / ".gitignore").read_text().splitlines()[-1] == "*"  # git ignores it by itself
    assert (root / CACHE_DIR_NAME / "CACHEDIR.TAG").is_file()


def test_library_calls_leave_no_cache_unless_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path)
    monkeypatch.delenv("HWLINT_CACHE_DIR", raising=False)
    run_check(load_config(start=root), jobs=1)
    assert sorted(p.name for p in root.iterdir()) == ["pyproject.toml", "test"]
    monkeypatch.setenv("HWLINT_CACHE_DIR", str(tmp_path / "env-cache"))
    run_check(load_config(start=root), jobs=1)
    assert _shards(tmp_path / "env-cache")


# Every command that reads test files, as a hook or CI runs it.
READERS = [
    ("check",),
    ("report", "--format", "json"),
    ("select", "GENERIC"),
    ("fix", "--diff"),
    ("allowlist", "init"),
    ("allowlist", "prune"),
    ("allowlist", "sync"),
    ("lintrunner", "test/test_a.py"),
]


@pytest.mark.parametrize("command", READERS, ids=lambda c: " ".join(c[:2]))
def test_every_command_that_reads_test_files_uses_the_project_cache_by_default(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    root = _tree(tmp_path)
    env = {"HWLINT_CACHE_DIR": "", "HWLINT_NO_CACHE": ""}
    _cli(root, *command, "--no-cache", env=env)
    assert not (root / CACHE_DIR_NAME).exists()
    (root / "allowlist.txt").unlink(missing_ok=True)  # init refuses an existing list
    _cli(root, *command, env=env)
    assert _shards(root / CACHE_DIR_NAME), command
    elsewhere = tmp_path / "elsewhere"
    (root / "allowlist.txt").unlink(missing_ok=True)
    _cli(root, *command, "--cache-dir", str(elsewhere), env=env)
    assert _shards(elsewhere), command


def test_import_json_uses_the_project_cache(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    (tmp_path / "list.json").write_text('["test/test_b.py"]')
    assert _cli(root, "allowlist", "import-json", str(tmp_path / "list.json"), "--no-cache").returncode == 0
    assert not (root / CACHE_DIR_NAME).exists()
    assert _cli(root, "allowlist", "import-json", str(tmp_path / "list.json")).returncode == 0
    assert _shards(root / CACHE_DIR_NAME)


def test_the_help_says_what_is_true_of_the_cache() -> None:
    from click.testing import CliRunner

    from hwlint.cli.main import main

    for command in [c[:2] if c[0] == "allowlist" else c[:1] for c in READERS]:
        out = CliRunner().invoke(main, [*command, "--help"]).output
        assert "Cache folder (default: .hwlint_cache at the project root; env HWLINT_CACHE_DIR)" in " ".join(
            out.split()
        )
        assert "--no-cache" in out


def test_concurrent_runs_share_a_cache(tmp_path: Path) -> None:
    files = {
        f"test/test_{i:02d}.py": (GENERIC if i % 2 else UNCLASSIFIED)
        .replace("TestA", f"TestA{i}")
        .replace("TestB", f"TestB{i}")
        for i in range(24)
    }
    root = write_project(tmp_path / "proj", files)
    cache = tmp_path / "cache"
    expected = _cli(root, "check", "--no-cache", "--format", "json").stdout
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "hwlint",
                "check",
                "--format",
                "json",
                "--cache-dir",
                str(cache),
                *([f"test/test_{i:02d}.py" for i in range(k, 24, 3)] if k < 3 else []),
            ],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for k in range(6)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(err == "" for _, err in outs)
    assert [o for o, _ in outs[3:]] == [expected] * 3
    assert _cli(root, "check", "--format", "json", "--cache-dir", str(cache)).stdout == expected
    assert not list(cache.glob("*/*.tmp"))  # no temporary file left behind


# -- facts blobs and the parallel path -------------------------------------------------------


def test_facts_survive_the_compact_form() -> None:
    sources = [p for p in Path(__file__).resolve().parents[1].glob("examples/**/*.py")]
    sources += [p for p in Path(__file__).resolve().parent.glob("*.py")]
    for path in sources:
        facts = extract_source(path.name, path.read_text(encoding="utf-8"))
        again = from_blob(to_blob(facts))
        assert again == facts and repr(again) == repr(facts)


def test_pool_and_cache_give_the_same_result_as_one_process(tmp_path: Path) -> None:
    from benchmarks import corpus

    root = tmp_path / "corpus"
    corpus.generate(root, files=60, seed=3)
    config = load_config(start=root)

    def diagnostics(**kwargs: object) -> list[tuple]:
        result = run_check(config, select=("ALL",), use_allowlist=False, **kwargs)  # type: ignore[arg-type]
        return [(d.path, d.line, d.column, d.code, d.message) for d in result.diagnostics]

    expected = diagnostics(jobs=1, cache=False)
    assert len(expected) > 20
    assert diagnostics(jobs=2, cache=False) == expected
    store = store_for(config, tmp_path / "cache")
    assert diagnostics(jobs=2, cache=store) == expected and store.misses > 16  # through the pool
    store = store_for(config, tmp_path / "cache")
    assert diagnostics(jobs=2, cache=store) == expected and store.memo_hit
    contexts = run_check(config, jobs=2, cache=store_for(config, tmp_path / "cache")).contexts
    assert [c.path for c in contexts] == [c.path for c in run_check(config, jobs=1, cache=False).contexts]


# -- the command line without click ----------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["check"],
        ["check", "--format", "json"],
        ["check", "--format=jsonl", "--exit-zero"],
        ["check", "--statistics", "--no-allowlist"],
        ["check", "test/test_sub.py"],
        ["check", "test/test_sub.py", "test/nothing_here.py", "--no-cache"],
        ["check", "test/common_base.py"],
        ["check", "-j", "2", "test"],
        ["check", "--jobs", "0"],
        ["check", "--format", "yaml"],
        ["check", "--config", "missing.toml"],
        ["check", "--unknown"],
        ["check", "/"],
        ["check", "--format"],
    ],
)
def test_fast_path_says_what_click_says(tmp_path: Path, args: list[str]) -> None:
    root = _tree(tmp_path)
    fast = _cli(root, *args)
    slow = _cli(root, *args, env={"HWLINT_NO_FAST_PATH": "1"})
    assert (fast.returncode, fast.stdout, fast.stderr) == (slow.returncode, slow.stdout, slow.stderr)


def test_fast_path_output_file_and_config(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    fast = _cli(root, "check", "-o", "fast.txt", "--config", "pyproject.toml")
    slow = _cli(root, "check", "-o", "slow.txt", "--config", "pyproject.toml", env={"HWLINT_NO_FAST_PATH": "1"})
    assert (fast.returncode, fast.stdout, fast.stderr) == (slow.returncode, slow.stdout, slow.stderr) == (1, "", "")
    assert (root / "fast.txt").read_text() == (root / "slow.txt").read_text() != ""
    bad = _cli(root, "check", "-o", "no/such/folder/out.txt")
    assert bad.returncode == 2 and bad.stderr.startswith("hwlint: error: no/such/folder/out.txt: cannot write")


def _imported(root: Path, *args: str) -> tuple[set[str], str]:
    """(the modules `hwlint ARGS` imported that the interpreter's start-up
    had not, its stdout), run as the console script runs it."""
    code = (
        "import os, sys, runpy; started = set(sys.modules)\n"
        f"sys.argv = ['hwlint', *{list(args)!r}]\n"
        "def leave(code):\n    raise SystemExit(code)\n"
        "os._exit = leave\n"  # the fast path ends with os._exit: see what it imported first
        "try:\n    runpy.run_module('hwlint', run_name='__main__')\nexcept SystemExit:\n    pass\n"
        "print(repr(sorted(set(sys.modules) - started)), file=sys.stderr)"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120)
    return set(eval(proc.stderr.strip().splitlines()[-1])), proc.stdout


def test_fast_path_does_not_import_click(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    modules, _ = _imported(root, "check", "test/test_sub.py")
    assert (
        sorted(
            m
            for m in modules
            if m.split(".")[0] in ("click", "libcst", "concurrent", "multiprocessing")
            or m.startswith(("hwlint.report", "hwlint.fix", "hwlint.cli.commands.", "hwlint.allowlist.history"))
            and m not in ("hwlint.cli.commands.check_body", "hwlint.cli.commands.console")
        )
        == []
    )
    assert run_cli("check", "test/test_sub.py", cwd=root).returncode == 1


# What a one-file run must not import once the cache knows the project: each
# costs a noticeable part of a pre-commit run (see benchmarks/bench_check.py).
NOT_ON_A_WARM_RUN = (
    "pathspec",
    "tomllib",
    "tomli",
    "dataclasses",
    "tokenize",
    "tempfile",
    "json",
    "inspect",
    "click",
    "libcst",
    "concurrent",
    "multiprocessing",
    "hwlint.allowlist.edit",
)


def test_warm_one_file_run_imports_only_what_it_needs(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    cold, cold_out = _imported(root, "check", "test/test_b.py")
    # The first run matches patterns and reads TOML (tomli before Python 3.11).
    assert "pathspec" in cold and ("tomllib" in cold or "tomli" in cold)
    _imported(root, "check", "test/test_b.py")  # the cache folder exists now: the settings are remembered
    (root / "test/test_b.py").write_text(UNCLASSIFIED + "# edited\n")  # facts not cached: parsed again
    warm, warm_out = _imported(root, "check", "test/test_b.py")
    assert sorted(m for m in warm if m.split(".")[0] in NOT_ON_A_WARM_RUN or m in NOT_ON_A_WARM_RUN) == []
    assert warm_out == cold_out and "test/test_b.py:3:1: HWC001" in warm_out
    assert warm_out == _cli(root, "check", "--no-cache", "test/test_b.py").stdout


def test_named_file_verdicts_follow_gitignore_and_settings(tmp_path: Path) -> None:
    """The memo of which named files are test files is keyed by everything
    the verdict depends on: each edit below takes effect on the next run."""
    root = _tree(tmp_path)

    def named() -> str:
        warm = _cli(root, "check", "test/test_b.py")
        assert warm.stdout == _cli(root, "check", "--no-cache", "test/test_b.py").stdout
        return "checked" if "HWC001" in warm.stdout else "skipped"

    assert [named(), named()] == ["checked", "checked"]
    (root / ".gitignore").write_text("test_b.py\n")
    assert named() == "skipped"
    (root / ".gitignore").write_text("other.py\n")
    assert named() == "checked"
    (root / "test/.gitignore").write_text("*_b.py\n")
    assert named() == "skipped"
    (root / "test/.gitignore").unlink()
    assert named() == "checked"
    (root / "pyproject.toml").write_text('[tool.hwlint]\nexclude = ["test/test_b.py"]\n')
    assert named() == "skipped"
    (root / "pyproject.toml").write_text('[tool.hwlint]\ninclude = ["test/test_*.py"]\n')
    assert named() == "checked"


def test_settings_memo_follows_the_file(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    memo = root / CACHE_DIR_NAME / "settings.bin"
    _cli(root, "check", "test/test_b.py")
    assert not memo.exists()  # a folder is never created for it alone
    assert "HWC001" in _cli(root, "check", "test/test_b.py").stdout
    assert memo.is_file()
    (root / "pyproject.toml").write_text('[tool.hwlint]\nignore = ["HWC001"]\n')
    assert "HWC001" not in _cli(root, "check", "test/test_b.py").stdout
    (root / "pyproject.toml").write_text("[tool.hwlint]\n")
    assert "HWC001" in _cli(root, "check", "test/test_b.py").stdout
    # A file hwlint reads tables from by name: hwlint.toml holds its keys at the top.
    (root / "hwlint.toml").write_text('ignore = ["HWC001"]\n')
    assert "HWC001" not in _cli(root, "check", "test/test_b.py").stdout
    (root / "hwlint.toml").unlink()
    for damage in (b"", b"garbage", memo.read_bytes()[:-3]):
        memo.write_bytes(damage)
        assert "HWC001" in _cli(root, "check", "test/test_b.py").stdout
    bad = _cli(root, "check", "test/test_b.py")
    (root / "pyproject.toml").write_text("[tool.hwlint\n")
    bad = _cli(root, "check", "test/test_b.py")
    assert bad.returncode == 2 and bad.stderr.startswith(f"hwlint: error: {root / 'pyproject.toml'}: invalid TOML")
    memo.unlink()
    (root / "pyproject.toml").write_text("[tool.hwlint]\n")
    _cli(root, "check", "--no-cache", "test/test_b.py")
    assert not memo.exists()


def test_deleted_files_leave_the_cache(tmp_path: Path) -> None:
    root, cache = _tree(tmp_path), tmp_path / "cache"
    _run(root, cache)
    config = load_config(start=root)
    assert store_for(config, cache).has("test/test_b.py")
    (root / "test/test_b.py").unlink()
    _run(root, cache)
    store = store_for(config, cache)
    assert not store.has("test/test_b.py")
    assert store.has("test/test_a.py") and store.has("test/common_base.py")


def test_allowlist_memo_gives_what_parsing_gives(tmp_path: Path) -> None:
    """check keeps the entries and problems of the allowlist's bytes in the
    cache: a hit must be the parse, a changed or damaged memo a new parse."""
    from hwlint.allowlist.model import load_allowlist
    from hwlint.engine.cached import load_allowlist as cached_allowlist

    root = _tree(tmp_path)
    listed = "# header\ntest/test_b.py 1\ntest/test_a.py 2\ntest/test_b.py 3\nnot an entry\n"
    (root / "allowlist.txt").write_text(listed)
    config = load_config(start=root)
    store = store_for(config, tmp_path / "cache")
    parsed = load_allowlist(root, "allowlist.txt", layout=False)
    first = cached_allowlist(config, store)  # parses, and keeps it
    memo = tmp_path / "cache" / store.directory.name / "memo-allowlist.bin"
    assert memo.is_file()
    again = cached_allowlist(config, store)
    for got in (first, again):
        assert got.entries == parsed.entries and list(got.entries) == list(parsed.entries)
        assert [(d.path, d.line, d.code, d.message) for d in got.problems] == [
            (d.path, d.line, d.code, d.message) for d in parsed.problems
        ]
        assert len(got.problems) == 4  # out of order, listed twice, malformed (and out of order)
    (root / "allowlist.txt").write_text("test/test_b.py 1\n")
    assert list(cached_allowlist(config, store).entries) == ["test/test_b.py"]
    memo.write_bytes(memo.read_bytes()[:-1])  # damaged: ignored
    assert list(cached_allowlist(config, store).entries) == ["test/test_b.py"]
    outputs = {_cli(root, "check", *args).stdout for args in ((), (), ("--no-cache",))}
    assert len(outputs) == 1 and "1 allowlisted" in outputs.pop()


# -- trust: a cache that git tracks is someone else's -------------------------------


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root, check=True, capture_output=True
    )


def test_a_committed_cache_cannot_hide_a_violation(tmp_path: Path) -> None:
    """A pull request that commits `.hwlint_cache/` with a forged entry (facts
    of a classified class, under the hash of the unclassified file) must not
    make HWC001 disappear: the folder is not read, with one notice."""
    root = _tree(tmp_path)
    _git(root, "init", "-q")
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "tree")
    expected = _cli(root, "check", "--no-cache")
    assert "test/test_b.py:3:1: HWC001" in expected.stdout
    config = load_config(start=root)
    store = store_for(config)
    data = (root / "test/test_b.py").read_bytes()
    forged = extract_source("test/test_b.py", GENERIC)
    store.put("test/test_b.py", hwlint.infra.cache.digest(data), to_blob(forged))
    store.save()
    fooled = _cli(root, "check")  # an untracked cache is trusted: the forgery works
    assert "HWC001" not in fooled.stdout and fooled.stderr == ""
    _git(root, "add", "-f", CACHE_DIR_NAME)
    _git(root, "commit", "-qm", "a cache, committed")
    for _ in range(2):
        run = _cli(root, "check")
        assert (run.returncode, run.stdout) == (expected.returncode, expected.stdout)
        assert run.stderr == (
            f"hwlint: notice: git tracks the cache folder {root / CACHE_DIR_NAME} (it was committed): "
            f"not using it; remove it from git (`git rm -r --cached {CACHE_DIR_NAME}`)\n"
        )
    _git(root, "rm", "-rq", "--cached", CACHE_DIR_NAME)
    assert _cli(root, "check").stderr == ""  # untracked again: used (and rebuilt where it lies)


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_tracked_by_git_reads_the_index(tmp_path: Path, version: str) -> None:
    from hwlint.infra.cache import tracked_by_git

    root = tmp_path / "repo"
    (root / "sub" / ".hwlint_cache").mkdir(parents=True)
    (root / "other").mkdir()
    (root / "sub" / ".hwlint_cache" / "facts-00.bin").write_bytes(b"x")
    (root / "other" / "x.hwlint_cache").write_bytes(b"x")
    (root / ".hwlint_cache").mkdir()
    _git(root, "init", "-q")
    _git(root, "add", "-f", "sub", "other")
    _git(root, "update-index", "--index-version", version)
    assert tracked_by_git(root / "sub" / ".hwlint_cache")
    assert tracked_by_git(root / "sub")
    assert not tracked_by_git(root / ".hwlint_cache")  # a name inside another path is not this folder
    assert not tracked_by_git(tmp_path / "elsewhere")  # outside any repository
    worktree = tmp_path / "wt"
    _git(root, "commit", "-qm", "x")
    _git(root, "worktree", "add", "-q", str(worktree))
    assert tracked_by_git(worktree / "sub" / ".hwlint_cache")  # .git is a file there
    assert not tracked_by_git(worktree / ".hwlint_cache")


def test_warm_text_run_remembers_the_fixable_count(tmp_path: Path) -> None:
    """The text format's "N fixable" line tries each safe fix with the rules,
    which costs more than a warm check: a whole-tree run whose inputs and
    diagnostics are unchanged reuses the count (no trial module imported),
    and any change to a file or to the allowlist counts again."""
    root = _tree(tmp_path, {"test/test_c.py": UNCLASSIFIED.replace("TestB", "TestC")})
    cold, cold_out = _imported(root, "check")
    assert "hwlint.fix.trial" in cold and "2 fixable with `hwlint fix`." in cold_out
    warm, warm_out = _imported(root, "check")
    assert warm_out == cold_out
    assert not any(m.startswith("hwlint.fix") for m in warm)
    (root / "test/test_c.py").write_text(GENERIC.replace("TestA", "TestC"))  # classified now: one fixable left
    edited, edited_out = _imported(root, "check")
    assert "hwlint.fix.trial" in edited and "1 fixable with `hwlint fix`." in edited_out
    assert edited_out == _cli(root, "check", "--no-cache").stdout
    (root / "allowlist.txt").write_text("test/test_b.py 1\n")  # its finding is allowlisted now: none fixable
    listed, listed_out = _imported(root, "check")
    assert "fixable" not in listed_out and "HWC001" not in listed_out
    assert listed_out == _cli(root, "check", "--no-cache").stdout
