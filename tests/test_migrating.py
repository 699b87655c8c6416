"""docs/migrating.md, run as a maintainer runs it: on a git repository laid
out like a PyTorch checkout that uses TEST_LINTER (test files, a stand-in
for tools/linter/adapters/test_linter.py and its JSON list, PyTorch's
pip_init.py interface, a TEST_LINTER entry in .lintrunner.toml), the
guide's settings and lintrunner diff are applied as written and its shell
blocks run word for word, in order, with the real lintrunner. hwlint comes
from `lintrunner init`: `pip install hwlint==<version>` from the package
index, which sees a wheel of this working tree (PIP_FIND_LINKS).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from hwlint import __version__
from tests.test_allowlist import HEADER
from tests.test_integration_precommit import _env, commit_all, git, hooks_repo, pip_sees, wheelhouse  # noqa: F401

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "migrating.md"
README = GUIDE.parent.parent / "README.md"
ADOPTING = GUIDE.parent / "adopting.md"

# PyTorch's entry, as its .lintrunner.toml has it (tools/linter/adapters/
# update_test_linter_allowlist.py mirrors these patterns).
TEST_LINTER_ENTRY = """\
[[linter]]
code = 'TEST_LINTER'
include_patterns = [
    'test/**/test_*.py',
    'test/**/*_test.py',
]
exclude_patterns = [
    'test/cpp_extensions/open_registration_extension/**',
    'test/cpython/**',
]
command = [
    'python3',
    'tools/linter/adapters/test_linter.py',
    '@{{PATHSFILE}}',
]
"""

# Written for this test: the old linter's interface (paths or @PATHSFILE in,
# LintMessage JSON lines out, files of the JSON list skipped) and its first
# rule (a module-level class with test methods of its own declares
# hw_classification in its body), which is all the guide's steps exercise.
STAND_IN_LINTER = """\
import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SKIPPED = set(json.loads((Path(__file__).parent / "test_linter_allowlist.json").read_text()))


def paths(args):
    for arg in args:
        yield from (Path(arg[1:]).read_text().split() if arg.startswith("@") else [arg])


for name in paths(sys.argv[1:]):
    path = Path(name).resolve()
    if path.relative_to(ROOT).as_posix() in SKIPPED:
        continue
    for node in ast.parse(path.read_text()).body:
        if not isinstance(node, ast.ClassDef):
            continue
        tests = any(isinstance(s, ast.FunctionDef) and s.name.startswith("test") for s in node.body)
        declared = any(isinstance(s, ast.Assign) and any(getattr(t, "id", None) == "hw_classification"
                                                          for t in s.targets) for s in node.body)
        if tests and not declared:
            print(json.dumps({"path": str(path), "line": node.lineno, "char": None, "code": "TEST_LINTER",
                              "severity": "error", "name": "[hw_classification]", "original": None,
                              "replacement": None, "description": f"Test class {node.name!r}: missing."}))
"""

# PyTorch's pip_init.py takes --dry-run={{DRYRUN}} and pinned pkg==version specs.
STAND_IN_PIP_INIT = """\
import argparse
import subprocess
import sys

parser = argparse.ArgumentParser()
parser.add_argument("packages", nargs="+")
parser.add_argument("--dry-run")
args = parser.parse_args()
command = [sys.executable, "-m", "pip", "install", "--quiet", *args.packages]
if args.dry_run == "1":
    print(f"Would have run: {command}")
else:
    subprocess.run(command, check=True)
"""

CLASSIFIED = """\
from torch.testing._internal.common_utils import HardwareClassification, TestCase


