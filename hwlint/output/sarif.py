"""`sarif`: SARIF 2.1.0, for GitHub code scanning (`upload-sarif`) and
SARIF viewers.

One run; `tool.driver.rules` lists every hwlint rule (id, name, short and
full description, the full explanation as help, the default level, and
whether it is on by default), and each result points at its rule by
`ruleId` and `ruleIndex`. Locations are relative to the git repository's
root (`uriBaseId` `%SRCROOT%`), as code scanning wants them, and
percent-encoded as URI references must be (`test/my test.py` is
`test/my%20test.py`).

`partialFingerprints["hwlint/v1"]` identifies a result without its line:
a hash of the rule, the file, the class (and the method the message names),
or for results without a class the message with its numbers blanked out.
Results that would share one get an occurrence number, in file order. So a
class keeps its alert when lines are added above it, and code scanning does
not close and reopen it on every edit.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import quote

from hwlint import __version__
from hwlint.core.config import find_git_root
from hwlint.core.diagnostics import Diagnostic
from hwlint.engine.api import CheckResult
from hwlint.output.github import repo_prefix
from hwlint.rules import ALL_RULES, Rule

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
FINGERPRINT_KEY = "hwlint/v1"
_NUMBER = re.compile(r"\d+")


def _section(markdown: str, title: str) -> str:
    """The text of a `## title` section of a rule's explanation, as one line."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", markdown, re.S | re.M)
    return " ".join(match.group(1).split()) if match else ""


def rule_descriptor(rule: type[Rule]) -> dict[str, Any]:
    """A rule as SARIF's `reportingDescriptor`: its name, summary and explanation."""
    explanation = rule.explanation()
    summary = rule.summary.rstrip(".") + "."
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": summary},
        "fullDescription": {"text": _section(explanation, "What it does") or summary},
        "help": {"text": explanation, "markdown": explanation},
        "defaultConfiguration": {"level": "error", "enabled": rule.default},
        "properties": {"tags": ["hwlint"]},
    }


def _context(d: Diagnostic) -> str:
    """What identifies a diagnostic within its file, without line numbers."""
    if d.class_name:
        # A finding about a test method: the method is part of the identity.
        return d.class_name + ("." + d.method if d.method else "")
    return _NUMBER.sub("#", d.message)


def fingerprints(diagnostics: list[Diagnostic], prefix: str = "") -> list[str]:
    """Each diagnostic's `partialFingerprints` value: its code, path and what
    identifies it in its file (not its line), and which occurrence of those it is."""
    seen: Counter[tuple[str, str, str]] = Counter()
    out = []
    for d in diagnostics:
        key = (d.code, prefix + d.path, _context(d))
        occurrence = seen[key]
        seen[key] += 1
        # surrogateescape: a file name that is not UTF-8 keeps its own bytes.
        digest = hashlib.sha256("\0".join((*key, str(occurrence))).encode("utf-8", "surrogateescape")).hexdigest()
        out.append(digest[:32])
    return out


def sarif_log(result: CheckResult) -> dict[str, Any]:
    """The SARIF 2.1.0 log of a run: hwlint's rules and a result per diagnostic."""
    prefix = repo_prefix(result.config)
    base = find_git_root(Path(os.path.abspath(result.config.root))) or Path(os.path.abspath(result.config.root))
    index = {rule.code: i for i, rule in enumerate(ALL_RULES)}
    results = []
    for d, fingerprint in zip(result.diagnostics, fingerprints(result.diagnostics, prefix)):
        location: dict[str, Any] = {
            "physicalLocation": {
                "artifactLocation": {
                    "uri": quote(prefix + d.path, safe="/", errors="surrogateescape"),
                    "uriBaseId": "%SRCROOT%",
                },
                "region": {"startLine": d.line, "startColumn": d.column},
            }
        }
        if d.class_name:
            location["logicalLocations"] = [{"name": d.class_name, "kind": "type"}]
        results.append(
            {
                "ruleId": d.code,
                "ruleIndex": index[d.code],
                "level": "error" if d.severity == "error" else "warning",
                "message": {"text": d.message},
                "locations": [location],
                "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
            }
        )
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "hwlint",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": [rule_descriptor(rule) for rule in ALL_RULES],
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"uri": base.as_uri() + "/"}},
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }


def render(result: CheckResult, *, statistics: bool = False, color: bool = False, fmt: str = "") -> str:
    """The SARIF log as JSON (GitHub code scanning reads it)."""
    return json.dumps(sarif_log(result), ensure_ascii=False, indent=2) + "\n"
