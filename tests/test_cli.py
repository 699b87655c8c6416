"""`hwlint check` as a user runs it: exit codes, options, and each format
against a golden file (HWLINT_UPDATE_GOLDEN=1 rewrites them)."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hwlint.cli import options
from hwlint.rules import ALL_RULES
from tests.conftest import run_cli, write_project

GOLDEN = Path(__file__).parent / "golden"

SOURCE = """\
import torch
from torch.testing._internal.common_utils import HardwareClassification, TestCase


class TestUnclassified(TestCase):
    def test_a(self):
        pass


class TestGenericWithDevice(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_b(self, device):
        pass


class TestSuppressed(TestCase):  # noqa: HWC001
    def test_c(self):
        pass
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_project(
        tmp_path / "proj",
        {
            "test/test_a.py": SOURCE,
            "test/test_clean.py": "class TestOk(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n    def test_ok(self): pass\n",
            "test/test_broken.py": "class TestBroken(TestCase)\n    pass\n",
            "test/test_old.py": "class TestOld(TestCase):\n    def test_old(self): pass\n",
        },
        allowlist="test/test_old.py 1\n",
    )


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("HWLINT_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


@pytest.mark.parametrize("fmt", ["text", "json", "jsonl", "lintrunner"])
def test_formats_golden(tree: Path, fmt: str) -> None:
    result = run_cli("check", "--format", fmt, cwd=tree)
    assert result.returncode == 1, result.stderr
    assert result.stderr == ""
    out = result.stdout.replace(str(tree), "<root>")
    check_golden(f"check.{fmt}", out)


def test_json_schema(tree: Path) -> None:
    items = json.loads(run_cli("check", "--format", "json", cwd=tree).stdout)
    keys = {"path", "line", "column", "code", "name", "severity", "message", "class_name", "fix"}
    assert all(set(item) == keys for item in items)
    assert [(i["path"], i["line"], i["column"], i["code"]) for i in items] == sorted(
        (i["path"], i["line"], i["column"], i["code"]) for i in items
    )
    fix = next(i["fix"] for i in items if i["code"] == "HWC001")
    assert fix["applicability"] == "safe" and fix["classification"] == "GENERIC"


def test_exit_codes(tree: Path, tmp_path: Path) -> None:
    assert run_cli("check", cwd=tree).returncode == 1
    assert run_cli("check", "--exit-zero", cwd=tree).returncode == 0
    clean = write_project(tmp_path / "clean", {"test/test_ok.py": "x = 1\n"})
    ok = run_cli("check", cwd=clean)
    assert (ok.returncode, ok.stdout) == (0, "All checks passed (1 file checked).\n")
    bad = run_cli("check", "--format", "nope", cwd=tree)
    assert bad.returncode == 2 and "Invalid value for '--format'" in bad.stderr
    (tree / "pyproject.toml").write_text("[tool.hwlint]\nselct = []\n")
    config = run_cli("check", "--exit-zero", cwd=tree)
    assert config.returncode == 2
    assert config.stderr.count("\n") == 1 and "unknown key 'selct'" in config.stderr


def test_select_ignore_statistics(tree: Path) -> None:
    only = run_cli("check", "--select", "HWC102", cwd=tree)
    assert [line.split()[1] for line in only.stdout.splitlines() if line.startswith("test/")] == ["HWC102"]
    ignored = run_cli("check", "--ignore", "HWC0,HWC1", cwd=tree)
    assert "HWC001" not in ignored.stdout and "HWC000" not in ignored.stdout
    stats = run_cli("check", "--statistics", cwd=tree)
    assert "     1  HWC001  missing-classification" in stats.stdout.splitlines()


def test_output_file(tree: Path) -> None:
    out = tree / "report.json"
    result = run_cli("check", "--format", "json", "-o", str(out), cwd=tree)
    assert result.returncode == 1 and result.stdout == ""
    assert json.loads(out.read_text())[0]["path"] == "test/test_a.py"


def test_explicit_paths_are_filtered_like_force_exclude(tree: Path) -> None:
    result = run_cli("check", "pyproject.toml", "test/test_clean.py", cwd=tree)
    assert (result.returncode, result.stdout) == (0, "All checks passed (1 file checked, 1 allowlisted).\n")
    nothing = run_cli("check", "pyproject.toml", cwd=tree)
    assert nothing.returncode == 0 and "no test files among the given paths" in nothing.stderr


def test_subset_run_does_not_judge_entries_it_did_not_see(tree: Path) -> None:
    # pre-commit passes a few files: the allowlist entry of an unseen file is not stale.
    result = run_cli("check", "test/test_clean.py", cwd=tree)
    assert "HWC301" not in result.stdout


def test_same_output_whatever_jobs(tmp_path: Path) -> None:
    files = {f"test/d{i % 5}/test_{i}.py": SOURCE.replace("TestUnclassified", f"TestU{i}") for i in range(40)}
    root = write_project(tmp_path / "many", files)
    one = run_cli("check", "--format", "json", "--jobs", "1", cwd=root)
    two = run_cli("check", "--format", "json", "--jobs", "2", cwd=root)
    assert one.returncode == two.returncode == 1
    assert one.stdout == two.stdout and len(json.loads(one.stdout)) == 80


def test_rule_command() -> None:
    here = Path(__file__).parent
    text = run_cli("rule", "HWC101", cwd=here).stdout
    assert text.startswith("# instantiation (HWC101)\n") and "## Why is this bad?" in text
    listing = run_cli("rule", cwd=here).stdout.splitlines()
    assert listing[0].startswith("HWC000  parse-error")
    assert [line.split()[0] for line in listing] == [rule.code for rule in ALL_RULES]
    unknown = run_cli("rule", "HWC999", cwd=here)
    assert (
        unknown.returncode == 2 and unknown.stderr == "hwlint: error: unknown rule 'HWC999': `hwlint rule` lists them\n"
    )


def test_unknown_code_on_the_command_line_is_an_error(tree: Path) -> None:
    for option in ("--select", "--extend-select", "--ignore"):
        proc = run_cli("check", option, "HWC9", cwd=tree)
        assert proc.returncode == 2
        assert (
            proc.stderr == f"hwlint: error: {option}: unknown rule code or prefix 'HWC9' (`hwlint rule` lists them)\n"
        )


# -- every option declared once (hwlint/options.py) ---------------------------------


def _hwlint(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hwlint", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def _help_flags(text: str) -> set[str]:
    """The flags of the Options section of click's --help ("  -j, --jobs INTEGER  ...")."""
    section = text.split("\nOptions:\n", 1)[1].split("\n\n", 1)[0]
    flags: set[str] = set()
    for line in section.splitlines():
        head = re.match(r"  (-[^\s,]+(?:, -[^\s,]+)*)", line)
        if head:
            flags.update(flag.split()[0] for flag in head.group(1).split(", "))
    return flags


def _commands(text: str) -> list[str]:
    section = text.split("\nCommands:\n", 1)[1]
    return [line.split()[0] for line in section.splitlines() if line.startswith("  ") and line[2] != " "]


def _declared() -> set[str]:
    """Every flag declared in hwlint.cli.options."""
    declared = [options.dry_run("x")]
    for value in vars(options).values():
        if isinstance(value, options.Option):
            declared.append(value)
        elif isinstance(value, tuple):
            declared.extend(v for v in value if isinstance(v, options.Option))
    return {flag for option in declared for flag in option.flags}


def test_every_commands_options_are_declared_in_hwlint_options(tmp_path: Path) -> None:
    top = _hwlint(tmp_path, "--help").stdout
    commands = [[name] for name in _commands(top)]
    assert [c[0] for c in commands] == [
        "allowlist",
        "check",
        "devices",
        "fix",
        "lintrunner",
        "report",
        "rule",
        "select",
        "server",
    ]
    commands += [["allowlist", name] for name in _commands(_hwlint(tmp_path, "allowlist", "--help").stdout)]
    assert len(commands) == 16  # allowlist: check, export-json, import-json, init, prune, show, sync
    declared = _declared() | {"-h", "--help"}
    for command in commands:
        shown = _help_flags(_hwlint(tmp_path, *command, "--help").stdout)
        assert shown and shown <= declared, (command, shown - declared)
    check_flags = {flag for option in options.CHECK for flag in option.flags}
    assert _help_flags(_hwlint(tmp_path, "check", "--help").stdout) == check_flags | {"-h", "--help"}


def test_each_option_of_check_is_spelled_in_one_module() -> None:
    package = Path(options.__file__).parent
    sources = {path.relative_to(package).as_posix(): path.read_text(encoding="utf-8") for path in package.rglob("*.py")}
    for option in options.CHECK:
        for flag in option.flags:
            spelled = sorted(name for name, text in sources.items() if f'"{flag}"' in text or f"'{flag}'" in text)
            assert spelled == ["options.py"], flag


def test_shared_options_are_the_same_declaration() -> None:
    for command in (options.CHECK, options.REPORT, options.SELECT_COMMAND, options.FIX_COMMAND):
        assert options.CONFIG in command and options.JOBS in command
    assert {o.flags for o in options.CHECK if o.dest == "fmt"} == {o.flags for o in options.REPORT if o.dest == "fmt"}


# -- the click-free one-file path and click say the same ----------------------------

# (argv after `hwlint`, extra environment, whether the fast path takes it)
FRONT_DOORS = [
    (["check"], {}, True),
    (["check", "test/test_a.py", "--format=json"], {}, True),
    (["check", "-o", "out.txt", "--exit-zero"], {}, True),
    (["check", "--output=out.txt", "--statistics"], {}, True),
    (["check", "-o=out.txt"], {}, False),  # click: the file "=out.txt"
    (["check", "--exit-zero=1"], {}, False),
    (["check", "--format", "json", "--format", "text"], {}, False),  # click takes the last
    (["check", "--format", "sarif"], {}, False),
    (["check", "--format", "yaml"], {}, False),
    (["check", "--jobs=abc"], {}, False),
    (["check", "-j2"], {}, False),
    (["check", "--jobs", "1", "--no-allowlist", "--no-cache"], {}, True),
    (["check", "--cache-dir", "cache"], {}, True),
    (["check", "--cache-dir", "pyproject.toml"], {}, False),  # a file: click refuses it
    (["check"], {"HWLINT_CACHE_DIR": "pyproject.toml"}, False),
    (["check"], {"HWLINT_CACHE_DIR": "env-cache"}, True),
    (["check", "--config", "test"], {}, False),  # a folder
    (["check", "-o", "test"], {}, False),
    (["check", "--config", "pyproject.toml", "--no-cache"], {}, True),
    (["check", "--select", "HWC001"], {}, False),
    (["check", "--select", "HWC9"], {}, False),
    (["check", "--config", "missing.toml"], {}, True),
    (["check", ""], {}, False),
    (["check", "--cache-dir"], {}, False),
    (["check", "--today", "2030-01-01"], {}, True),
    (["check", "--today=soon"], {}, True),  # the same one-line error from both doors
    (["check"], {"HWLINT_TODAY": "2030-01-01"}, True),
]


@pytest.mark.parametrize(("args", "env", "fast"), FRONT_DOORS)
def test_fast_path_and_click_give_the_same_result(
    tree: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], env: dict[str, str], fast: bool
) -> None:
    from hwlint.__main__ import parse_check

    monkeypatch.chdir(tree)
    monkeypatch.delenv("HWLINT_CACHE_DIR", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BytesIO(), encoding="utf-8"))
    assert (parse_check(args) is not None) == fast
    monkeypatch.undo()
    results = []
    for door in ({}, {"HWLINT_NO_FAST_PATH": "1"}):
        proc = _hwlint(tree, *args, env={**env, **door})
        written = (tree / "out.txt").read_text() if (tree / "out.txt").exists() else None
        results.append((proc.returncode, proc.stdout, proc.stderr, written))
        (tree / "out.txt").unlink(missing_ok=True)
    assert results[0] == results[1]
    assert "Traceback" not in results[0][2]


@pytest.mark.parametrize("door", [{}, {"HWLINT_NO_FAST_PATH": "1"}])
def test_cache_options_reach_the_run(tree: Path, door: dict[str, str]) -> None:
    assert _hwlint(tree, "check", "--cache-dir", "named", env=door).returncode == 1
    assert (tree / "named").is_dir() and not (tree / ".hwlint_cache").exists()
    # HWLINT_NO_CACHE turns the cache off even when a folder is named.
    _hwlint(tree, "check", "--cache-dir", "off", env={**door, "HWLINT_NO_CACHE": "1"})
    _hwlint(tree, "check", "--no-cache", env=door)
    assert not (tree / "off").exists() and not (tree / ".hwlint_cache").exists()
    _hwlint(tree, "check", env=door)
    assert (tree / ".hwlint_cache").is_dir()


def test_bad_input_is_one_line_on_either_door(tree: Path) -> None:
    for door in ({}, {"HWLINT_NO_FAST_PATH": "1"}):
        proc = _hwlint(tree, "check", "-o", "no/such/folder/out.txt", env=door)
        assert proc.returncode == 2
        assert (
            proc.stderr.startswith("hwlint: error: no/such/folder/out.txt: cannot write")
            and proc.stderr.count("\n") == 1
        )
