"""Properties of `hwlint fix` over many generated modules (hypothesis):
every fixed file parses, has exactly the intended classifications, differs
from the original only by added lines (and string declarations replaced by
their member), and a second run changes nothing."""

from __future__ import annotations

import difflib
import re
import tempfile
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwlint.core.diagnostics import Fix, is_safe_fix
from hwlint.fix.apply import fix_file
from hwlint.fix.plan import plan_fixes
from hwlint.fix.plan_records import FilePlan
from tests.conftest import lint, write_project

IMPORTS = [
    "",
    "import torch\n",
    "from torch.testing._internal.common_utils import TestCase\n",  # merged: the one modified line
    "from torch.testing._internal.common_utils import (\n    TestCase,\n    run_tests,\n)\n",
    "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n",
    "from torch.testing._internal.common_utils import HardwareClassification as HC\n",
]


# String declarations (HWC002): members and another case (an unsafe fix,
# left alone here), in the body (with an annotation, a comment) or at module
# level after the class.
STRINGS = ['"GENERIC"', "'CPU'", '"ACCELERATOR"', "'generic'"]
DECLARATIONS = [
    "hw_classification = {}",
    "hw_classification: HardwareClassification = {}",
    "hw_classification = {}  # a comment",
]


@st.composite
def classes(draw: st.DrawFn, index: int) -> tuple[str, bool]:
    indent = draw(st.sampled_from(["    ", "  ", "\t"]))
    name = f"Test{index}"
    lines = []
    if draw(st.booleans()):
        lines.append(f'{indent}"""Docstring of {name}."""')
        if draw(st.booleans()):
            lines.append("")
    string = draw(st.sampled_from(["", "", "body", "module"]))
    if string == "body":
        lines.append(indent + draw(st.sampled_from(DECLARATIONS)).format(draw(st.sampled_from(STRINGS))))
    if draw(st.booleans()):
        lines.append(f"{indent}# a comment")
    if draw(st.booleans()):
        lines.append(f"{indent}x = 1")
    device = draw(st.booleans())
    for m in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            lines.append(f"{indent}@skipIfTorchDynamo()")
        params = "self, device" if device else "self"
        lines.append(f"{indent}def test_{m}({params}):")
        lines.append(f"{indent}{indent}pass")
    if draw(st.booleans()):
        lines.append("")
    body = "\n".join(lines) + "\n"
    source = f"class {name}(TestCase):\n{body}"
    wrapper = draw(st.sampled_from(["", "if True:", "try:"]))
    if wrapper:
        source = f"{wrapper}\n" + "".join(f"{indent}{line}\n" if line else "\n" for line in source.splitlines())
        if wrapper == "try:":
            source += "except ImportError:\n    pass\n"
    if string == "module":
        source += f"\n{name}.hw_classification = {draw(st.sampled_from(STRINGS))}\n"
    if device:
        only_for = draw(st.sampled_from(["", ", only_for='cuda'", ", except_for='cpu'"]))
        source += f"\ninstantiate_device_type_tests({name}, globals(){only_for})\n"
    return source, device


@st.composite
def modules(draw: st.DrawFn) -> str:
    head = draw(st.sampled_from(['"""Module docstring."""\n', ""])) + draw(st.sampled_from(IMPORTS))
    parts = [draw(classes(i))[0] for i in range(draw(st.integers(1, 4)))]
    text = head + "\n\n" + "\n\n".join(parts)
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return text


def with_members(source: str, plan: FilePlan) -> str:
    """The source with each planned string declaration already replaced by
    its member: what the fix may change besides adding lines."""
    enum = "HC" if "HardwareClassification as HC" in source else "HardwareClassification"
    lines = source.splitlines(keepends=True)
    for f in plan.fixes:
        if f.replaces:
            lines[f.line - 1] = re.sub(r"([\"'])[A-Za-z_]+\1", f"{enum}.{f.name}", lines[f.line - 1], count=1)
    return "".join(lines)


