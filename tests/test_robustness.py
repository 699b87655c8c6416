"""Any input, no crash: the whole pipeline (read → facts → rules → output,
and fix) on generated and mutated modules. Every outcome is a list of
diagnostics, with HWC000 exactly where Python refuses the file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwlint.core.diagnostics import Diagnostic
from hwlint.fix.apply import fix_file
from hwlint.fix.plan import plan_fixes
from hwlint.output import NAMES, renderer
from tests.conftest import lint, run_cli, write_project
from tests.test_fix_properties import modules

SEEDS = [
    b"",
    b"class TestA(TestCase):\n    def test_a(self, device):\n        torch.ones(2).cuda()\n\ninstantiate_device_type_tests(TestA, globals())\n",
    b"match x:\n    case [1, *rest]:\n        class TestM(TestCase):\n            def test_m(self): pass\n",
    b"class TestG[T](TestCase):\n    def test_g(self): pass\n",  # PEP 695: a syntax error before 3.12
    b"print 'python 2'\nclass TestP(TestCase):\n    def test_p(self): pass\n",
    b"\xef\xbb\xbfclass TestB(TestCase):\r\n    def test_b(self): pass\r\n",
    b"class TestC(TestCase):\r    def test_c(self): pass\r",
    b"class TestT(TestCase):\n\tdef test_t(self):\n        pass\n",  # tabs then spaces
    b"x = " + b"(" * 150 + b"1" + b")" * 150 + b"\nclass TestD(TestCase):\n    def test_d(self): pass\n",
    b"x = " + b"[" * 5000 + b"]" * 5000 + b"\n",
    b"s = '" + b"a" * 200_000 + b"'\nclass TestL(TestCase):\n    def test_l(self): pass\n",
    b"# -*- coding: latin-1 -*-\nclass T\xe9st(TestCase):\n    def test_e(self): pass\n",
    b"# -*- coding: klingon -*-\nx = 1\n",
    b"x = '\\d'\nclass TestW(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n    def test_w(self): pass\n",
]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    base = draw(st.one_of(st.sampled_from(SEEDS), modules().map(lambda s: s.encode())))
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(
            st.sampled_from(["truncate", "insert", "nul", "invalid-utf8", "crlf", "cr", "tab", "bom", "dedent"])
        )
        at = draw(st.integers(0, len(base)))
        if kind == "truncate":
            base = base[:at]
        elif kind == "insert":
            base = base[:at] + draw(st.binary(min_size=1, max_size=8)) + base[at:]
        elif kind == "nul":
            base = base[:at] + b"\x00" + base[at:]
        elif kind == "invalid-utf8":
            base = base[:at] + b"\xff\xfe" + base[at:]
        elif kind == "crlf":
            base = base.replace(b"\n", b"\r\n")
        elif kind == "cr":
            base = base.replace(b"\n", b"\r")
        elif kind == "tab":
            base = base.replace(b"    ", b"\t", 1)
        elif kind == "bom":
            base = b"\xef\xbb\xbf" + base
        elif kind == "dedent":
            base = base.replace(b"\n    ", b"\n", 1)
    return base


def python_refuses(data: bytes) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(data, "x.py", "exec", dont_inherit=True, flags=0x400)  # ast.PyCF_ONLY_AST
        except (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeDecodeError, LookupError):
            return True
    return False


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(mutated())
def test_any_input_gives_diagnostics_never_an_exception(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = write_project(Path(tmp), {"test/common_x.py": "class Base:\n    pass\n"})
        path = root / "test" / "test_fuzz.py"
        path.write_bytes(data)
        result = lint(root)
        assert all(isinstance(d, Diagnostic) for d in result.diagnostics)
        parse_errors = [d for d in result.diagnostics if d.code == "HWC000"]
        assert bool(parse_errors) == python_refuses(data), (parse_errors, data[:200])
        for d in result.diagnostics:
            assert d.line >= 1 and d.column >= 1 and d.message
        for fmt in NAMES:
            assert isinstance(renderer(fmt)(result, fmt=fmt), str)
        plans, _ = plan_fixes(result, unsafe=True)
        for plan in plans:
            outcome = fix_file(root, plan, result.contexts[0].facts, result.config)
            # Fixed, or refused with a reason: never an exception, never a broken file.
            assert (outcome.fixed is None) == (outcome.error is not None)
            if outcome.fixed is not None:
                assert not python_refuses(outcome.fixed)
        assert path.read_bytes() == data  # checking and planning never write


# The sweep of bad input through the real command line: one line naming the
# file and what to do, exit 2, or the run goes on; never "internal error".

CLASS_C = "class TestC(TestCase):\n    def test_c(self):\n        pass\n"


def _error_line(root: Path, *args: str) -> str:
    done = run_cli(*args, cwd=root)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == ""
    return done.stderr.replace(str(root), "ROOT").rstrip("\n")


@pytest.mark.parametrize(
    "settings, key, command",
    [
        ({"include": ["!"]}, "[tool.hwlint] include", ["check"]),
        ({"exclude": ["test/x\\"]}, "[tool.hwlint] exclude", ["check", "test/test_c.py"]),
        ({"per-file-ignores": {"!": ["HWC001"]}}, "[tool.hwlint] per-file-ignores", ["check"]),
        ({"exclude": ["[z-a]"]}, "[tool.hwlint] exclude", ["check"]),  # pathspec raises re.error for this one
        (
            {"phases": [{"name": "a", "paths": ["!"], "due": "2027-01-01"}]},
            "[[tool.hwlint.phases]] (a) paths",
            ["report"],
        ),
    ],
)
def test_an_invalid_configured_pattern_is_one_line_naming_the_setting(
    tmp_path: Path, settings: dict[str, Any], key: str, command: list[str]
) -> None:
    root = write_project(tmp_path, {"test/test_c.py": CLASS_C}, settings)
    text = (root / "pyproject.toml").read_text().replace('"2027-01-01"', "2027-01-01")  # a TOML date
    (root / "pyproject.toml").write_text(text)
    pattern = next(iter(settings.get("exclude", []) or ["!"]))
    assert _error_line(root, *command) == (
        f"hwlint: error: ROOT/pyproject.toml: {key}: {pattern!r} is not a valid gitignore-style pattern: "
        "correct or remove it"
    )


def test_an_invalid_gitignore_line_is_dropped_as_git_drops_it(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"test/test_c.py": CLASS_C, "test/ignored/test_d.py": CLASS_C})
    (root / "test" / ".gitignore").write_text("!\nfoo\\\n[z-a]\nignored/\n")
    done = run_cli("check", "--no-cache", cwd=root)
    assert done.returncode == 1 and done.stderr == ""
    assert [line.split(":")[0] for line in done.stdout.splitlines() if "HWC" in line] == ["test/test_c.py"]


def test_fix_and_prune_write_through_symlinks_instead_of_replacing_them(tmp_path: Path) -> None:
    unclassified = "from torch.testing._internal.common_utils import TestCase\n\n" + CLASS_C
    root = write_project(
        tmp_path, {"shared/test_c.py": unclassified, "test/test_d.py": CLASS_C}, allowlist="test/test_c.py 1\n"
    )
    (root / "test" / "test_c.py").symlink_to("../shared/test_c.py")
    (root / "shared" / "allowlist.txt").write_text((root / "allowlist.txt").read_text())
    (root / "allowlist.txt").unlink()
    (root / "allowlist.txt").symlink_to("shared/allowlist.txt")
    done = run_cli("fix", "test/test_c.py", cwd=root)
    assert done.returncode == 0, done.stderr
    assert (root / "test" / "test_c.py").is_symlink() and (root / "allowlist.txt").is_symlink()
    assert "hw_classification = HardwareClassification.GENERIC" in (root / "shared" / "test_c.py").read_text()
    assert (root / "shared" / "allowlist.txt").read_text() == ""  # the clean file left the list


def test_fix_classifies_a_class_indented_with_a_form_feed_or_leaves_the_file_as_it_is(tmp_path: Path) -> None:
    # libcst refuses the module's own indent ("\x0c    ") as a parser setting
    # (this was an internal error for fix, and for lintrunner's whole run),
    # and it drops a form feed before a statement.
    indented = "class TestC(TestCase):\n\x0c    def test_c(self): pass\n"
    leading = "\x0cclass TestD(TestCase):\n    def test_d(self): pass\n"
    # Old Mac line ends: libcst writes them back as \n.
    bare_cr = "class TestE(TestCase):\r    def test_e(self): pass\r"
    root = write_project(tmp_path, {"test/test_c.py": indented, "test/test_d.py": leading})
    (root / "test" / "test_e.py").write_bytes(bare_cr.encode())
    done = run_cli("fix", cwd=root)
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert lines[-5:-3] == [
        "  test/test_d.py:1: TestD: not fixed: libcst cannot reproduce the file byte for byte (line 1: a form feed "
        "before a statement): it is left as it is",
        "  test/test_e.py:1: TestE: not fixed: libcst cannot reproduce the file byte for byte (line 2: a bare `\\r` "
        "line end): it is left as it is",
    ]
    # Then why fix fails: check does, on the two classes left.
    assert [line.split(": HWC")[0] for line in lines[-3:-1]] == ["test/test_d.py:1:2", "test/test_e.py:1:1"]
    assert lines[-1] == "`hwlint check` fails on the project: 2 errors"
    assert (root / "test" / "test_d.py").read_text() == leading
    assert (root / "test" / "test_e.py").read_bytes() == bare_cr.encode()
    assert (root / "test" / "test_c.py").read_text() == (
        "from torch.testing._internal.common_utils import HardwareClassification\n"
        "class TestC(TestCase):\n\x0c    hw_classification = HardwareClassification.GENERIC\n\n"
        "\x0c    def test_c(self): pass\n"
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_named_like_a_test_file_is_hwc000_not_a_hang(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"test/test_c.py": CLASS_C})
    os.mkfifo(root / "test" / "test_x.py")  # no writer: a plain open() blocks forever
    for args in (["check", "--no-cache"], ["check", "--no-cache", "test/test_x.py"]):
        done = run_cli(*args, cwd=root)
        assert "test/test_x.py:1:1: HWC000 cannot read: not a regular file (a FIFO, socket or device)" in done.stdout


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_output_to_a_device_or_fifo_is_written_in_place_not_replaced_by_a_file(tmp_path: Path) -> None:
    # `-o /dev/null` replaced /dev/null with a regular file when run as root
    # (the atomic write renamed over it); a FIFO stands in for the device.
    import threading

    root = write_project(tmp_path, {"test/test_c.py": CLASS_C})
    fifo = root / "out.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    done = run_cli("check", "--format", "json", "-o", str(fifo), cwd=root)
    reader.join(timeout=60)
    assert done.returncode == 1 and done.stderr == ""
    assert fifo.is_fifo()
    assert b'"code": "HWC001"' in got[0]


def test_lintrunner_says_which_paths_file_is_not_utf8(tmp_path: Path) -> None:
    # lintrunner writes UTF-8 paths; other bytes were an "internal error".
    root = write_project(tmp_path, {"test/test_c.py": CLASS_C})
    (root / "paths.txt").write_bytes(b"test/test_c.py\ntest/test_\xff.py\n")
    done = run_cli("lintrunner", "@paths.txt", cwd=root)
    assert done.returncode == 0 and done.stderr == ""
    assert [json.loads(line)["description"] for line in done.stdout.splitlines()] == [
        "hwlint failed: paths.txt: the paths file is not UTF-8 (byte 0xff at offset 25): pass lintrunner's @{{PATHSFILE}}"
    ]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("command", [["check"], ["report"], ["rule", "HWC001"], ["lintrunner", "test/test_c.py"]])
def test_output_that_cannot_be_written_is_one_line_not_an_internal_error(tmp_path: Path, command: list[str]) -> None:
    root = write_project(tmp_path, {"test/test_c.py": CLASS_C})
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "hwlint", *command],
            cwd=root,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert (done.returncode, done.stderr) == (
        2,
        "hwlint: error: cannot write the output: No space left on device: "
        "free some space, or write elsewhere with -o FILE\n",
    )


@pytest.mark.parametrize("command", [("check",), ("report",), ("select", "GENERIC"), ("rule",), ("fix", "--diff")])
def test_a_closed_stdout_is_one_error_line(tmp_path: Path, command: tuple[str, ...]) -> None:
    """`hwlint check >&-`: Python starts with sys.stdout None; the output
    cannot be written, and saying so beats dropping it."""
    root = write_project(tmp_path / "proj", {"test/test_x.py": "class TestA(TestCase):\n    def test_a(self): pass\n"})
    proc = subprocess.run(
        [sys.executable, "-m", "hwlint", *command],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        preexec_fn=lambda: os.close(1),
    )
    assert (proc.returncode, proc.stderr) == (
        2,
        "hwlint: error: cannot write the output: standard output is closed (use -o FILE)\n",
    )


def test_a_stdout_open_for_reading_only_is_one_error_line(tmp_path: Path) -> None:
    root = write_project(tmp_path / "proj", {"test/test_x.py": "class TestA(TestCase):\n    def test_a(self): pass\n"})
    with open(os.devnull) as read_only:
        proc = subprocess.run(
            [sys.executable, "-m", "hwlint", "check"],
            cwd=root,
            stdout=read_only,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert (proc.returncode, proc.stderr) == (
        2,
        "hwlint: error: cannot write the output: Bad file descriptor: write elsewhere with -o FILE\n",
    )


def test_a_file_name_that_is_not_utf8(tmp_path: Path) -> None:
    """POSIX allows any bytes in a name: SARIF percent-encodes them, and an
    allowlist (UTF-8 text) cannot hold one: one line, nothing written."""
    root = write_project(tmp_path / "proj", {})
    (root / "test").mkdir(exist_ok=True)
    (root / os.fsdecode(b"test/test_\xff.py")).write_text("class TestA(TestCase):\n    def test_a(self): pass\n")
    sarif = json.loads(run_cli("check", "--format", "sarif", cwd=root).stdout)
    location = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location["uri"] == "test/test_%FF.py"
    assert run_cli("check", "-o", "out.txt", cwd=root).returncode == 1  # -o writes the name's own bytes, as stdout does
    assert (root / "out.txt").read_bytes().startswith(b"test/test_\xff.py:1:1: HWC001 ")
    init = run_cli("allowlist", "init", cwd=root)
    assert (init.returncode, init.stderr) == (
        2,
        "hwlint: error: test/test_\\xff.py: the file name is not UTF-8, and the "
        f"allowlist is UTF-8 text: rename the file ({root / 'allowlist.txt'} is not written)\n",
    )
    assert not (root / "allowlist.txt").exists()


@pytest.mark.skipif(not os.path.exists("/dev/stdout"), reason="needs /dev/stdout (Linux, macOS)")
def test_output_to_dev_stdout_goes_to_the_stream_as_the_shell_set_it_up(tmp_path: Path) -> None:
    """`hwlint check -o /dev/stdout >> log`: /dev/stdout resolves to `log`;
    renaming a new file over it would lose what was there."""
    root = write_project(tmp_path / "proj", {"test/test_x.py": "class TestA(TestCase):\n    def test_a(self): pass\n"})
    log = tmp_path / "log"
    log.write_text("before\n")
    with open(log, "a") as stdout:
        done = subprocess.run(
            [sys.executable, "-m", "hwlint", "check", "-o", "/dev/stdout"],
            cwd=root,
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert (done.returncode, done.stderr) == (1, "")
    assert log.read_text() == "before\n" + run_cli("check", cwd=root).stdout
