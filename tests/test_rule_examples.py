"""Every rule's VALID and INVALID examples, run through the whole pipeline
(a real project on disk), so a rule's documentation cannot drift from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from hwlint.rules import ALL_RULES, Example, Rule
from tests.conftest import lint, write_project

CASES = [
    pytest.param(rule, example, valid, id=f"{rule.code}-{'valid' if valid else 'invalid'}-{index}")
    for rule in ALL_RULES
    for valid, examples in ((True, rule.VALID), (False, rule.INVALID))
    for index, example in enumerate(examples)
]


@pytest.mark.parametrize(("rule", "example", "valid"), CASES)
def test_example(tmp_path: Path, rule: type[Rule], example: Example, valid: bool) -> None:
    settings = {"select": [rule.code], **example.settings}
    root = write_project(tmp_path, {"test/test_example.py": example.source, **example.files}, settings, example.allowlist)
    result = lint(root)
    found = sorted((d.line, d.column) for d in result.diagnostics if d.code == rule.code)
    assert found == sorted(example.expect), [d for d in result.diagnostics]
    if valid:
        assert not example.expect


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_rule_is_documented(rule: type[Rule]) -> None:
    text = rule.explanation()
    assert text.startswith(f"# {rule.name} ({rule.code})")
    for section in ("## What it does", "## Why is this bad?", "## Example"):
        assert section in text, f"{rule.code} lacks {section}"
    # Every rule that can be shown on a snippet is.
    if rule.code != "HWC303":
        assert rule.INVALID, f"{rule.code} has no INVALID example"
