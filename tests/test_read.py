"""Reading files: bytes to text as CPython decodes them, and every file that
cannot be read, decoded or parsed is an HWC000 at the right place, never a
crash or a silently skipped file. Files are written as bytes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hwlint.facts.read
from hwlint.facts.read import ReadError, decode, read_source
from tests.conftest import lint, run_cli, write_project

UNCLASSIFIED = (
    b"import unittest\nclass TestA(unittest.TestCase):\n    def test_a(self):\n        pass\n"  # HWC001 at 2:1
)

# An ACCELERATOR test that hard-codes CUDA (HWC201, on with --select HWC201)
# after some non-ASCII text on the same line: `torch` is character 20 of the
# line, byte 23 of it in UTF-8.
NON_ASCII = (
    "class TestA(TestCase):\n"
    "    hw_classification = HardwareClassification.ACCELERATOR\n\n"
    "    def test_a(self, device):\n"
    '        s = "ééé"; torch.cuda.synchronize()\n\n\n'  # line 5
    "instantiate_device_type_tests(TestA, globals())\n"
)


def project(tmp_path: Path, files: dict[str, bytes]) -> Path:
    root = write_project(tmp_path / "p", {})
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


def diags(root: Path, *args: str) -> list[tuple[str, int, int, str]]:
    proc = run_cli("check", "--format", "json", *args, cwd=root)
    assert proc.returncode in (0, 1), proc.stderr
    assert proc.stderr == ""
    return [(d["path"], d["line"], d["column"], d["code"]) for d in json.loads(proc.stdout)]


def messages(root: Path, *args: str) -> dict[str, str]:
    proc = run_cli("check", "--format", "json", *args, cwd=root)
    return {d["path"]: d["message"] for d in json.loads(proc.stdout) if d["code"] == "HWC000"}


# -- decode ---------------------------------------------------------------------


def test_decode_plain_utf8() -> None:
    assert decode("s = 'é€'\n".encode()) == "s = 'é€'\n"
    assert decode(b"") == ""


def test_decode_bom_is_dropped() -> None:
    assert decode(b"\xef\xbb\xbfx = 1\n") == "x = 1\n"
    # A BOM with an utf-8 cookie is fine; with another encoding, Python refuses it.
    assert decode(b"\xef\xbb\xbf# coding: utf-8\nx = 1\n") == "# coding: utf-8\nx = 1\n"
    assert decode(b"\xef\xbb\xbf# coding: latin-1\nx = 1\n") == ReadError(
        1, 1, "cannot decode: encoding problem: utf-8"
    )


def test_decode_pep263_cookie() -> None:
    assert decode(b"# -*- coding: latin-1 -*-\ns = '\xe9'\n") == "# -*- coding: latin-1 -*-\ns = 'é'\n"
    assert decode(b"#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\ns = '\x80'\n").endswith("s = '€'\n")
    # A cookie on line 3 does not count: the file is UTF-8, and \xe9 is invalid there.
    assert isinstance(decode(b"\n\n# coding: latin-1\ns = '\xe9'\n"), ReadError)


@pytest.mark.parametrize(
    ("data", "line", "column"),
    [
        pytest.param(b"s = '\xff'\n", 1, 6, id="line-1"),  # refused by detect_encoding already
        pytest.param(b"x = 1\ny = 2\n\nz = 'ab\xffc'\n", 4, 8, id="line-4"),
        pytest.param("s = 'éé".encode() + b"\xff'\n", 1, 8, id="after-multibyte-chars"),
        pytest.param(b"\xef\xbb\xbfs = '\xff'\n", 1, 6, id="after-a-bom"),
        pytest.param(b"x = 1\r\ny = 2\r\nz = '\xff'\r\n", 3, 6, id="crlf"),
        pytest.param(b"x = 1\ry = 2\rz = '\xff'\r", 3, 6, id="lone-cr"),
        pytest.param(b"x = 1\n" * 10 + b"s = '\xc3'\n", 11, 6, id="truncated-sequence"),
    ],
)
def test_decode_invalid_utf8_points_at_the_byte(data: bytes, line: int, column: int) -> None:
    error = decode(data)
    assert isinstance(error, ReadError)
    assert (error.line, error.column) == (line, column)
    assert error.message.startswith("cannot decode as utf-8: byte 0x")


def test_decode_cookie_mismatch_points_at_the_byte() -> None:
    error = decode(b"# coding: ascii\ns = '\xc3\xa9'\n")
    assert error == ReadError(
        2, 6, "cannot decode as ascii: byte 0xc3 is invalid; save the file as UTF-8 or declare its encoding (PEP 263)"
    )


def test_decode_unknown_encoding() -> None:
    assert decode(b"# coding: klingon\nx = 1\n") == ReadError(1, 1, "cannot decode: unknown encoding: klingon")
    assert decode(b"#!/usr/bin/env python\n# coding: klingon\n") == ReadError(
        2, 1, "cannot decode: unknown encoding: klingon"
    )


def test_decode_nul_byte() -> None:
    assert decode(b"x = 1\ny = 'a\x00'\n") == ReadError(2, 7, "cannot parse: NUL byte (the file is binary or corrupt)")
    assert decode("é\r\n\x00".encode()) == ReadError(2, 1, "cannot parse: NUL byte (the file is binary or corrupt)")


def test_decode_keeps_line_endings() -> None:
    assert decode(b"x = 1\r\ny = 2\rz = 3\n") == "x = 1\r\ny = 2\rz = 3\n"


def test_read_source_errors(tmp_path: Path) -> None:
    assert read_source(str(tmp_path / "missing.py")) == ReadError(1, 1, "file not found (deleted or a broken symlink)")
    assert read_source(str(tmp_path)) == ReadError(1, 1, "is a directory, not a file")


# -- through the whole pipeline ------------------------------------------------------


def test_bom_file(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            "test/test_bom.py": b"\xef\xbb\xbf" + UNCLASSIFIED,
            "test/test_bom_accel.py": b"\xef\xbb\xbf" + NON_ASCII.encode(),
            "test/test_bom_syntax.py": b"\xef\xbb\xbfs = 1; x = )\n",
        },
    )
    assert diags(root, "--extend-select", "HWC201") == [
        ("test/test_bom.py", 2, 1, "HWC001"),
        ("test/test_bom_accel.py", 5, 20, "HWC201"),
        ("test/test_bom_syntax.py", 1, 12, "HWC000"),
    ]


def test_unclosed_bracket_column_with_bom_and_cookie(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            "test/test_bom.py": b"\xef\xbb\xbfx = (\n",
            "test/test_latin.py": b"# coding: latin-1\ns = '\xe9\xe9\xe9'; x = (\n",
        },
    )
    found = diags(root)
    assert found == [("test/test_bom.py", 1, 5, "HWC000"), ("test/test_latin.py", 2, 16, "HWC000")]


def test_latin1_cookie_file(tmp_path: Path) -> None:
    root = project(tmp_path, {"test/test_latin.py": b"# -*- coding: latin-1 -*-\n" + NON_ASCII.encode("latin-1")})
    # One line further down (the cookie), the same character column.
    assert diags(root, "--select", "HWC201") == [("test/test_latin.py", 6, 20, "HWC201")]


def test_non_ascii_columns_are_characters(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            "test/test_utf8.py": NON_ASCII.encode(),
            "test/test_syntax.py": 's = "é€"; x = )\n'.encode(),
            "test/test_bad_byte.py": 's = "é€'.encode() + b'\xff"\n',
        },
    )
    assert diags(root, "--extend-select", "HWC201") == [
        ("test/test_bad_byte.py", 1, 8, "HWC000"),
        ("test/test_syntax.py", 1, 15, "HWC000"),
        ("test/test_utf8.py", 5, 20, "HWC201"),
    ]


def test_invalid_utf8_is_hwc000_at_the_byte(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            "test/test_bad.py": UNCLASSIFIED + b"s = 'ok'\nt = 'caf\xe9'\n",
            "test/test_good.py": UNCLASSIFIED,
        },
    )
    assert diags(root) == [("test/test_bad.py", 6, 9, "HWC000"), ("test/test_good.py", 2, 1, "HWC001")]
    assert messages(root)["test/test_bad.py"] == (
        "cannot decode as utf-8: byte 0xe9 is invalid; save the file as UTF-8 or declare its encoding (PEP 263)"
    )


def test_unknown_encoding_is_hwc000(tmp_path: Path) -> None:
    root = project(tmp_path, {"test/test_enc.py": b"#!/usr/bin/env python\n# -*- coding: klingon -*-\n" + UNCLASSIFIED})
    assert diags(root) == [("test/test_enc.py", 2, 1, "HWC000")]
    assert "klingon" in messages(root)["test/test_enc.py"]


def test_nul_byte_is_hwc000(tmp_path: Path) -> None:
    root = project(tmp_path, {"test/test_nul.py": UNCLASSIFIED + b"x = 1\x00\n", "test/test_good.py": UNCLASSIFIED})
    assert diags(root) == [("test/test_good.py", 2, 1, "HWC001"), ("test/test_nul.py", 5, 6, "HWC000")]


@pytest.mark.parametrize("newline", [b"\r\n", b"\r", b"\n"], ids=["crlf", "lone-cr", "lf"])
def test_line_endings(tmp_path: Path, newline: bytes) -> None:
    source = (
        b"import unittest\n\n\n"
        b"class TestA(unittest.TestCase):\n"  # 4:1 HWC001
        b"    def test_a(self):\n        pass\n\n\n"
        b"class TestB(unittest.TestCase):\n"
        b"    hw_classification = HardwareClassification.GENERIC\n\n"
        b"    def test_b(self, device):\n"  # 12:5 HWC102
        b"        pass\n"
        b"x = (\n"  # 14
    )
    root = project(
        tmp_path,
        {
            "test/test_a.py": source[: source.index(b"x = (")].replace(b"\n", newline),
            "test/test_syntax.py": source.replace(b"\n", newline),
            "test/test_mixed.py": b"x = 1\r\ny = 2\rz = 3\nclass TestM(unittest.TestCase):\n    def test_m(self):\n        pass\n",
        },
    )
    assert diags(root) == [
        ("test/test_a.py", 4, 1, "HWC001"),
        ("test/test_a.py", 12, 5, "HWC102"),
        ("test/test_mixed.py", 4, 1, "HWC001"),
        ("test/test_syntax.py", 14, 5, "HWC000"),
    ]


def _run_with_warnings(root: Path, *args: str, warnings: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONWARNINGS": warnings}
    return subprocess.run(
        [sys.executable, "-W", warnings, "-m", "hwlint", "check", "--format", "json", *args],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.mark.parametrize("warnings", ["default", "error"])
def test_syntax_warnings_are_not_printed(tmp_path: Path, warnings: str) -> None:
    source = b'import unittest\nclass TestA(unittest.TestCase):\n    def test_a(self):\n        x = "\\d"\n        assert x is 1\n'
    # 20 files: above the threshold where the process pool is used.
    root = project(tmp_path, {f"test/test_{i:02}.py": source for i in range(20)})
    for jobs in ("1", "2"):
        proc = _run_with_warnings(root, "--jobs", jobs, warnings=warnings)
        assert proc.stderr == ""
        assert proc.returncode == 1
        found = [(d["path"], d["line"], d["column"], d["code"]) for d in json.loads(proc.stdout)]
        assert found == [(f"test/test_{i:02}.py", 2, 1, "HWC001") for i in range(20)]


def test_unreadable_file_chmod(tmp_path: Path) -> None:
    root = project(tmp_path, {"test/test_locked.py": UNCLASSIFIED, "test/test_good.py": UNCLASSIFIED})
    locked = root / "test" / "test_locked.py"
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):
            pytest.skip("running as root (or similar): a chmod 000 file is still readable")
        assert diags(root) == [("test/test_good.py", 2, 1, "HWC001"), ("test/test_locked.py", 1, 1, "HWC000")]
        assert messages(root)["test/test_locked.py"] == "cannot read: Permission denied"
    finally:
        locked.chmod(0o644)


def test_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same as above, wherever the tests run: open() itself refuses."""
    root = project(tmp_path, {"test/test_locked.py": UNCLASSIFIED, "test/test_good.py": UNCLASSIFIED})
    real_open = open

    def refusing_open(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(path).endswith("test_locked.py"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(hwlint.facts.read, "open", refusing_open, raising=False)
    result = lint(root)
    assert [(d.path, d.line, d.column, d.code, d.message) for d in result.diagnostics] == [
        (
            "test/test_good.py",
            2,
            1,
            "HWC001",
            "test class TestA declares no hw_classification: add `hw_classification = "
            "HardwareClassification.GENERIC` (not instantiated per device, no device parameter, no accelerator use)",
        ),
        ("test/test_locked.py", 1, 1, "HWC000", "cannot read: Permission denied"),
    ]
    assert result.files_checked == 2


# Python 3.10's parser accepts a chain of 100,000 operators (its compiler
# then runs out of stack); 3.11's refuses it. hwlint follows the parser, so
# on 3.10 such a file is linted, not HWC000.
_PARSER_310 = pytest.mark.skipif(sys.version_info < (3, 11), reason="Python 3.10's parser accepts 100,000-deep chains")


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(b"x = " + b"(" * 300 + b")" * 300 + b"\n", id="300-parens"),
        pytest.param(b"x = " + b"[" * 100_000 + b"]" * 100_000 + b"\n", id="100k-brackets"),
        pytest.param(b"x = " + b"-" * 100_000 + b"1\n", id="100k-unary"),
        pytest.param(b"x = 1" + b" + 1" * 100_000 + b"\n", id="100k-binop", marks=_PARSER_310),
        pytest.param(b"x = a" + b".b" * 100_000 + b"\n", id="100k-attributes", marks=_PARSER_310),
        pytest.param(
            b"class TestA(TestCase):\n    def test_a(self):\n        y = 1" + b" + 1" * 100_000 + b"\n",
            id="in-a-test",
            marks=_PARSER_310,
        ),
        pytest.param(b"".join(b" " * i + b"if x:\n" for i in range(150)) + b" " * 150 + b"pass\n", id="150-ifs"),
    ],
)
def test_deep_nesting_is_hwc000_not_a_crash(tmp_path: Path, source: bytes) -> None:
    root = project(tmp_path, {"test/test_deep.py": source, "test/test_good.py": UNCLASSIFIED})
    proc = run_cli("check", "--format", "json", cwd=root)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and proc.stderr == ""
    found = [(d["path"], d["code"]) for d in json.loads(proc.stdout)]
    assert found == [("test/test_deep.py", "HWC000"), ("test/test_good.py", "HWC001")]


@settings(max_examples=400, deadline=None, derandomize=True)
@given(
    st.binary(max_size=40),
    st.sampled_from([b"", b"# -*- coding: latin-1 -*-\n", b"\xef\xbb\xbf", b"#!/x\n"]),
    st.binary(max_size=20),
)
def test_decode_without_tokenize_agrees_with_tokenize(head: bytes, prefix: bytes, tail: bytes) -> None:
    """decode skips tokenize.detect_encoding when lines 1-2 are ASCII without
    "coding": it must give what the detect_encoding path gives."""
    data = prefix + head + b"\n" + tail
    assert decode(data) == _decode_via_tokenize(data)


def _decode_via_tokenize(data: bytes) -> object:
    detected = hwlint.facts.read._detect_encoding(data)
    if isinstance(detected, ReadError):
        return detected
    try:
        text = data.decode(detected)
    except UnicodeDecodeError as exc:
        return hwlint.facts.read._decode_error(data, exc, detected)
    nul = text.find("\0")
    if nul != -1:
        return decode(data)  # NUL handling is the same code on both paths
    return text
