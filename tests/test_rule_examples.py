"""Every rule's VALID and INVALID examples, run through the whole pipeline
(a real project on disk), so a rule's documentation cannot drift from it:
where each diagnostic is, what its message says, and what `hwlint fix`
makes of the snippet (as fixit's `Invalid(..., expected_replacement=...)`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hwlint.allowlist.ratchet import check_ratchet
from hwlint.core.config import load_config
from hwlint.core.diagnostics import Diagnostic
from hwlint.fix.apply import apply_fixes
from hwlint.rules import ALL_RULES, FIXABLE, Example, Rule, missing_classification
from tests.conftest import lint, write_project

CASES = [
    pytest.param(rule, example, valid, id=f"{rule.code}-{'valid' if valid else 'invalid'}-{index}")
    for rule in ALL_RULES
    for valid, examples in ((True, rule.VALID), (False, rule.INVALID))
    for index, example in enumerate(examples)
]
SNIPPET = "test/test_example.py"


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def ratchet(root: Path, example: Example, monkeypatch: pytest.MonkeyPatch) -> list[Diagnostic]:
    """`hwlint allowlist check --base HEAD` in a repository whose one commit
    holds the example's base allowlist, the example's list in the work tree."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")  # the user's git configuration stays out
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    assert example.base_allowlist is not None
    (root / "allowlist.txt").write_text(example.base_allowlist)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(
        root,
        "-c",
        "user.name=Test",
        "-c",
        "user.email=test@example.com",
        "-c",
        "commit.gpgsign=false",
        "commit",
        "-q",
        "-m",
        "base",
    )
    (root / "allowlist.txt").write_text(example.allowlist or "")
    return check_ratchet(load_config(start=root), "HEAD").diagnostics


@pytest.mark.parametrize(("rule", "example", "valid"), CASES)
def test_example(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rule: type[Rule], example: Example, valid: bool
) -> None:
    settings = {"select": [rule.code], **example.settings}
    allowlist = example.allowlist if example.base_allowlist is None else None
    root = write_project(tmp_path, {SNIPPET: example.source, **example.files}, settings, allowlist)
    if example.base_allowlist is not None:
        diagnostics = ratchet(root, example, monkeypatch)
    else:
        result = lint(root)
        diagnostics = result.diagnostics
    found = sorted((d for d in diagnostics if d.code == rule.code), key=lambda d: (d.line, d.column))
    assert [(d.line, d.column) for d in found] == sorted(example.expect), diagnostics
    if valid:
        assert not example.expect
        return
    assert example.expect, "an INVALID example expects a diagnostic"
    assert len(example.messages) == len(example.expect), "state (a stable part of) each expected message"
    expected = [message for _, message in sorted(zip(example.expect, example.messages))]
    for diag, message in zip(found, expected):
        assert message in diag.message
    if rule.code in FIXABLE:
        config = load_config(start=root)
        assert fixed_snippet(config, result, unsafe=False) == example.fixed
        unsafe_fixed = example.unsafe_fixed if example.unsafe_fixed is not None else example.fixed
        assert fixed_snippet(config, result, unsafe=True) == unsafe_fixed
    else:
        assert example.fixed is None and example.unsafe_fixed is None, f"{rule.code} has no fixes"


def fixed_snippet(config, result, *, unsafe: bool) -> str | None:  # type: ignore[no-untyped-def]
    """The snippet as `hwlint fix` (with `--unsafe`) would write it; None when unchanged."""
    report = apply_fixes(config, result, unsafe=unsafe, write=False, jobs=1)
    fixed = [f.fixed for f in report.files if f.path == SNIPPET]
    return fixed[0].decode() if fixed and fixed[0] is not None else None


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_rule_is_documented(rule: type[Rule]) -> None:
    text = rule.explanation()
    assert text.startswith(f"# {rule.name} ({rule.code})")
    for section in ("## What it does", "## Why is this bad?", "## Example"):
        assert section in text, f"{rule.code} lacks {section}"
    assert rule.INVALID, f"{rule.code} has no INVALID example"


def test_fix_reads_typed_fixes_not_message_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rewording HWC001 changes what `check` prints, never what `fix` does or says."""
    root = write_project(
        tmp_path,
        {
            "test/test_safe.py": "class TestA(TestCase):\n    def test_a(self): pass\n",
            "test/test_unsafe.py": "class TestB(TestCase):\n    @onlyCUDA\n    def test_b(self): pass\n",
            "test/test_human.py": "class TestC(TestCase):\n    def test_c(self, device): pass\n",
        },
        {"select": ["HWC001"]},
    )
    config = load_config(start=root)

    def fix_output() -> tuple[list[str], list[tuple[str, bytes | None]], list[str]]:
        result = lint(root)
        report = apply_fixes(config, result, write=False, jobs=1)
        return report.summary(), [(f.path, f.fixed) for f in report.files], [d.message for d in result.diagnostics]

    summary, files, messages = fix_output()
    monkeypatch.setattr(missing_classification, "message", lambda *args: "reworded: add nothing: see the docs")
    reworded_summary, reworded_files, reworded_messages = fix_output()
    assert reworded_messages == ["reworded: add nothing: see the docs"] * 3 != messages
    assert (reworded_summary, reworded_files) == (summary, files)
    assert len(files) == 1 and summary[1:] == [
        "2 classes need a human, by reason:",
        (
            "  1 tests take a device but the class is never instantiated: instantiate it or drop the parameter "
            "(e.g. test/test_human.py:1 TestC)"
        ),
        "  1 unsafe fix to CUDA: apply with --unsafe (e.g. test/test_unsafe.py:1 TestB)",
        "Each class:",
        (
            "  test/test_human.py:1: TestC: `hw_classification = HardwareClassification.<MEMBER>`; test methods take a "
            "device (test_c) but the class is never instantiated: instantiate it (ACCELERATOR) or drop the parameter (GENERIC)"
        ),
        "  test/test_unsafe.py:1: TestB: unsafe fix to CUDA (every accelerator use in the class is CUDA): apply with --unsafe",
    ]