def only_added(before: str, after: str) -> bool:
    ops = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines(), autojunk=False).get_opcodes()
    changed = [(tag, before.splitlines()[i1:i2]) for tag, i1, i2, _, _ in ops if tag != "equal"]
    # The one line that may change: a one-line `from <import-from> import ...` gaining the enum.
    return all(
        tag == "insert" or (tag == "replace" and lines == ["from torch.testing._internal.common_utils import TestCase"])
        for tag, lines in changed
    )


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(modules())
def test_fix_properties(source: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = write_project(Path(tmp), {})
        path = root / "test" / "test_gen.py"
        path.parent.mkdir()
        path.write_bytes(source.encode())
        result = lint(root)
        plans, _ = plan_fixes(result)
        if not plans:
            return
        (plan,) = plans
        outcome = fix_file(root, plan, result.contexts[0].facts, result.config)
        assert outcome.error is None, outcome.error
        assert outcome.fixed is not None
        after = outcome.fixed.decode()
        expected = with_members(source, plan)
        assert only_added(expected, after), "".join(
            difflib.unified_diff(expected.splitlines(True), after.splitlines(True))
        )
        assert after.count("\r\n") == (after.count("\n") if "\r\n" in source else 0)
        path.write_bytes(outcome.fixed)
        again = lint(root)
        plans_again, unfixed_again = plan_fixes(again)
        assert plans_again == []  # a second run changes nothing
        # A safe fix surfaces nothing: no other rule reports more than before.
        others = lambda r: Counter(d.code for d in r.diagnostics if d.code not in ("HWC001", "HWC002"))  # noqa: E731
        assert others(again) - others(result) == Counter()
        # A safe fix it left would surface violations (the real rules said so).
        assert {(d.path, d.line) for d in again.diagnostics if is_safe_fix(d.fix)} == {
            (u.path, u.line) for u in unfixed_again if u.kind == "surfaces"
        }
        # The strings in another case (unsafe fixes) are left as they were.
        left = [d.fix for d in again.diagnostics if isinstance(d.fix, Fix) and d.fix.applicability == "unsafe"]
        assert len(left) == sum(
            d.code == "HWC002" for d in result.diagnostics if isinstance(d.fix, Fix) and d.fix.applicability == "unsafe"
        )
        assert plan_fixes(again)[0] == []


# -- the check that replaces libcst's round trip (hwlint.fix.edits.only_inserted) --

ENUM = "HardwareClassification"
IMPORT_FROM = "torch.testing._internal.common_utils"
ORIGINAL_LINES = [
    "class TestA(TestCase):\n",
    "    def test_a(self):\n",
    "        pass\n",
    "\n",
    "import torch\n",
    "    hw_classification = HardwareClassification.CPU\n",
    "x = '\x0c'\n",
    "# a comment\r\n",
]


def _inserted(original: bytes, fixed: bytes, declarations: int = 2) -> bool:
    from hwlint.fix.edits import only_inserted

    return only_inserted(
        original, fixed, attribute="hw_classification", enum=ENUM, import_from=IMPORT_FROM, declarations=declarations
    )


@st.composite
def insertions(draw: st.DrawFn) -> tuple[list[str], list[str], list[int]]:
    """Original lines, the same with up to two declarations (with blank lines
    beside them) and one import added, and the positions in the fixed lines
    of the lines that are the original's."""
    original = draw(st.lists(st.sampled_from(ORIGINAL_LINES), min_size=1, max_size=12))
    fixed: list[str] = []
    kept: list[int] = []
    points = draw(st.lists(st.integers(0, len(original)), max_size=2))
    importing = draw(st.one_of(st.none(), st.integers(0, len(original))))
    for index in range(len(original) + 1):
        for point in points:
            if point == index:
                added = [draw(st.sampled_from(["    ", "\t", ""])) + f"hw_classification = {ENUM}.GENERIC\n"]
                fixed += draw(st.sampled_from([[], ["\n"]])) + added + draw(st.sampled_from([[], ["\n"]]))
        if importing == index:
            fixed.append(f"from {IMPORT_FROM} import {ENUM}\n")
        if index < len(original):
            kept.append(len(fixed))
            fixed.append(original[index])
    return original, fixed, kept


@settings(max_examples=200, deadline=None, derandomize=True)
@given(insertions(), st.data())
def test_only_inserted_shows_additions_and_never_a_changed_or_lost_original_line(
    case: tuple[list[str], list[str], list[int]], data: st.DataObject
) -> None:
    original, fixed, kept = case
    assert _inserted("".join(original).encode(), "".join(fixed).encode())
    # What libcst does wrong, to any line of the original: a form feed
    # dropped, a bare `\r` written as `\n`, a line lost or changed.
    at = data.draw(st.sampled_from(kept))
    line = fixed[at]
    broken = data.draw(
        st.sampled_from(
            [
                line.replace("\x0c", ""),
                line.replace("\r\n", "\n"),
                line.replace("\n", "\r"),
                "",
                "#" + line,
                line.replace("pass", "pas"),
            ]
        )
    )
    if broken == line or (not broken.strip() and not line.strip()):
        return  # not a change of the original (or one blank line for another)
    mutated = fixed[:at] + [broken] + fixed[at + 1 :]
    assert not _inserted("".join(original).encode(), "".join(mutated).encode())


def test_only_inserted_takes_the_enum_merged_into_an_import_and_nothing_else_on_that_line() -> None:
    head = f"from {IMPORT_FROM} import TestCase\n"
    body = "class TestA(TestCase):\n    def test_a(self):\n        pass\n"
    declared = body.replace(":\n", f":\n    hw_classification = {ENUM}.GENERIC\n\n", 1)
    assert _inserted((head + body).encode(), (f"from {IMPORT_FROM} import TestCase, {ENUM}\n" + declared).encode())
    # Parenthesized, with and without a trailing comma.
    before = f"from {IMPORT_FROM} import (\n    TestCase,\n    run_tests)\n"
    after = f"from {IMPORT_FROM} import (\n    TestCase,\n    run_tests,\n    {ENUM})\n"
    assert _inserted((before + body).encode(), (after + declared).encode())
    before = f"from {IMPORT_FROM} import (\n    TestCase,\n)\n"
    after = f"from {IMPORT_FROM} import (\n    TestCase,\n    {ENUM},\n)\n"
    assert _inserted((before + body).encode(), (after + declared).encode())
    # Anything else on the import line, a second import, more declarations
    # than the fixes, blank lines on their own: not shown (the caller then
    # checks libcst's round trip).
    assert not _inserted(
        (head + body).encode(), (f"from {IMPORT_FROM} import TestCase, {ENUM}  # x\n" + declared).encode()
    )
    assert not _inserted(
        (head + body).encode(),
        (f"from {IMPORT_FROM} import TestCase, {ENUM}\nfrom {IMPORT_FROM} import {ENUM}\n" + declared).encode(),
    )
    assert not _inserted(body.encode(), declared.encode(), declarations=0)
    assert not _inserted(body.encode(), (body + "\n").encode())
    assert not _inserted(body.encode(), ("\n" + body).encode())
