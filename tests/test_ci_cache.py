"""docs/ci.md's cache steps, run as CI runs them.

A git repository of a generated PyTorch-style test tree (classified and
unclassified classes, a base class in another file, an allowlist from
`hwlint allowlist init`). A first CI run checks one commit in a fresh clone
and saves `.hwlint_cache` as `actions/cache/save` does (`tar --posix`, the
path the workflow's save step names); a later run checks the next commit in
a fresh clone at another path, after restoring it as `actions/cache/restore`
does. Its stdout, stderr and exit status (the workflow's `--format github`,
the text and JSON formats) are a cold run's (`--no-cache`, another fresh
clone), and it used the cache: it wrote into the restored folder and no
other, and the cache's counters say the unchanged files' facts were read,
not parsed. The workflow's own shell steps run as written (bash, with
`$HOME`, `$GITHUB_OUTPUT` and `$GITHUB_PATH`).

Also: every YAML block of the page parses and caches the folder hwlint
uses; hwlint's environment restored keeps the cache's folder where a second
install does not (why the workflow caches it); a committed cache folder is
not read, with the notice the page quotes.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

import hwlint
from hwlint.core.config import load_config
from hwlint.engine.cached import store_for
from hwlint.engine.check import run_check
from hwlint.infra.cache import CACHE_DIR_NAME
from tests.test_integration_precommit import _env, commit_all, git

REPO = Path(__file__).resolve().parent.parent
PAGE = REPO / "docs" / "ci.md"
YAML_BLOCK = re.compile(r"^```yaml\n(.*?)^```", re.S | re.M)
PACKAGE = Path(hwlint.__file__).resolve().parent

HEADER = "import torch\nfrom torch.testing._internal.common_utils import HardwareClassification, TestCase\n"
GENERIC = (
    HEADER
    + """

