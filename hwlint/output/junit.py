"""`junit`: JUnit XML for CI test-report viewers (Jenkins, GitLab, Azure,
the GitHub test-report actions).

One `<testcase>` per checked file (`name` the repository-relative path,
`classname` "hwlint"), so a clean file is a passing test; one `<failure>`
per diagnostic in it (`type` the rule code). Diagnostics at a path that is
not a checked file (the allowlist's HWC3xx, a missing file) get a testcase
of their own. An allowlisted file with violations is a skipped testcase:
not migrated yet (a clean one passes, and its stale entry fails). `failures` counts `<failure>` elements (one per diagnostic), `skipped`
the skipped testcases and `tests` the testcases, as junitparser, which
several report actions use, counts them.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import defaultdict

from hwlint.core.diagnostics import Diagnostic
from hwlint.engine.api import CheckResult
from hwlint.output.github import repo_prefix

# Characters XML 1.0 cannot hold, even escaped.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _clean(text: str) -> str:
    return _INVALID_XML.sub("\ufffd", text)


def _checked_paths(result: CheckResult) -> list[str]:
    """Every checked file. CheckResult.contexts builds each module's context
    when asked for: take the paths without building them when it can."""
    paths = getattr(result.contexts, "_paths", None)
    if paths is None:
        return [ctx.path for ctx in result.contexts]
    return list(paths)


def render(result: CheckResult, *, statistics: bool = False, color: bool = False, fmt: str = "") -> str:
    """The diagnostics as a JUnit XML report: a test suite per file, a failing case per diagnostic."""
    prefix = repo_prefix(result.config)
    by_path: dict[str, list[Diagnostic]] = defaultdict(list)
    for d in result.diagnostics:
        by_path[d.path].append(d)
    paths = sorted(set(_checked_paths(result)) | set(by_path))
    allowlisted = result.allowlist.entries if result.allowlist is not None else {}
    where = result.allowlist.path if result.allowlist is not None else ""
    # Violations of each allowlisted file (a clean one passes: its entry is stale).
    counts = result.allowlist_counts

    cases = []
    failures = skipped = 0
    for path in paths:
        case = ET.Element(
            "testcase", {"classname": "hwlint", "name": prefix + path, "file": prefix + path, "time": "0"}
        )
        for d in by_path.get(path, []):
            failures += 1
            location = f"{prefix}{d.path}:{d.line}:{d.column}"
            failure = ET.SubElement(
                case, "failure", {"type": d.code, "message": _clean(f"{d.code} {d.message} ({location})")}
            )
            failure.text = _clean(
                f"{location}: {d.code} {d.message}\nRule: {d.name} (`hwlint rule {d.code}` explains it)\n"
            )
        if path in allowlisted and path not in by_path and counts.get(path, 1) > 0:
            skipped += 1
            n, budget = counts.get(path), allowlisted[path].budget
            found = f"{n} violation{'s' if n != 1 else ''}, " if n is not None else ""
            ET.SubElement(
                case,
                "skipped",
                {"message": f"allowlisted in {prefix}{where} ({found}budget {budget}): not migrated yet"},
            )
        cases.append(case)

    totals = {"tests": str(len(cases)), "failures": str(failures), "errors": "0", "skipped": str(skipped)}
    suites = ET.Element("testsuites", {"name": "hwlint", **totals, "time": "0"})
    suite = ET.SubElement(suites, "testsuite", {"name": "hwlint", **totals, "time": "0"})
    suite.extend(cases)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
