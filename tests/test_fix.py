"""`hwlint fix`: inference, placement, imports, and never a corrupt file."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests.conftest import lint, run_cli, write_project

HEADER = "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n\n"


def fixed(
    tmp_path: Path, source: str, *args: str, settings: dict | None = None, name: str = "test/test_x.py"
) -> tuple[str, str, int]:
    root = write_project(tmp_path / "proj", {name: source}, settings)
    proc = run_cli("fix", *args, cwd=root)
    return (root / name).read_text(), proc.stderr, proc.returncode


# -- inference -------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "member"),
    [
        (
            "class TestA(TestCase):\n    def test_a(self, device): pass\n\ninstantiate_device_type_tests(TestA, globals())\n",
            "ACCELERATOR",
        ),
        (
            "class TestA(TestCase):\n    def test_a(self, device): pass\n\ninstantiate_device_type_tests(TestA, globals(), only_for='cuda')\n",
            "CUDA",
        ),
        (
            "class TestA(TestCase):\n    def test_a(self, device): pass\n\ninstantiate_device_type_tests(TestA, globals(), only_for=['xpu'], allow_xpu=True)\n",
            "XPU",
        ),
        ("class TestA(TestCase):\n    def test_a(self): pass\n", "GENERIC"),
    ],
)
def test_safe_inference(tmp_path: Path, source: str, member: str) -> None:
    text, err, code = fixed(tmp_path, HEADER + source)
    assert f"    hw_classification = HardwareClassification.{member}\n" in text
    assert code == 0 and f"Classified 1 class in 1 file ({member} 1)." in err


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        (
            "class TestA(TestCase):\n    def test_a(self, device): pass\n\ninstantiate_device_type_tests(TestA, globals(), only_for=('cpu', 'cuda'))\n",
            "instantiated with only_for for several or computed devices",
        ),
        (
            "class TestA(TestCase):\n    def test_a(self, device): pass\n",
            "test methods take a device (test_a) but the class is never instantiated",
        ),
        (
            "class TestA(TestCase):\n    def test_a(self):\n"
            "        if TEST_CUDA and TEST_XPU: torch.cuda.synchronize(); torch.xpu.synchronize()\n",
            "the class probes or uses accelerators",
        ),
        # A branch on an accelerator that changes nothing without one: GENERIC, but only with --unsafe.
        (
            "class TestA(TestCase):\n    def test_a(self):\n        if TEST_CUDA and TEST_XPU: pass\n",
            "1 unsafe fix to GENERIC: apply with --unsafe",
        ),
    ],
)
def test_no_fix_without_clear_evidence(tmp_path: Path, source: str, reason: str) -> None:
    text, err, code = fixed(tmp_path, HEADER + source)
    assert text == HEADER + source
    assert code == 1 and "1 class needs a human, by reason:" in err and reason in err


def test_unsafe_fix_needs_the_flag(tmp_path: Path) -> None:
    source = HEADER + (
        "@unittest.skipIf(not TEST_CUDA, 'needs CUDA')\nclass TestA(TestCase):\n"
        "    def test_a(self):\n        x = torch.ones(2).cuda()\n"
    )
    text, err, code = fixed(tmp_path, source)
    assert text == source and code == 1
    assert "unsafe fix to CUDA (every accelerator use in the class is CUDA): apply with --unsafe" in err
    text, err, code = fixed(tmp_path, source, "--unsafe")
    # Declared CUDA, not made device-generic (its class skip names CUDA, and
    # every device class would inherit it), and so instantiated only_for="cuda",
    # its test taking `device`, as TEST_LINTER requires of a CUDA class.
    assert "    hw_classification = HardwareClassification.CUDA\n" in text and code == 0
    assert "    def test_a(self, device):\n" in text
    assert text.endswith('\n\ninstantiate_device_type_tests(TestA, globals(), only_for="cuda")\n')
    assert (
        "TestA: `@unittest.skipIf(not TEST_CUDA, 'needs CUDA')` (line 4) names a device, and every device class "
        "would inherit the skip: a class of that device\n"
    ) in err


# -- placement -------------------------------------------------------------


def test_after_docstring_mirroring_blank_lines(tmp_path: Path) -> None:
    source = HEADER + 'class TestA(TestCase):\n    """Doc."""\n\n    def test_a(self):\n        pass\n'
    text, _, _ = fixed(tmp_path, source)
    assert text == HEADER + (
        'class TestA(TestCase):\n    """Doc."""\n\n    hw_classification = HardwareClassification.GENERIC\n\n'
        "    def test_a(self):\n        pass\n"
    )


def test_without_docstring_comment_stays_with_its_method(tmp_path: Path) -> None:
    source = HEADER + "class TestA(TestCase):\n    # about test_a\n    def test_a(self):\n        pass\n"
    text, _, _ = fixed(tmp_path, source)
    assert text == HEADER + (
        "class TestA(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
        "    # about test_a\n    def test_a(self):\n        pass\n"
    )


def test_tabs_and_two_space_indentation(tmp_path: Path) -> None:
    tabs = HEADER + "if True:\n\tclass TestA(TestCase):\n\t\tdef test_a(self):\n\t\t\tpass\n"
    text, _, _ = fixed(tmp_path / "tabs", tabs)
    assert "\tclass TestA(TestCase):\n\t\thw_classification = HardwareClassification.GENERIC\n\n\t\tdef test_a" in text
    two = HEADER + "class TestA(TestCase):\n  x = 1\n  def test_a(self):\n    pass\n"
    text, _, _ = fixed(tmp_path / "two", two)
    assert "class TestA(TestCase):\n  hw_classification = HardwareClassification.GENERIC\n  x = 1\n" in text


def test_one_line_body(tmp_path: Path) -> None:
    source = (
        HEADER
        + "class Base(TestCase):\n    def test_a(self): pass\n    hw_classification = HardwareClassification.GENERIC\n\nclass TestB(Base): pass  # keep me\n"
    )
    text, _, code = fixed(tmp_path, source, settings={"inheritance": "explicit"})
    # Explicit inheritance: TestB has no tests of its own, nothing to fix.
    assert text == source and code == 0
    source = HEADER + "from common import Base\n\nclass TestB(Base): pass  # keep me\n"
    root = write_project(
        tmp_path / "one",
        {"test/test_x.py": source, "test/common.py": "class Base(TestCase):\n    def test_a(self): pass\n"},
    )
    run_cli("fix", cwd=root)
    assert (
        (root / "test/test_x.py")
        .read_text()
        .endswith("class TestB(Base):\n    hw_classification = HardwareClassification.GENERIC\n    pass  # keep me\n")
    )


def test_same_name_in_alternative_branches(tmp_path: Path) -> None:
    source = HEADER + (
        "if IS_WINDOWS:\n    class TestA(TestCase):\n        def test_a(self): pass\n"
        "else:\n    class TestA(TestCase):\n        def test_a(self, device): pass\n\n"
        "    instantiate_device_type_tests(TestA, globals())\n"
    )
    text, err, _ = fixed(tmp_path, source)
    # Both definitions are TestA; the instantiation makes both ACCELERATOR
    # candidates, but the first's test takes no device: only the second is
    # safe, and the declaration goes into it, not into its namesake.
    assert text == source.replace(
        "    class TestA(TestCase):\n        def test_a(self, device)",
        "    class TestA(TestCase):\n        hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "        def test_a(self, device)",
    )
    assert "test/test_x.py:4: TestA: not safe: ACCELERATOR, but 1 test takes no device (HWC102)" in err
    text, err, _ = fixed(tmp_path, source, "--unsafe")
    assert text.count("hw_classification = HardwareClassification.ACCELERATOR") == 2


# -- imports ---------------------------------------------------------------

CLASS = "\n\nclass TestA(TestCase):\n    def test_a(self): pass\n"


@pytest.mark.parametrize(
    ("imports", "expected"),
    [
        (
            "from torch.testing._internal.common_utils import TestCase",
            "from torch.testing._internal.common_utils import TestCase, HardwareClassification",
        ),
        (
            "from torch.testing._internal.common_utils import (\n    TestCase,\n    run_tests,\n)",
            "from torch.testing._internal.common_utils import (\n    TestCase,\n    run_tests,\n    HardwareClassification,\n)",
        ),
        (
            "from torch.testing._internal.common_utils import (TestCase,\n    run_tests)",
            "from torch.testing._internal.common_utils import (TestCase,\n    run_tests,\n    HardwareClassification)",
        ),
        (
            "import torch\nfrom common import TestCase",
            "import torch\nfrom common import TestCase\nfrom torch.testing._internal.common_utils import HardwareClassification",
        ),
        ("from torch.testing._internal.common_utils import *", "from torch.testing._internal.common_utils import *"),
    ],
)
def test_import_merge(tmp_path: Path, imports: str, expected: str) -> None:
    text, _, code = fixed(tmp_path, imports + CLASS)
    assert code == 0
    assert text.startswith(
        expected
        + CLASS.replace("TestCase):\n", "TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n", 1)
    )


def test_alias_import_is_used(tmp_path: Path) -> None:
    source = "from torch.testing._internal.common_utils import HardwareClassification as HC, TestCase" + CLASS
    text, _, _ = fixed(tmp_path, source)
    assert "    hw_classification = HC.GENERIC\n" in text and text.count("import") == 1


def test_no_imports_at_all_goes_after_the_docstring(tmp_path: Path) -> None:
    text, _, _ = fixed(tmp_path, '"""Tests."""' + CLASS)
    assert text.startswith('"""Tests."""\nfrom torch.testing._internal.common_utils import HardwareClassification\n')


def test_import_from_is_configurable(tmp_path: Path) -> None:
    text, _, _ = fixed(tmp_path, "import os" + CLASS, settings={"import-from": "mytests.hw", "enum": "HW"})
    assert "from mytests.hw import HW\n" in text and "hw_classification = HW.GENERIC" in text


# -- command behaviour -----------------------------------------------------


def test_diff_writes_nothing(tmp_path: Path) -> None:
    source = HEADER + "class TestA(TestCase):\n    def test_a(self): pass\n"
    root = write_project(tmp_path / "p", {"test/test_x.py": source})
    proc = run_cli("fix", "--diff", cwd=root)
    assert proc.returncode == 1
    assert proc.stdout == (
        "--- a/test/test_x.py\n+++ b/test/test_x.py\n@@ -1,4 +1,6 @@\n"
        " from torch.testing._internal.common_utils import HardwareClassification, TestCase\n \n"
        " class TestA(TestCase):\n+    hw_classification = HardwareClassification.GENERIC\n+\n"
        "     def test_a(self): pass\n"
    )
    assert "Would classify 1 class in 1 file (GENERIC 1)." in proc.stderr
    assert (root / "test/test_x.py").read_text() == source


def test_class_filter_and_second_run_is_a_noop(tmp_path: Path) -> None:
    source = (
        HEADER
        + "class TestA(TestCase):\n    def test_a(self): pass\n\nclass TestB(TestCase):\n    def test_b(self): pass\n"
    )
    root = write_project(tmp_path / "p", {"test/test_x.py": source})
    run_cli("fix", "--class", "TestB", cwd=root)
    text = (root / "test/test_x.py").read_text()
    assert text.count("hw_classification") == 1 and text.index("hw_classification") > text.index("class TestB")
    assert run_cli("fix", cwd=root).returncode == 0
    once = (root / "test/test_x.py").read_bytes()
    again = run_cli("fix", cwd=root)
    assert again.returncode == 0 and "Classified 0 classes in 0 files." in again.stderr
    assert (root / "test/test_x.py").read_bytes() == once
    assert lint(root).diagnostics == []


@pytest.mark.parametrize(
    "raw",
    [
        b"\xef\xbb\xbfclass TestA(TestCase):\r\n    def test_a(self):\r\n        pass\r\n",
        b"# -*- coding: latin-1 -*-\nclass TestA(TestCase):\n    def test_a(self):\n        x = '\xe9'\n",
        b"class TestA(TestCase):\n\tdef test_a(self):\n\t\tpass\n",
    ],
    ids=["bom-crlf", "latin-1", "tabs"],
)
def test_encoding_bom_newlines_and_permissions_are_kept(tmp_path: Path, raw: bytes) -> None:
    root = write_project(tmp_path / "p", {})
    path = root / "test" / "test_x.py"
    path.parent.mkdir()
    path.write_bytes(raw)
    os.chmod(path, 0o640)
    assert run_cli("fix", cwd=root).returncode == 0
    out = path.read_bytes()
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert out.startswith(b"\xef\xbb\xbf") == raw.startswith(b"\xef\xbb\xbf")
    newline = b"\r\n" if b"\r\n" in raw else b"\n"
    assert out.count(b"\r\n") == (out.count(b"\n") if newline == b"\r\n" else 0)
    if b"latin-1" in raw:
        assert b"x = '\xe9'" in out
    # Only lines were added.
    old_lines = raw.removeprefix(b"\xef\xbb\xbf").splitlines()
    new_lines = out.removeprefix(b"\xef\xbb\xbf").splitlines()
    it = iter(new_lines)
    assert all(any(line == candidate for candidate in it) for line in old_lines)
    assert lint(root).diagnostics == []


def test_allowlisted_files_are_fixed(tmp_path: Path) -> None:
    source = HEADER + "class TestA(TestCase):\n    def test_a(self): pass\n"
    two = source + "\nclass TestB(TestCase):\n    def test_b(self, device): pass\n"
    root = write_project(
        tmp_path / "p",
        {"test/test_x.py": source, "test/test_y.py": two},
        allowlist="test/test_x.py 1\ntest/test_y.py 2\n",
    )
    proc = run_cli("fix", cwd=root)
    # TestB needs a human, but its file is allowlisted within its budget:
    # `hwlint check` passes, so fix does too (the pre-commit hooks agree).
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        "`hwlint check` passes: the classes left are in allowlisted files, within their budgets"
    )
    assert "hw_classification = HardwareClassification.GENERIC" in (root / "test/test_x.py").read_text()
    # The clean file left the list; the other's budget dropped to what is left.
    assert (root / "allowlist.txt").read_text() == "test/test_y.py 1\n"
    assert proc.stderr.splitlines()[:2] == [
        "Classified 2 classes in 2 files (GENERIC 2).",
        "Pruned allowlist.txt: 1 removed, 1 lowered; 1 entry.",
    ]


def test_a_fix_that_would_not_parse_or_misclassify_is_never_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hwlint.fix.apply as fix_module
    from hwlint.fix.apply import fix_file, write_fixed
    from hwlint.fix.plan import plan_fixes

    source = HEADER + "class TestA(TestCase):\n    def test_a(self): pass\n"
    root = write_project(tmp_path / "p", {"test/test_x.py": source})
    result = lint(root)
    (plan,), _ = plan_fixes(result)
    facts = result.contexts[0].facts
    for broken, reason in [
        (b"class TestA(TestCase:\n", "the fixed file does not parse"),
        (source.encode(), "TestA does not end up classified GENERIC"),
        (source.replace("TestA", "TestB").encode(), "the fixed file's classes differ"),
    ]:
        monkeypatch.setattr(fix_module, "fix_source", lambda data, fixes, config, out=broken: out)
        outcome = fix_file(root, plan, facts, result.config)
        assert outcome.fixed is None and outcome.error is not None and reason in outcome.error
        assert write_fixed(root, outcome) is None
        assert (root / "test/test_x.py").read_text() == source


def test_file_changed_meanwhile_is_not_overwritten(tmp_path: Path) -> None:
    from hwlint.fix.apply import fix_file, write_fixed
    from hwlint.fix.plan import plan_fixes

    source = HEADER + "class TestA(TestCase):\n    def test_a(self): pass\n"
    root = write_project(tmp_path / "p", {"test/test_x.py": source})
    result = lint(root)
    (plan,), _ = plan_fixes(result)
    outcome = fix_file(root, plan, result.contexts[0].facts, result.config)
    (root / "test/test_x.py").write_text(source + "# edited\n")
    assert write_fixed(root, outcome) == "the file changed while it was being fixed: run hwlint fix again"
    assert (root / "test/test_x.py").read_text() == source + "# edited\n"


def test_module_level_accelerator_use_makes_the_fix_unsafe_and_the_class_that_devices(tmp_path: Path) -> None:
    source = (
        HEADER
        + 'device = torch.device("xpu")\n\nclass TestA(TestCase):\n    def test_a(self):\n        torch.ones(2, device=device)\n\n'
        "instantiate_device_type_tests(TestB, globals(), only_for='cuda')\n"
    )
    text, err, code = fixed(tmp_path, source)
    assert text == source and code == 1
    assert (
        "unsafe fix to XPU (every accelerator use in the class is XPU: it reaches device, bound to xpu at module "
        "level (line 3))"
    ) in err


def test_parallel_fix_equals_serial_fix(tmp_path: Path) -> None:
    files = {
        f"test/d{n % 3}/test_{n}.py": HEADER + f"class Test{n}(TestCase):\n    def test_a(self): pass\n"
        for n in range(12)
    }
    serial = write_project(tmp_path / "serial", files)
    parallel = write_project(tmp_path / "parallel", files)
    one = run_cli("fix", "--jobs", "1", cwd=serial)
    two = run_cli("fix", "--jobs", "2", cwd=parallel)
    assert one.returncode == two.returncode == 0
    assert one.stderr == two.stderr == "Classified 12 classes in 12 files (GENERIC 12).\n"
    for rel in files:
        assert (serial / rel).read_bytes() == (parallel / rel).read_bytes() != files[rel].encode()


# -- HWC002: a string naming a member --------------------------------------


def test_a_string_naming_a_member_becomes_the_member(tmp_path: Path) -> None:
    # A device class as its rules want it (instantiated for its device, tests
    # taking `device`): the member surfaces nothing, so the fix is safe.
    generic = "\n    def test_a(self):\n        pass\n"
    cpu = "\n    def test_a(self, device):\n        pass\n\n\ninstantiate_device_type_tests(TestA, globals(), only_for='cpu')\n"
    cases = [
        ('    hw_classification = "GENERIC"\n', "    hw_classification = HardwareClassification.GENERIC\n", generic),
        ("    hw_classification = 'CPU'\n", "    hw_classification = HardwareClassification.CPU\n", cpu),
        (
            '    hw_classification: HardwareClassification = "GENERIC"\n',
            "    hw_classification: HardwareClassification = HardwareClassification.GENERIC\n",
            generic,
        ),
        (
            '    hw_classification = "XPU"  # the old way\n',
            "    hw_classification = HardwareClassification.XPU  # the old way\n",
            cpu.replace("'cpu')", "'xpu', allow_xpu=True)"),
        ),
        (
            '    hw_classification = ("MPS")\n',
            "    hw_classification = (HardwareClassification.MPS)\n",
            cpu.replace("'cpu')", "'mps', allow_mps=True)"),
        ),
        (
            "    if True:\n        hw_classification = \"GEN\" 'ERIC'\n",
            "    if True:\n        hw_classification = HardwareClassification.GENERIC\n",
            generic,
        ),
    ]
    for index, (declaration, expected, rest) in enumerate(cases):
        source = HEADER + "class TestA(TestCase):\n" + declaration + rest
        text, err, code = fixed(tmp_path / str(index), source)
        assert text == source.replace(declaration, expected), declaration
        assert code == 0 and "Fixed 1 string declaration in 1 file (" in err, (declaration, err)


def test_a_module_level_string_becomes_the_member(tmp_path: Path) -> None:
    source = (
        HEADER
        + "class TestA(TestCase):\n    def test_a(self): pass\n\n\nTestA.hw_classification = 'GENERIC'  # set after\n"
    )
    text, err, code = fixed(tmp_path / "plain", source)
    assert text == source.replace("'GENERIC'", "HardwareClassification.GENERIC")
    assert code == 0 and err == "Fixed 1 string declaration in 1 file (GENERIC 1).\n"
    # In a loop, TestB also declares it in its body: its second declaration
    # is still reported (a human keeps one), but the string is gone.
    loop = HEADER + (
        "class TestA(TestCase):\n    def test_a(self): pass\n\n"
        "class TestB(TestCase):\n    hw_classification = HardwareClassification.CPU\n    def test_b(self): pass\n\n"
        'for cls in (TestA, TestB):\n    cls.hw_classification = "GENERIC"\n'
    )
    text, err, code = fixed(tmp_path / "loop", loop)
    assert text == loop.replace('"GENERIC"', "HardwareClassification.GENERIC")
    assert code == 1 and "Fixed 1 string declaration in 1 file (GENERIC 1)." in err
    assert "test/test_x.py:11: TestB: hw_classification of TestB is declared twice (first at line 7): keep one" in err


def test_a_string_naming_an_alias_keeps_the_alias(tmp_path: Path) -> None:
    source = HEADER + (
        "class TestA(TestCase):\n    hw_classification = 'DEVICE_GENERIC'\n    def test_a(self, device): pass\n\n"
        "instantiate_device_type_tests(TestA, globals())\n"
    )
    text, err, code = fixed(tmp_path, source, settings={"aliases": {"DEVICE_GENERIC": "ACCELERATOR"}})
    assert text == source.replace("'DEVICE_GENERIC'", "HardwareClassification.DEVICE_GENERIC")
    assert code == 0 and err == "Fixed 1 string declaration in 1 file (ACCELERATOR 1).\n"


def test_a_string_in_another_case_needs_unsafe(tmp_path: Path) -> None:
    source = HEADER + "class TestA(TestCase):\n    hw_classification = 'generic'\n    def test_a(self): pass\n"
    text, err, code = fixed(tmp_path, source)
    assert text == source and code == 1
    assert (
        "test/test_x.py:4: TestA: unsafe fix to GENERIC (the string matches GENERIC only when case is ignored): "
        "apply with --unsafe"
    ) in err
    text, err, code = fixed(tmp_path, source, "--unsafe")
    assert text == source.replace("'generic'", "HardwareClassification.GENERIC") and code == 0


def test_an_unknown_string_is_left_with_the_reason(tmp_path: Path) -> None:
    source = HEADER + "class TestA(TestCase):\n    hw_classification = 'GPU'\n    def test_a(self): pass\n"
    text, err, code = fixed(tmp_path, source, "--unsafe")
    assert text == source and code == 1
    assert err == (
        "Classified 0 classes in 0 files.\n1 class needs a human, by reason:\n"
        "  1 an invalid declaration: write the member (e.g. test/test_x.py:4 TestA)\nEach class:\n"
        "  test/test_x.py:4: TestA: the string 'GPU' is not a member: use HardwareClassification.<GENERIC|ACCELERATOR|CPU|CUDA|MPS|XPU>\n"
        # The exit status is check's, and the hook's output says why.
        "test/test_x.py:4:5: HWC002 invalid hw_classification for TestA: the string 'GPU' is not a member: use "
        "HardwareClassification.<GENERIC|ACCELERATOR|CPU|CUDA|MPS|XPU>\n"
        "`hwlint check` fails on the project: 1 error\n"
    )


STRING_CLASS = "\n\nclass TestA(TestCase):\n    hw_classification = 'GENERIC'\n    def test_a(self): pass\n"


@pytest.mark.parametrize(
    ("imports", "expected_imports", "enum"),
    [
        (
            "from torch.testing._internal.common_utils import TestCase",
            "from torch.testing._internal.common_utils import TestCase, HardwareClassification",
            "HardwareClassification",
        ),
        (
            "from torch.testing._internal.common_utils import (\n    TestCase,\n)",
            "from torch.testing._internal.common_utils import (\n    TestCase,\n    HardwareClassification,\n)",
            "HardwareClassification",
        ),
        (
            "import unittest",
            "import unittest\nfrom torch.testing._internal.common_utils import HardwareClassification",
            "HardwareClassification",
        ),
        (
            "from torch.testing._internal.common_utils import HardwareClassification as HC, TestCase",
            "from torch.testing._internal.common_utils import HardwareClassification as HC, TestCase",
            "HC",
        ),
    ],
)
def test_string_fix_adds_or_merges_the_import(tmp_path: Path, imports: str, expected_imports: str, enum: str) -> None:
    text, _, code = fixed(tmp_path, imports + STRING_CLASS)
    assert code == 0
    assert text == expected_imports + STRING_CLASS.replace("'GENERIC'", f"{enum}.GENERIC")


def test_json_fix_field_of_invalid_classification(tmp_path: Path) -> None:
    source = HEADER + "".join(
        f"class Test{name}(TestCase):\n    hw_classification = {value}\n    def test_a(self): pass\n\n"
        for name, value in [("Member", "'CPU'"), ("Alias", '"DEVICE_GENERIC"'), ("Case", "'Xpu'"), ("Unknown", "'GPU'")]
    )
    root = write_project(tmp_path / "p", {"test/test_x.py": source}, {"aliases": {"DEVICE_GENERIC": "ACCELERATOR"}})
    proc = run_cli("check", "--format", "json", "--select", "HWC002", cwd=root)
    items = {d["class_name"]: d for d in json.loads(proc.stdout)}
    assert {name: d["fix"] for name, d in items.items()} == {
        "TestMember": {
            "applicability": "safe",
            "classification": "CPU",
            "evidence": "the string names the member",
            "member": "CPU",
        },
        "TestAlias": {
            "applicability": "safe",
            "classification": "ACCELERATOR",
            "evidence": "the string names an alias of ACCELERATOR",
            "member": "DEVICE_GENERIC",
        },
        "TestCase": {
            "applicability": "unsafe",
            "classification": "XPU",
            "evidence": "the string matches XPU only when case is ignored",
            "member": "XPU",
        },
        "TestUnknown": None,
    }
    assert items["TestMember"]["message"] == (
        "invalid hw_classification for TestMember: the string 'CPU' is not a member: "
        "use HardwareClassification.CPU (the string names the member)"
    )
    assert items["TestUnknown"]["message"].endswith("use HardwareClassification.<GENERIC|ACCELERATOR|CPU|CUDA|MPS|XPU>")


def test_string_fix_second_run_changes_nothing(tmp_path: Path) -> None:
    source = HEADER + "class TestA(TestCase):\n    hw_classification = 'GENERIC'\n    def test_a(self): pass\n"
    root = write_project(tmp_path / "p", {"test/test_x.py": source})
    assert run_cli("fix", cwd=root).returncode == 0
    once = (root / "test/test_x.py").read_bytes()
    again = run_cli("fix", cwd=root)
    assert again.returncode == 0 and again.stderr == "Classified 0 classes in 0 files.\n"
    assert (root / "test/test_x.py").read_bytes() == once
    assert lint(root).diagnostics == []


BOTH = "from torch.testing._internal.common_utils import TestCase\n\n" + (
    "class TestA(TestCase):\n    def test_a(self): pass\n\n"
    'class TestB(TestCase):\n    hw_classification = "CPU"  # keep\n    def test_b(self, device): pass\n\n'
    "instantiate_device_type_tests(TestB, globals(), only_for='cpu')\n"
)
BOTH_FIXED = "from torch.testing._internal.common_utils import TestCase, HardwareClassification\n\n" + (
    "class TestA(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n    def test_a(self): pass\n\n"
    "class TestB(TestCase):\n    hw_classification = HardwareClassification.CPU  # keep\n    def test_b(self, device): pass\n\n"
    "instantiate_device_type_tests(TestB, globals(), only_for='cpu')\n"
)


def test_a_missing_and_a_string_declaration_in_one_file(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", {"test/test_x.py": BOTH})
    diff = run_cli("fix", "--diff", cwd=root)
    assert (
        diff.returncode == 1
        and "Would classify 1 class and fix 1 string declaration in 1 file (CPU 1, GENERIC 1)." in diff.stderr
    )
    assert (root / "test/test_x.py").read_text() == BOTH
    proc = run_cli("fix", cwd=root)
    assert (
        proc.returncode == 0
        and proc.stderr == "Classified 1 class and fixed 1 string declaration in 1 file (CPU 1, GENERIC 1).\n"
    )
    assert (root / "test/test_x.py").read_text() == BOTH_FIXED
    assert lint(root).diagnostics == []


@pytest.mark.parametrize(
    ("select", "expected"),
    [
        (
            "HWC002",
            BOTH.replace('"CPU"', "HardwareClassification.CPU").replace(
                "import TestCase\n", "import TestCase, HardwareClassification\n", 1
            ),
        ),
        ("HWC001", BOTH_FIXED.replace("HardwareClassification.CPU", '"CPU"')),
        ("HWC0", BOTH_FIXED),
    ],
)
def test_select_chooses_which_fixes(tmp_path: Path, select: str, expected: str) -> None:
    text, _, code = fixed(tmp_path, BOTH, "--select", select)
    # With one of the two rules, the other class is left: `hwlint check`
    # still fails, and so does fix.
    assert text == expected and code == (0 if select == "HWC0" else 1)


def test_select_without_fixable_rules(tmp_path: Path) -> None:
    text, err, code = fixed(tmp_path, BOTH, "--select", "HWC1")
    assert text == BOTH and code == 0
    assert err == "hwlint: nothing to fix for the selected rules (fixes exist for HWC001, HWC002, HWC003, HWC201)\n"


def test_string_fix_positions_with_tabs_non_ascii_and_crlf(tmp_path: Path) -> None:
    raw = "class TestA(TestCase):\r\n\tx = 'é'; hw_classification = 'GENERIC'\r\n\tdef test_a(self):\r\n\t\tpass\r\n".encode()
    root = write_project(tmp_path / "p", {})
    path = root / "test" / "test_x.py"
    path.parent.mkdir()
    path.write_bytes(raw)
    assert run_cli("fix", cwd=root).returncode == 0
    assert (
        path.read_bytes()
        == (
            "from torch.testing._internal.common_utils import HardwareClassification\r\n"
            + raw.decode().replace("'GENERIC'", "HardwareClassification.GENERIC")
        ).encode()
    )


def test_check_fix_applies_string_fixes(tmp_path: Path) -> None:
    source = HEADER + "class TestA(TestCase):\n    hw_classification = 'GENERIC'\n    def test_a(self): pass\n"
    root = write_project(tmp_path / "p", {"test/test_x.py": source})
    proc = run_cli("check", "--fix", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (root / "test/test_x.py").read_text() == source.replace("'GENERIC'", "HardwareClassification.GENERIC")


def test_a_string_fix_that_would_misclassify_is_never_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import hwlint.fix.apply as fix_module
    from hwlint.fix.apply import fix_file, write_fixed
    from hwlint.fix.plan import plan_fixes

    source = (
        HEADER
        + "class TestA(TestCase):\n    hw_classification = 'GENERIC'\n    def test_a(self): pass\n\nclass TestB(TestCase):\n"
        "    hw_classification = HardwareClassification.CPU\n    def test_b(self): pass\n"
    )
    root = write_project(tmp_path / "p", {"test/test_x.py": source})
    result = lint(root)
    (plan,), _ = plan_fixes(result)
    assert [(f.code, f.class_name, f.line, f.column, f.name, f.text) for f in plan.fixes] == [
        ("HWC002", "TestA", 4, 5, "GENERIC", "GENERIC")
    ]
    facts = result.contexts[0].facts
    for broken, reason in [
        (source.encode(), "the declaration of TestA at line 4 does not end up HardwareClassification.GENERIC"),
        (
            source.replace("'GENERIC'", "HardwareClassification.CPU").encode(),
            "does not end up HardwareClassification.GENERIC",
        ),
        (
            source.replace("'GENERIC'", "HardwareClassification.GENERIC").replace(".CPU", ".XPU").encode(),
            "the fix changed TestB, which it should not touch",
        ),
    ]:
        monkeypatch.setattr(fix_module, "fix_source", lambda data, fixes, config, out=broken: out)
        outcome = fix_file(root, plan, facts, result.config)
        assert outcome.fixed is None and outcome.error is not None and reason in outcome.error
        assert write_fixed(root, outcome) is None
        assert (root / "test/test_x.py").read_text() == source


def test_string_fix_refuses_a_declaration_not_where_the_facts_say(tmp_path: Path) -> None:
    from hwlint.fix.plan import plan_fixes
    from hwlint.fix.result import FixError
    from hwlint.fix.transform import fix_source

    source = HEADER + "class TestA(TestCase):\n    hw_classification = 'GENERIC'\n    def test_a(self): pass\n"
    root = write_project(tmp_path / "p", {"test/test_x.py": source})
    result = lint(root)
    (plan,), _ = plan_fixes(result)
    with pytest.raises(FixError, match="the declaration of TestA at line 4 is not the string 'GENERIC'"):
        fix_source(source.replace("'GENERIC'", "'CPU'    ").encode(), plan.fixes, result.config)
    with pytest.raises(FixError, match="the declaration of TestA at line 4 not found"):
        fix_source(
            source.replace("    hw_classification", "    #\n    hw_classification").encode(), plan.fixes, result.config
        )


def test_a_libcst_failure_writing_the_fixed_module_is_a_fix_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The fixed module's code is generated once, with no round trip before
    # it: libcst failing there on odd input must still be one line, not a
    # traceback.
    import libcst

    from hwlint.fix.plan import plan_fixes
    from hwlint.fix.result import FixError
    from hwlint.fix.transform import fix_source

    source = HEADER + "class TestA(TestCase):\n    def test_a(self): pass\n"
    root = write_project(tmp_path / "p", {"test/test_x.py": source})
    result = lint(root)
    (plan,), _ = plan_fixes(result)

    def broken(self: libcst.Module) -> bytes:
        raise ValueError("odd input")

    monkeypatch.setattr(libcst.Module, "bytes", property(broken))
    with pytest.raises(FixError, match="^libcst cannot parse the file: ValueError: odd input$"):
        fix_source(source.encode(), plan.fixes, result.config)


def test_lintrunner_replacement_for_string_fixes(tmp_path: Path) -> None:
    source = HEADER + (
        "class TestA(TestCase):\n    hw_classification = 'GENERIC'\n    def test_a(self): pass\n\n"
        "class TestB(TestCase):\n    hw_classification = 'GPU'\n    def test_b(self): pass\n"
    )
    root = write_project(tmp_path / "p", {"test/test_x.py": source})
    proc = run_cli("lintrunner", "test/test_x.py", cwd=root)
    messages = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [(m["line"], m["name"], m["original"] is not None) for m in messages] == [
        (4, "HWC002 invalid-classification", True),
        (8, "HWC002 invalid-classification", False),
    ]
    assert messages[0]["original"] == source
    assert messages[0]["replacement"] == source.replace("'GENERIC'", "HardwareClassification.GENERIC")
    assert messages[1]["replacement"] is None


def test_string_fix_leaves_strings_in_methods_alone(tmp_path: Path) -> None:
    source = HEADER + (
        "class TestA(TestCase):\n    hw_classification = 'GENERIC'\n\n"
        "    def test_a(self):\n        hw_classification = 'CPU'\n        self.hw_classification = 'CPU'\n"
    )
    text, _, code = fixed(tmp_path, source)
    assert code == 0 and text == source.replace("'GENERIC'", "HardwareClassification.GENERIC")


# -- typed fixes -------------------------------------------------------------


def test_typed_fixes_survive_the_whole_tree_memo(tmp_path: Path) -> None:
    """A warm whole-tree run rebuilds its diagnostics from the cache's memo
    (marshal, plain tuples): the fixes come back typed and `fix` acts alike."""
    import marshal

    from hwlint.core.config import load_config
    from hwlint.core.diagnostics import Fix, NotFixable
    from hwlint.engine.cached import _decode_diagnostic, _encode_diagnostic
    from hwlint.fix.apply import apply_fixes

    root = write_project(
        tmp_path / "proj",
        {
            "test/test_a.py": "class TestA(TestCase):\n    def test_a(self): pass\n",
            "test/test_b.py": "class TestB(TestCase):\n    hw_classification = 'generic'\n    def test_b(self): pass\n",
            "test/test_c.py": "class TestC(TestCase):\n    def test_c(self, device): pass\n",
        },
    )
    cache = tmp_path / "cache"
    cold = lint(root, cache=cache)
    warm = lint(root, cache=cache)
    fixes = [d.fix for d in cold.diagnostics]
    assert [type(f) for f in fixes] == [Fix, Fix, NotFixable]
    assert [d.fix for d in warm.diagnostics] == fixes
    assert [type(d.fix) for d in warm.diagnostics] == [Fix, Fix, NotFixable]
    for d in cold.diagnostics:
        again = _decode_diagnostic(marshal.loads(marshal.dumps(_encode_diagnostic(d))))
        assert (again.to_dict(), type(again.fix)) == (d.to_dict(), type(d.fix))
    config = load_config(start=root)
    summaries = [apply_fixes(config, r, unsafe=True, write=False, jobs=1).summary() for r in (cold, warm)]
    assert summaries[0] == summaries[1]
    # test_c's unused `device` is dropped by a migration (--unsafe): GENERIC too.
    assert summaries[0][0] == "Would classify 2 classes and fix 1 string declaration in 3 files (GENERIC 3)."


def test_json_fix_field_is_the_typed_fix_as_a_dict(tmp_path: Path) -> None:
    """JSON shows a Fix as its fields (HWC002's with the `member` written);
    a NotFixable is `null`, as before fixes were typed."""
    root = write_project(
        tmp_path / "proj",
        {
            "test/test_a.py": "class TestA(TestCase):\n    def test_a(self): pass\n",
            "test/test_b.py": "class TestB(TestCase):\n    hw_classification = 'GENERIC'\n    def test_b(self): pass\n",
            "test/test_c.py": "class TestC(TestCase):\n    def test_c(self, device): pass\n",
        },
    )
    items = json.loads(run_cli("check", "--format", "json", cwd=root).stdout)
    assert [i["fix"] for i in items] == [
        {
            "applicability": "safe",
            "classification": "GENERIC",
            "evidence": "not instantiated per device, no device parameter, no accelerator use",
        },
        {
            "applicability": "safe",
            "classification": "GENERIC",
            "evidence": "the string names the member",
            "member": "GENERIC",
        },
        None,
    ]


def test_the_lintrunner_renderer_only_renders_the_replacements_it_is_given(tmp_path: Path) -> None:
    from hwlint.output.lintrunner import render
    from hwlint.output.lintrunner_fix import lintrunner_replacements

    source = "class TestA(TestCase):\n    def test_a(self): pass\n"
    root = write_project(tmp_path / "proj", {"test/test_x.py": source})
    result = lint(root)
    bare = [json.loads(line) for line in render(result).splitlines()]
    assert [(m["original"], m["replacement"]) for m in bare] == [(None, None)]
    replacements = lintrunner_replacements(result)
    assert list(replacements) == [("test/test_x.py", 1, 1, "HWC001", "TestA")]
    given = [json.loads(line) for line in render(result, replacements=replacements).splitlines()]
    assert given[0]["original"] == source
    assert given[0]["replacement"] == (
        "from torch.testing._internal.common_utils import HardwareClassification\n"
        "class TestA(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n    def test_a(self): pass\n"
    )
    assert (root / "test/test_x.py").read_text() == source


# -- a safe fix never makes things worse -------------------------------------

# Instantiated without only_for (ACCELERATOR evidence), but three tests are
# for CUDA only and one takes no device: ACCELERATOR would bring out 4
# violations that HWC001 hides.
DEVICE_TYPE = HEADER + (
    "class TestOps(TestCase):\n"
    + "".join(f"    @onlyCUDA\n    def test_cuda_{i}(self, device): pass\n\n" for i in range(3))
    + "    def test_plain(self): pass\n\n\n"
    "class TestUtils(TestCase):\n    def test_u(self): pass\n\n\n"
    "instantiate_device_type_tests(TestOps, globals())\n"
)


def adopted(tmp_path: Path, files: dict[str, str]) -> Path:
    root = write_project(tmp_path / "proj", files)
    assert run_cli("allowlist", "init", cwd=root).returncode == 0
    assert run_cli("check", cwd=root).returncode == 0
    return root


def test_a_safe_fix_leaves_a_classification_that_would_surface_violations(tmp_path: Path) -> None:
    root = adopted(tmp_path, {"test/test_ops.py": DEVICE_TYPE})
    assert (root / "allowlist.txt").read_text().endswith("test/test_ops.py 2\n")
    proc = run_cli("fix", cwd=root)
    # TestOps is left, but its file is allowlisted: check passes, so fix does.
    assert (proc.returncode, proc.stdout) == (0, "")
    assert proc.stderr == (
        "Classified 1 class in 1 file (GENERIC 1).\n"
        "Pruned allowlist.txt: 1 lowered; 1 entry.\n"
        "1 class needs a human, by reason:\n"
        "  1 ACCELERATOR would surface HWC102, HWC103: fix those tests, or apply with --unsafe and fix them then "
        "(e.g. test/test_ops.py:3 TestOps)\n"
        "Each class:\n"
        "  test/test_ops.py:3: TestOps: not safe: ACCELERATOR, but 1 test takes no device (HWC102) "
        "and 3 tests use @onlyCUDA (HWC103)\n"
        "`hwlint check` passes: the classes left are in allowlisted files, within their budgets\n"
    )
    text = (root / "test/test_ops.py").read_text()
    assert text == DEVICE_TYPE.replace(
        "class TestUtils(TestCase):\n",
        "class TestUtils(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n",
    )
    assert (root / "allowlist.txt").read_text().endswith("test/test_ops.py 1\n")
    assert run_cli("check", cwd=root).returncode == 0


def test_checks_fixable_count_is_what_a_plain_fix_then_classifies(tmp_path: Path) -> None:
    """Both classes have a fix marked safe, but the trial keeps only one:
    `check` counts what `fix` will do, not what the rules proposed."""
    root = write_project(tmp_path / "proj", {"test/test_ops.py": DEVICE_TYPE})
    check = run_cli("check", cwd=root)
    assert check.stdout.splitlines()[-2:] == [
        "Found 2 errors in 1 file (1 file checked).",
        "1 fixable with `hwlint fix`.",
    ]
    data = json.loads(run_cli("check", "--format", "json", cwd=root).stdout)
    assert [d["fix"]["applicability"] for d in data] == ["safe", "safe"]
    fix = run_cli("fix", cwd=root)
    assert fix.stderr.splitlines()[0] == "Classified 1 class in 1 file (GENERIC 1)."
    assert run_cli("check", cwd=root).stdout.splitlines()[-1] == "Found 1 error in 1 file (1 file checked)."


def test_unsafe_never_puts_an_allowlisted_file_over_its_budget(tmp_path: Path) -> None:
    # Tests that name CUDA in their bodies: no migration makes them generic;
    # kept to two devices, none moves to a class of one. ACCELERATOR would
    # turn TestOps's one HWC001 into four findings, over the budget of 2:
    # even --unsafe leaves it (check stays green), saying why.
    source = (
        DEVICE_TYPE.replace("(self, device): pass", "(self, device): torch.cuda.synchronize()")
        .replace("def test_plain(self): pass", "def test_plain(self): torch.ones(1).cuda()")
        .replace("@onlyCUDA\n", "@onlyCUDAAndPRIVATEUSE1\n")
    )
    root = adopted(tmp_path, {"test/test_ops.py": source})
    proc = run_cli("fix", "--unsafe", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [
        "Classified 1 class in 1 file (GENERIC 1).",
        "Pruned allowlist.txt: 1 lowered; 1 entry.",
        "1 class needs a human, by reason:",
        "  1 ACCELERATOR would put its allowlisted file over budget (HWC102, HWC103): fix those tests first "
        "(e.g. test/test_ops.py:3 TestOps)",
        "Each class:",
        "  test/test_ops.py:3: TestOps: not applied: the file would have 4 violations, over its budget of 2 "
        "(HWC102, HWC103): fix those tests first",
        "`hwlint check` passes: the classes left are in allowlisted files, within their budgets",
    ]
    text = (root / "test/test_ops.py").read_text()
    assert "HardwareClassification.ACCELERATOR" not in text and "HardwareClassification.GENERIC" in text
    assert (root / "allowlist.txt").read_text().endswith("test/test_ops.py 1\n")
    assert run_cli("check", cwd=root).returncode == 0


def test_a_base_whose_classification_would_reach_a_subclass_is_judged_with_it(tmp_path: Path) -> None:
    source = HEADER + (
        "class TestBase(TestCase):\n    def test_a(self, device): pass\n\n\n"
        "class TestChild(TestBase):\n    def test_b(self): pass\n\n\n"
        "instantiate_device_type_tests(TestBase, globals())\n"
    )
    # Alone, ACCELERATOR on the base is clean; but TestChild (never
    # instantiated, a test without device) inherits it: TestChild is
    # classified GENERIC first, and then the base is safe.
    root = adopted(tmp_path, {"test/test_x.py": source})
    proc = run_cli("fix", cwd=root)
    assert proc.returncode == 0, proc.stderr
    text = (root / "test/test_x.py").read_text()
    assert "class TestBase(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n" in text
    assert "class TestChild(TestBase):\n    hw_classification = HardwareClassification.GENERIC\n" in text
    assert not (root / "allowlist.txt").read_text().strip("\n").splitlines()[2:]
    assert run_cli("check", cwd=root).returncode == 0


MANY = (
    HEADER
    + "".join(f"class TestDev{i}(TestCase):\n    def test_a(self, device): pass\n\n\n" for i in range(12))
    + "class TestCuda(TestCase):\n    @onlyCUDA\n    def test_c(self, device): pass\n    def test_d(self): pass\n\n\n"
    "instantiate_device_type_tests(TestCuda, globals())\n"
)


def test_the_summary_counts_by_reason_and_lists_each_class_on_request(tmp_path: Path) -> None:
    root = adopted(tmp_path, {"test/test_many.py": MANY})
    proc = run_cli("fix", cwd=root)
    assert (proc.returncode, proc.stdout) == (0, "")
    assert proc.stderr == (
        "Classified 0 classes in 0 files.\n"
        "13 classes need a human, by reason:\n"
        "  12 tests take a device but the class is never instantiated: instantiate it or drop the parameter "
        "(e.g. test/test_many.py:3 TestDev0)\n"
        "   1 ACCELERATOR would surface HWC102, HWC103: fix those tests, or apply with --unsafe and fix them then "
        "(e.g. test/test_many.py:51 TestCuda)\n"
        "`hwlint fix --show-unfixed` lists each class; `--format json` prints them for scripts.\n"
        "`hwlint check` passes: the classes left are in allowlisted files, within their budgets\n"
    )
    listed = run_cli("fix", "--show-unfixed", cwd=root)
    *each, passes = listed.stderr.split("Each class:\n", 1)[1].splitlines()
    assert passes.startswith("`hwlint check` passes")
    assert len(each) == 13 and each[0].startswith("  test/test_many.py:3: TestDev0: ")
    data = json.loads(run_cli("fix", "--format", "json", cwd=root).stdout)
    assert [(u["line"], u["class_name"], u["kind"]) for u in data["unfixed"]] == (
        [(3 + 4 * i, f"TestDev{i}", "device-not-instantiated") for i in range(12)] + [(51, "TestCuda", "surfaces")]
    )
    assert data["unfixed"][-1]["surfaced"] == ["HWC102", "HWC103"]
    assert data["unfixed"][-1]["classification"] == "ACCELERATOR"
    assert (data["written"], data["fixed"], data["over_budget"]) == (True, [], [])


def test_a_classification_that_reaches_a_subclass_in_another_file_is_judged_there(tmp_path: Path) -> None:
    base = HEADER + (
        "class TestCommon(TestCase):\n    def test_a(self, device): pass\n\n\n"
        "instantiate_device_type_tests(TestCommon, globals())\n"
    )
    # test_child.py subclasses it (the way PyTorch test files import their
    # siblings), with a test for CUDA only: ACCELERATOR on the base would
    # surface HWC103 there.
    child = (
        "from test_common import TestCommon\n\n\n"
        "class TestChild(TestCommon):\n    @onlyCUDA\n    def test_b(self, device): pass\n\n\n"
        "instantiate_device_type_tests(TestChild, globals())\n"
    )
    root = adopted(tmp_path, {"test/test_common.py": base, "test/test_child.py": child})
    proc = run_cli("fix", cwd=root)
    assert (root / "test/test_common.py").read_text() == base
    assert (
        "test/test_common.py:3: TestCommon: not safe: ACCELERATOR, but 1 test uses @onlyCUDA (HWC103) "
        "(in TestChild, which inherits it) in test/test_child.py"
    ) in proc.stderr
    assert run_cli("check", cwd=root).returncode == 0


def test_fix_says_when_its_arguments_name_nothing(tmp_path: Path) -> None:
    """A typo in a path or a --class must not read as "nothing to fix"."""
    source = HEADER + "class TestA(TestCase):\n    def test_a(self): pass\n"
    root = write_project(tmp_path / "proj", {"test/test_x.py": source})
    missing = run_cli("fix", "test/test_y.py", cwd=root)
    assert missing.stderr == (
        "hwlint: warning: test/test_y.py does not exist\nClassified 0 classes in 0 files.\n"
        "test/test_y.py:1:1: HWC000 file not found\n`hwlint check` fails on these files: 1 error\n"
    )
    outside = run_cli("fix", str(tmp_path), cwd=root)
    assert outside.stderr.splitlines()[0] == (
        f"hwlint: warning: {tmp_path} is outside the project root {root.resolve()}: not fixed"
    )
    unknown = run_cli("fix", "--class", "TestB", "test/test_x.py", cwd=root)
    assert unknown.returncode == 1
    assert unknown.stderr.splitlines()[:2] == [
        "hwlint: warning: no class TestB in the 1 file checked: --class TestB fixes nothing",
        "Classified 0 classes in 0 files.",
    ]
    assert (root / "test/test_x.py").read_text() == source
    assert run_cli("fix", "--class", "TestA", cwd=root).stderr == "Classified 1 class in 1 file (GENERIC 1).\n"


def test_the_trials_take_an_unchanged_modules_diagnostics_from_the_run(tmp_path: Path) -> None:
    """fix's trials lint each module as it is; the run already did, and its
    diagnostics before the allowlist are what lint_variant gives, with the
    allowlist, noqa and per-file-ignores applied as the run applied them."""
    from hwlint.engine.check import lint_variant, run_resolver
    from hwlint.rules import enabled_codes

    files = {
        "test/test_a.py": "from torch.testing._internal.common_utils import TestCase\n\n\nclass TestA(TestCase):\n"
        "    def test_a(self):\n        pass\n\n\nclass TestB(TestA):  # noqa: HWC001\n"
        "    def test_b(self):\n        pass\n",
        "test/test_b.py": "from test_a import TestA\n\n\nclass TestC(TestA):\n    def test_c(self, device):\n        pass\n",
    }
    root = write_project(tmp_path / "proj", files, allowlist="test/test_b.py 2\n")
    result = lint(root)
    resolver = run_resolver(result)
    assert resolver is not None
    assert not [d for d in result.diagnostics if d.path == "test/test_b.py"]  # allowlisted
    for path in files:
        facts = resolver.modules[path]
        known = result.as_linted(facts, result.enabled)
        assert known is not None and sorted(known) == sorted(lint_variant(result, facts, result.enabled))
        assert [d.class_name for d in known] == (["TestA"] if path == "test/test_a.py" else ["TestC"])  # TestB: noqa
        # A changed module, or other rules: linted afresh.
        assert result.as_linted(facts._replace(lines=facts.lines + 1), result.enabled) is None
        assert result.as_linted(facts, enabled_codes(("HWC001",), ())) is None


# -- a misspelt device (HWC003's "did you mean") ------------------------------

MISSPELT = (
    "import torch\n"
    "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n"
    + HEADER
    + "\nclass TestA(TestCase):\n"
    "    hw_classification = HardwareClassification.ACCELERATOR\n\n"
    "    def test_a(self, device):\n"
    '        t = torch.ones(2, device="privatuse1")\n'
    '        u = torch.ones(2).to(f"privatuse1:{0}")\n'
    '        self.assertEqual(t, u, msg="privatuse1 differs")\n'
    "        self.assertEqual(t.device.type, 'privatuse1')\n\n\n"
    'instantiate_device_type_tests(TestA, globals(), except_for="cpu")\n'
)


def test_a_misspelt_device_is_respelt_with_unsafe_in_every_string_that_names_it(tmp_path: Path) -> None:
    text, err, code = fixed(tmp_path, MISSPELT, "--unsafe")
    assert text == (
        MISSPELT.replace('device="privatuse1"', 'device="privateuse1"')
        .replace('f"privatuse1:{0}"', 'f"privateuse1:{0}"')
        .replace("'privatuse1'", "'privateuse1'")
    )
    assert '"privatuse1 differs"' in text  # a message that mentions it is prose
    assert 'test/test_x.py:10: "privatuse1" -> "privateuse1"' in err
    assert code == 0  # check passes after it


def test_a_misspelt_device_is_left_without_unsafe_and_listed_in_json(tmp_path: Path) -> None:
    text, err, code = fixed(tmp_path, MISSPELT)
    assert text == MISSPELT and code == 1
    assert 'did you mean "privateuse1"? `hwlint fix --unsafe` respells it' in err
    root = tmp_path / "proj"
    proc = run_cli("fix", "--unsafe", "--diff", "--format", "json", cwd=root)
    assert json.loads(proc.stdout)["respelt"] == [
        {"path": "test/test_x.py", "line": 10, "wrong": "privatuse1", "right": "privateuse1"}
    ]
    assert (root / "test/test_x.py").read_text() == MISSPELT  # --diff writes nothing