class TestOps{n}(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_add(self):
        self.assertEqual(torch.ones(2).sum().item(), 2.0)
"""
)
UNCLASSIFIED_CUDA = (
    HEADER
    + """

class TestNN{n}(TestCase):
    def test_linear(self):
        x = torch.ones(2, device="cuda")
        self.assertTrue(x.sum() > 0)
"""
)
UNCLASSIFIED = (
    HEADER
    + """

class TestSerialization{n}(TestCase):
    def test_save(self):
        pass
"""
)
BASE = (
    HEADER
    + """

class DeviceBase(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR
"""
)
INHERITS = """\
from common_device import DeviceBase
from torch.testing._internal.common_device_type import instantiate_device_type_tests


class TestCudaOps(DeviceBase):
    def test_mul(self, device):
        pass


instantiate_device_type_tests(TestCudaOps, globals())
"""
TAKES_DEVICE = (
    HEADER
    + """

class TestNew(TestCase):
    def test_new(self, device):
        pass
"""
)


# -- the page ---------------------------------------------------------------------------


def page() -> str:
    return PAGE.read_text(encoding="utf-8")


def workflow() -> dict[str, Any]:
    match = re.search(r"<!-- ci-workflow[^>]*-->\n```yaml\n(.*?)```", page(), re.S)
    assert match, "docs/ci.md lost its workflow"
    loaded: dict[str, Any] = yaml.safe_load(match.group(1))
    return loaded


def steps() -> list[dict[str, Any]]:
    (job,) = workflow()["jobs"].values()
    return list(job["steps"])


def named(name: str) -> dict[str, Any]:
    (step,) = [s for s in steps() if s.get("name") == name]
    return step


def cache_steps(path: str) -> tuple[int, dict[str, Any], int, dict[str, Any]]:
    """(index, step) of the restore and of the save of `path`."""
    found = {
        kind: [
            (i, s)
            for i, s in enumerate(steps())
            if s.get("uses") == f"actions/cache/{kind}@v4" and s["with"]["path"] == path
        ]
        for kind in ("restore", "save")
    }
    assert len(found["restore"]) == 1 and len(found["save"]) == 1, found
    (restore_at, restore), (save_at, save) = found["restore"][0], found["save"][0]
    return restore_at, restore, save_at, save


def gitlab_job() -> dict[str, Any]:
    """The GitLab CI job of the page: the YAML block with a job that has `cache:`."""
    for block in YAML_BLOCK.findall(page()):
        loaded = yaml.safe_load(block)
        jobs = [job for job in loaded.values() if isinstance(job, dict) and "cache" in job]
        if jobs:
            (job,) = jobs
            return job
    raise AssertionError("docs/ci.md has no GitLab CI job with a cache")


def test_the_yaml_blocks_parse_and_cache_the_folder_hwlint_uses() -> None:
    blocks = YAML_BLOCK.findall(page())
    assert len(blocks) >= 2
    for block in blocks:
        assert isinstance(yaml.safe_load(block), dict)
    assert CACHE_DIR_NAME == ".hwlint_cache" and f"`{CACHE_DIR_NAME}/`" in page()

    # GitHub Actions: restored after the checkout and before the check, saved
    # last whatever the check found, under the key the restore computed.
    all_steps = steps()
    check = all_steps.index(named("Check"))
    checkout = next(i for i, s in enumerate(all_steps) if s.get("uses", "").startswith("actions/checkout@"))
    restore_at, restore, save_at, save = cache_steps(CACHE_DIR_NAME)
    assert checkout < restore_at < check < save_at == len(all_steps) - 1
    assert save["if"].startswith("always()")
    assert save["with"]["key"] == f"${{{{ steps.{restore['id']}.outputs.cache-primary-key }}}}"
    key = restore["with"]["key"]
    for part in (
        "${{ runner.os }}",
        "${{ steps.python.outputs.python-version }}",
        "${{ steps.hwlint.outputs.version }}",
        "${{ hashFiles('pyproject.toml', 'hwlint.toml') }}",
        "${{ github.sha }}",
    ):
        assert part in key, part
    fallbacks = restore["with"]["restore-keys"].splitlines()
    assert len(fallbacks) == 2 and all(key.startswith(prefix) and prefix.endswith("-") for prefix in fallbacks)
    assert "${{ hashFiles(" in fallbacks[0] and "hashFiles" not in fallbacks[1]
    assert "python" in [s.get("id") for s in all_steps[:restore_at]]
    assert "hwlint" in [s.get("id") for s in all_steps[:restore_at]]

    # hwlint's environment: restored before the install, which runs only when
    # it was not, keyed on the workflow file the page says to save.
    env_restore_at, env_restore, env_save_at, env_save = cache_steps("~/.hwlint-venv")
    install = named("Install hwlint")
    assert env_restore_at < all_steps.index(install) < env_save_at < restore_at
    assert install["if"] == env_save["if"] == f"steps.{env_restore['id']}.outputs.cache-hit != 'true'"
    assert f'"hwlint=={hwlint.__version__}"' in install["run"] and "~/.hwlint-venv" in install["run"]
    saved_as = re.search(r"Save this as `([^`]+)`", page())
    assert saved_as and f"hashFiles('{saved_as.group(1)}')" in env_restore["with"]["key"]

    # GitLab CI: the same folder, uploaded after failed jobs too, keyed by
    # files (two at most), and the environment the script installs into.
    job = gitlab_job()
    (entry,) = [c for c in job["cache"] if f"{CACHE_DIR_NAME}/" in c["paths"]]
    assert entry["when"] == "always" and 1 <= len(entry["key"]["files"]) <= 2
    assert "pyproject.toml" in entry["key"]["files"]
    (venv,) = [c for c in job["cache"] if c is not entry]
    (venv_path,) = venv["paths"]
    script = " ".join(job["script"])
    assert f'"hwlint=={hwlint.__version__}"' in script and f"{venv_path.rstrip('/')}/bin/hwlint check" in script


# -- a CI run, as shell -----------------------------------------------------------------


def write_tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


class Runner:
    """A CI runner: `$HOME/.hwlint-venv/bin/hwlint` is this checkout's hwlint
    (the environment the workflow installs or restores); `$GITHUB_PATH`
    entries go before `$PATH` for later steps, as Actions does."""

    def __init__(self, home: Path, package: Path | None = None) -> None:
        self.home = home
        venv_bin = home / ".hwlint-venv" / "bin"
        venv_bin.mkdir(parents=True, exist_ok=True)
        path = f'PYTHONPATH="{package}${{PYTHONPATH:+:$PYTHONPATH}}" ' if package is not None else ""
        (venv_bin / "hwlint").write_text(f'#!/bin/sh\n{path}exec {shlex.quote(sys.executable)} -m hwlint "$@"\n')
        (venv_bin / "hwlint").chmod(0o755)
        self.output = home / "github_output"
        self.path_file = home / "github_path"
        for file in (self.output, self.path_file):
            file.write_text("")

    def env(self) -> dict[str, str]:
        extra = [line for line in self.path_file.read_text().splitlines() if line]
        return _env(
            HOME=str(self.home),
            GITHUB_OUTPUT=str(self.output),
            GITHUB_PATH=str(self.path_file),
            GITHUB_ACTIONS="true",
            PATH=os.pathsep.join([*reversed(extra), os.environ["PATH"]]),
        )

    def run(self, script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "-e", "-c", script],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=300,
            env={**self.env(), "GITHUB_WORKSPACE": str(cwd)},
        )

    def setup(self) -> None:
        """The workflow's `hwlint's version` step, as written."""
        step = self.run(named("hwlint's version")["run"], cwd=self.home)
        assert step.returncode == 0, step.stdout + step.stderr

    def outputs(self) -> dict[str, str]:
        return dict(line.split("=", 1) for line in self.output.read_text().splitlines() if "=" in line)


def save_cache(path: str, workspace: Path, archive: Path) -> None:
    """actions/cache/save: `tar --posix -cf ... -P -C <workspace> --files-from manifest.txt`
    (@actions/cache's createTar, less the zstd compression)."""
    archive.parent.mkdir(parents=True, exist_ok=True)
    (archive.parent / "manifest.txt").write_text(path + "\n")
    subprocess.run(
        ["tar", "--posix", "-cf", archive.name, "-P", "-C", str(workspace), "--files-from", "manifest.txt"],
        cwd=archive.parent,
        check=True,
        capture_output=True,
    )


def restore_cache(archive: Path, workspace: Path) -> None:
    """actions/cache/restore: `tar -xf <archive> -P -C <workspace>` (extractTar)."""
    subprocess.run(["tar", "-xf", str(archive), "-P", "-C", str(workspace)], check=True, capture_output=True)


def clone(origin: Path, dest: Path, commit: str) -> Path:
    """actions/checkout: a fresh clone of `commit` (the cache is not in git)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    git("clone", "-q", str(origin), str(dest), cwd=origin.parent)
    git("checkout", "-q", commit, cwd=dest)
    assert not (dest / CACHE_DIR_NAME).exists()
    return dest


def snapshot(folder: Path) -> dict[str, tuple[int, bytes]]:
    return {
        p.relative_to(folder).as_posix(): (p.stat().st_mtime_ns, p.read_bytes())
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def namespaces(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.is_dir())


@pytest.fixture(scope="module")
def origin(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """The project's repository: (its path, the first commit, the next one,
    which changes one test file and adds another)."""
    root = tmp_path_factory.mktemp("ci-cache") / "origin"
    files = {
        "pyproject.toml": '[project]\nname = "demo"\n\n[tool.hwlint]\n',
        "test/common_device.py": BASE,
        "test/test_cuda_ops.py": INHERITS,
    }
    files.update({f"test/test_ops_{n}.py": GENERIC.format(n=n) for n in range(6)})
    files.update({f"test/nn/test_nn_{n}.py": UNCLASSIFIED_CUDA.format(n=n) for n in range(4)})
    files.update({f"test/test_serialization_{n}.py": UNCLASSIFIED.format(n=n) for n in range(3)})
    write_tree(root, files)
    git("init", "-q", cwd=root)
    runner = Runner(root.parent / "maintainer")
    runner.setup()
    init = runner.run("hwlint allowlist init", cwd=root)
    assert init.returncode == 0 and "Created allowlist.txt" in init.stdout, init.stdout + init.stderr
    first = commit_all(root, "adopt hwlint")
    # `git add -A` left the cache out: its own .gitignore
    assert not [p for p in git("ls-files", cwd=root).splitlines() if p.startswith(CACHE_DIR_NAME)]
    write_tree(
        root,
        {
            "test/test_new.py": TAKES_DEVICE,
            "test/test_ops_0.py": GENERIC.format(n=0) + "\n    def test_sub(self):\n        pass\n",
        },
    )
    second = commit_all(root, "a new test file")
    return root, first, second


@pytest.fixture(scope="module")
def saved(origin: tuple[Path, str, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The cache an earlier CI run saved: the workflow's steps on the first
    commit, in a fresh checkout, the archive of what it left."""
    repo, first, _ = origin
    base = tmp_path_factory.mktemp("run1")
    runner = Runner(base / "home")
    runner.setup()
    checkout = clone(repo, base / "work" / "demo" / "demo", first)
    check = runner.run(named("Check")["run"], cwd=checkout)
    assert check.returncode == 0, check.stdout + check.stderr
    assert namespaces(checkout / CACHE_DIR_NAME)
    archive = base / "cache" / "cache.tar"
    save_cache(cache_steps(CACHE_DIR_NAME)[3]["with"]["path"], checkout, archive)
    return archive


def test_a_restored_cache_gives_a_cold_runs_output(origin: tuple[Path, str, str], saved: Path, tmp_path: Path) -> None:
    repo, _, second = origin
    runner = Runner(tmp_path / "home")
    runner.setup()
    assert runner.outputs() == {"version": hwlint.__version__}
    assert runner.path_file.read_text() == f"{runner.home}/.hwlint-venv/bin\n"

    # The next commit, in a fresh clone at another path, the cache restored.
    warm = clone(repo, tmp_path / "elsewhere" / "ci" / "demo", second)
    restore_cache(saved, warm)
    folder = warm / CACHE_DIR_NAME
    assert folder.is_dir()
    restored, before = namespaces(folder), snapshot(folder)
    assert len(restored) == 1

    check_step = named("Check")["run"].strip()
    assert "\n" not in check_step and check_step.startswith("hwlint check")
    commands = [check_step, "hwlint check", "hwlint check --format json"]
    warm_runs = [runner.run(command, cwd=warm) for command in commands]

    # It used the restored folder: it wrote the new checkout's stat records
    # there, and made no other folder (another hwlint or configuration would).
    assert namespaces(folder) == restored
    after = snapshot(folder)
    (stats,) = [name for name in before if name.endswith("/stats.bin")]
    assert after[stats] != before[stats], "the warm run wrote nothing into the restored folder"

    # A cold run in another fresh clone: the same, byte for byte.
    cold = clone(repo, tmp_path / "cold" / "demo", second)
    cold_runs = [runner.run(f"{command} --no-cache", cwd=cold) for command in commands]
    assert not (cold / CACHE_DIR_NAME).exists()
    for command, w, c in zip(commands, warm_runs, cold_runs):
        assert (w.returncode, w.stdout, w.stderr) == (c.returncode, c.stdout, c.stderr), command
    assert warm_runs[0].returncode == 1
    assert warm_runs[0].stdout.startswith("::error file=test/test_new.py,line=5,col=1,title=HWC001::test class TestNew")
    assert '"code": "HWC001"' in warm_runs[2].stdout
    checked = int(re.search(r"\((\d+) files checked", warm_runs[1].stdout).group(1))  # type: ignore[union-attr]
    assert checked == 15  # 6 + 4 + 3 generated, the subclass, the new one

    # What the cache did, by its counters: a third clone, restored the same
    # way, checked in process. The facts of the 13 unchanged test files and
    # of the base class's file were read, not parsed; the changed file and
    # the new one were parsed; the whole-tree result could not be reused
    # (two files differ).
    counted = clone(repo, tmp_path / "counted" / "demo", second)
    restore_cache(saved, counted)
    store = store_for(load_config(start=counted), counted / CACHE_DIR_NAME)
    run_check(load_config(start=counted), jobs=1, cache=store)
    assert (store.hits, store.misses, store.memo_hit) == (checked - 2 + 1, 2, False)
    # ... and on the commit the cache was saved from, the whole-tree result is.
    rerun = clone(repo, tmp_path / "rerun" / "demo", origin[1])
    restore_cache(saved, rerun)
    store = store_for(load_config(start=rerun), rerun / CACHE_DIR_NAME)
    run_check(load_config(start=rerun), jobs=1, cache=store)
    assert (store.misses, store.memo_hit) == (0, True)


def test_a_restored_environment_keeps_the_cache_folder(origin: tuple[Path, str, str], tmp_path: Path) -> None:
    """A source tree (an editable install) names the cache's folder after
    its files, mtimes included: a copy of the package with new mtimes starts
    a folder of its own; the same copy saved and restored by actions/cache
    (tar --posix) keeps them, and the folder. (A wheel's install is named by
    the hashes in its RECORD instead: test_every_install_of_a_wheel_...)"""
    repo, first, _ = origin
    home = tmp_path / "home"
    venv = home / ".hwlint-venv"

    def install() -> None:  # pip writes every file anew
        shutil.rmtree(venv / "lib", ignore_errors=True)
        shutil.copytree(
            PACKAGE,
            venv / "lib" / "hwlint",
            copy_function=shutil.copyfile,
            ignore=shutil.ignore_patterns("__pycache__"),
        )

    install()
    runner = Runner(home, package=venv / "lib")
    runner.setup()
    where = subprocess.run(
        [sys.executable, "-c", "import hwlint; print(hwlint.__file__)"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(venv / "lib")},
        cwd=tmp_path,
    )
    assert where.stdout.strip() == str(venv / "lib" / "hwlint" / "__init__.py")  # the copy runs, not the checkout
    fill = clone(repo, tmp_path / "run1" / "demo", first)
    assert runner.run("hwlint check", cwd=fill).returncode == 0
    archive = tmp_path / "cache" / "cache.tar"
    save_cache(CACHE_DIR_NAME, fill, archive)
    env_archive = tmp_path / "env" / "env.tar"
    save_cache(".hwlint-venv", home, env_archive)

    def second_run(name: str) -> tuple[list[str], list[str], subprocess.CompletedProcess[str]]:
        checkout = clone(repo, tmp_path / name / "demo", first)
        restore_cache(archive, checkout)
        restored = namespaces(checkout / CACHE_DIR_NAME)
        result = runner.run("hwlint check", cwd=checkout)
        return restored, namespaces(checkout / CACHE_DIR_NAME), result

    shutil.rmtree(venv / "lib")
    restore_cache(env_archive, home)  # the environment restored: the same folder
    restored, after, kept = second_run("restored")
    assert after == restored and len(restored) == 1
    install()  # installed again: another folder, the restored one unread
    restored, after, reinstalled = second_run("reinstalled")
    assert len(after) == 2 and restored[0] in after
    assert (kept.returncode, kept.stdout) == (reinstalled.returncode, reinstalled.stdout)


def test_a_committed_cache_is_not_read(origin: tuple[Path, str, str], saved: Path, tmp_path: Path) -> None:
    repo, _, second = origin
    runner = Runner(tmp_path / "home")
    runner.setup()
    checkout = clone(repo, tmp_path / "pr" / "demo", second)
    restore_cache(saved, checkout)
    git("add", "-f", CACHE_DIR_NAME, cwd=checkout)
    git("commit", "-q", "-m", "commit the cache", cwd=checkout)
    before = snapshot(checkout / CACHE_DIR_NAME)
    tracked = runner.run("hwlint check", cwd=checkout)
    cold = runner.run("hwlint check --no-cache", cwd=clone(repo, tmp_path / "cold" / "demo", second))
    assert (tracked.returncode, tracked.stdout) == (cold.returncode, cold.stdout)
    # Neither read nor written; the notice is the one the page quotes.
    assert snapshot(checkout / CACHE_DIR_NAME) == before
    folder = checkout / CACHE_DIR_NAME
    notice = (
        f"hwlint: notice: git tracks the cache folder {folder} (it was committed): not using it; "
        f"remove it from git (`git rm -r --cached {CACHE_DIR_NAME}`)"
    )
    assert tracked.stderr == cold.stderr + notice + "\n"
    quoted = re.search(r"^hwlint: notice: git tracks the cache folder (\S+) .*$", page(), re.M)
    assert quoted and quoted.group(0).replace(quoted.group(1), str(folder)) == notice


def _wheel_install(site: Path) -> None:
    """hwlint's package as pip installs a wheel: the files written anew (new
    mtimes) and a dist-info RECORD holding each file's hash and size."""
    import base64
    import hashlib

    shutil.copytree(
        PACKAGE, site / "hwlint", copy_function=shutil.copyfile, ignore=shutil.ignore_patterns("__pycache__")
    )
    rows = []
    for path in sorted((site / "hwlint").rglob("*.py")):
        data = path.read_bytes()
        hashed = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        rows.append(f"{path.relative_to(site).as_posix()},sha256={hashed},{len(data)}\n")
    (site / "hwlint-0.0.dist-info").mkdir()
    (site / "hwlint-0.0.dist-info" / "RECORD").write_text("".join(rows))


def _namespace(site: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", "from hwlint.infra.cache import namespace_key; print(namespace_key(1))"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(site)},
        cwd=site,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_every_install_of_a_wheel_reads_the_same_cache_folder(tmp_path: Path) -> None:
    """A fresh CI environment installs hwlint again: pip gives its files new
    mtimes, but the RECORD's hashes are the wheel's, so the restored cache is
    read. A file changed in place since (its size no longer the RECORD's)
    names another folder."""
    first, second = tmp_path / "a", tmp_path / "b"
    _wheel_install(first)
    _wheel_install(second)
    os.utime(second / "hwlint" / "__init__.py", (1, 1))
    assert _namespace(first) == _namespace(second)
    with (second / "hwlint" / "rules" / "base.py").open("a") as f:
        f.write("# edited in place\n")
    assert _namespace(first) != _namespace(second)