class TestOps(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_add(self):
        pass
"""

UNCLASSIFIED = """\
from torch.testing._internal.common_utils import TestCase


class TestConv(TestCase):
    def test_conv2d(self):
        pass
"""

TWO_INSTANTIATED = """\
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import TestCase


class TestCompile(TestCase):
    def test_compile(self, device):
        pass


class TestGraphs(TestCase):
    def test_graph(self, device):
        pass


instantiate_device_type_tests(TestCompile, globals())
instantiate_device_type_tests(TestGraphs, globals())
"""

BASE = """\
from torch.testing._internal.common_utils import HardwareClassification, TestCase


class DeviceBase(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR
"""

# Classified only through its base: TEST_LINTER flags it, and so does hwlint
# with inheritance = "explicit" (with "inherit" it would not).
DERIVED = """\
from common_device import DeviceBase
from torch.testing._internal.common_device_type import instantiate_device_type_tests


class TestDerived(DeviceBase):
    def test_mul(self, device):
        pass


instantiate_device_type_tests(TestDerived, globals())
"""

LISTED = ["test/inductor/test_compile.py", "test/nn/test_conv.py", "test/test_derived.py"]


def guide() -> str:
    return GUIDE.read_text(encoding="utf-8")


def marked_block(marker: str, language: str) -> str:
    """The fenced block right after `<!-- marker: ... -->`."""
    match = re.search(rf"<!-- {re.escape(marker)}:[^>]*-->\n```{language}\n(.*?)```", guide(), re.S)
    assert match, f"docs/migrating.md lost its {marker} block"
    return match.group(1)


def shell_lines(marker: str) -> list[str]:
    return [line for line in marked_block(marker, "sh").splitlines() if line.strip()]


def diff_sides() -> tuple[str, str]:
    """The lintrunner diff's old side (context and `-` lines) and new side (context and `+` lines)."""
    lines = marked_block("migrating-lintrunner", "diff").splitlines()
    assert lines and all(line[:1] in (" ", "-", "+") for line in lines), lines
    old = "".join(line[1:] + "\n" for line in lines if line[0] in " -")
    new = "".join(line[1:] + "\n" for line in lines if line[0] in " +")
    return old, new


def test_the_guide_is_linked_from_the_readme_and_names_no_placeholder() -> None:
    assert "(docs/migrating.md)" in README.read_text(encoding="utf-8")
    adopting = ADOPTING.read_text(encoding="utf-8")
    assert "(migrating.md)" in adopting[:600]  # at the top of the adoption page
    for block in re.findall(r"```(?:sh|toml|diff)\n(.*?)```", guide(), re.S):
        assert not re.search(r"<[a-z][^>]*>", block), block  # <you>, <version>...
    old, new = diff_sides()
    assert old == TEST_LINTER_ENTRY  # the diff starts from PyTorch's entry
    (entry,) = tomllib.loads(new)["linter"]
    assert entry["code"] == "HWLINT" and entry["command"] == ["python3", "-m", "hwlint", "lintrunner", "@{{PATHSFILE}}"]
    assert entry["init_command"] == [
        "python3",
        "tools/linter/adapters/pip_init.py",
        "--dry-run={{DRYRUN}}",
        f"hwlint=={__version__}",
    ]
    settings = tomllib.loads(marked_block("migrating-config", "toml"))["tool"]["hwlint"]
    assert settings["inheritance"] == "explicit"  # TEST_LINTER's policy: the imported list fits it
    # include_patterns/exclude_patterns of the entry are the settings' include/exclude.
    assert settings["include"] == entry["include_patterns"] and settings["exclude"] == entry["exclude_patterns"]
    assert "import-json --quiet" in " ".join(shell_lines("migrating-switch"))


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A PyTorch-like tree that lints its tests with TEST_LINTER, committed,
    with origin/main at that commit. TEST_LINTER's list is up to date."""
    root = tmp_path / "pytorch"
    files = {
        "pyproject.toml": '[project]\nname = "torch"\nversion = "2.13.0"\n',
        ".lintrunner.toml": 'merge_base_with = "origin/main"\n\n' + TEST_LINTER_ENTRY,
        "tools/linter/adapters/test_linter.py": STAND_IN_LINTER,
        "tools/linter/adapters/test_linter_allowlist.json": json.dumps(LISTED, indent=2) + "\n",
        "tools/linter/adapters/pip_init.py": STAND_IN_PIP_INIT,
        "test/test_ops.py": CLASSIFIED,
        "test/nn/test_conv.py": UNCLASSIFIED,
        "test/inductor/test_compile.py": TWO_INSTANTIATED,
        "test/common_device.py": BASE,
        "test/test_derived.py": DERIVED,
        # Under EXCLUDE_PREFIXES: neither linter looks at them.
        "test/cpython/test_math.py": UNCLASSIFIED,
        "test/cpp_extensions/open_registration_extension/test_openreg.py": UNCLASSIFIED,
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git("init", "-q", "-b", "main", cwd=root)
    commit_all(root, "A tree linted by TEST_LINTER")
    git("update-ref", "refs/remotes/origin/main", "HEAD", cwd=root)
    return root


@pytest.fixture
def shell(tmp_path: Path, wheelhouse: Path) -> dict[str, str]:  # noqa: F811 (the fixture)
    """What the maintainer's shell has: lintrunner, git, and a `python3`
    (a fresh virtualenv) without hwlint until `lintrunner init` installs it,
    from the package index."""
    fresh = tmp_path / "venv"
    venv.create(fresh, with_pip=True)
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "lintrunner").symlink_to(Path(sys.executable).parent / "lintrunner")
    ours = str(Path(sys.executable).parent)  # where this test suite's hwlint is: not on the maintainer's PATH
    rest = [entry for entry in os.environ["PATH"].split(os.pathsep) if entry and entry != ours]
    path = os.pathsep.join([str(fresh / "bin"), str(shim), *rest])
    return _env(PATH=path, XDG_DATA_HOME=str(tmp_path / "data"), **pip_sees(wheelhouse))


def run(line: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["bash", "-c", line], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    print(f"$ {line} -> {done.returncode}\n{done.stdout}{done.stderr}")  # shown when an assertion fails
    return done


def test_the_guide_runs_word_for_word_on_a_pytorch_checkout(checkout: Path, shell: dict[str, str]) -> None:
    fresh_bin = checkout.parent / "venv" / "bin"
    assert not (fresh_bin / "hwlint").exists()  # lintrunner init is what installs it

    # 1. The settings, added to pyproject.toml.
    with (checkout / "pyproject.toml").open("a") as pyproject:
        pyproject.write("\n" + marked_block("migrating-config", "toml"))
    # 2. For the switch, hwlint's entry next to TEST_LINTER's.
    old, new = diff_sides()
    lintrunner_toml = checkout / ".lintrunner.toml"
    assert old in lintrunner_toml.read_text()
    lintrunner_toml.write_text(lintrunner_toml.read_text() + "\n" + new)

    # 3. Switch on hwlint: every line passes.
    outputs = []
    for line in shell_lines("migrating-switch"):
        done = run(line, checkout, shell)
        assert done.returncode == 0, line
        outputs.append(done.stdout)
    # The `hwlint` of the lines after `lintrunner init` was the one it installed.
    assert run("command -v hwlint", checkout, shell).stdout == f"{fresh_bin / 'hwlint'}\n"
    # import-json --quiet: one line, and the budgets are the files' counts.
    imported = outputs[1]
    assert imported == "Imported tools/linter/hwlint_allowlist.txt: 3 added; 3 entries.\n"
    assert (checkout / "tools/linter/hwlint_allowlist.txt").read_text() == HEADER + (
        "test/inductor/test_compile.py 2\ntest/nn/test_conv.py 1\ntest/test_derived.py 1\n"
    )
    assert git("status", "--porcelain", "--untracked-files=no", cwd=checkout) == ""
    # Side by side, a new unclassified class is reported by both linters.
    (checkout / "test" / "test_new.py").write_text(UNCLASSIFIED.replace("TestConv", "TestNew"))
    git("add", "test/test_new.py", cwd=checkout)
    both = run("lintrunner --all-files --take TEST_LINTER,HWLINT --output json", checkout, shell)
    assert both.returncode == 1
    found = [json.loads(line) for line in both.stdout.splitlines() if line.startswith("{")]
    assert sorted((Path(m["path"]).name, m["line"], m["code"]) for m in found) == [
        ("test_new.py", 4, "HWLINT"),
        ("test_new.py", 4, "TEST_LINTER"),
    ]
    git("rm", "-q", "-f", "test/test_new.py", cwd=checkout)

    # 4. Remove TEST_LINTER: its entry goes (the diff applied), then every line passes,
    # but `git grep`, which finds nothing left to remove.
    lintrunner_toml.write_text(lintrunner_toml.read_text().replace(old + "\n", "", 1))
    assert "TEST_LINTER" not in lintrunner_toml.read_text()
    assert lintrunner_toml.read_text() == 'merge_base_with = "origin/main"\n\n' + new
    lines = shell_lines("migrating-remove")
    codes = [run(line, checkout, shell).returncode for line in lines]
    assert codes == [1 if line.startswith("git grep") else 0 for line in lines]
    assert not (checkout / "tools/linter/adapters/test_linter.py").exists()
    assert "tools/linter/adapters/test_linter_allowlist.json" not in git("ls-files", cwd=checkout)

    # hwlint alone now guards the tree: a new unclassified class fails lintrunner.
    (checkout / "test" / "test_new.py").write_text(UNCLASSIFIED.replace("TestConv", "TestNew"))
    git("add", "test/test_new.py", cwd=checkout)
    caught = run("lintrunner --all-files --output json", checkout, shell)
    assert caught.returncode == 1
    found = [json.loads(line) for line in caught.stdout.splitlines() if line.startswith("{")]
    assert [(Path(m["path"]).name, m["code"], m["name"]) for m in found] == [
        ("test_new.py", "HWLINT", "HWC001 missing-classification")
    ]
