"""`hwlint fix --pr-description`: the pull request's description, written
from a real small project's fix: the whole Markdown against a golden file
(HWLINT_UPDATE_GOLDEN=1 rewrites it), one description per folder or file
(`--pr-per`), the test plan naming each classification touched, the
runtime check's counts (with torch, in HWLINT_TORCH_PYTHON), `--format
json`, and the bad arguments, each one line and exit 2."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from hwlint.cli.options import FIX_COMMAND
from hwlint.fix.pr_description import PER
from tests.conftest import run_cli, write_project

GOLDEN = Path(__file__).parent / "golden"
DOCS = Path(__file__).resolve().parent.parent / "docs" / "fix.md"

MAIN = '\n\nif __name__ == "__main__":\n    run_tests()\n'

# test/core: a device-free class (GENERIC, safe), an instantiated one
# (ACCELERATOR, safe), one whose tests take `device` (instantiated:
# `instantiate`) and a mixed class split by test (`split`).
OPS = (
    "import torch\n"
    "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n"
    "from torch.testing._internal.common_distributed import skip_if_no_gpu\n"
    "from torch.testing._internal.common_utils import TestCase, run_tests\n\n\n"
    "class TestParse(TestCase):\n"
    "    def test_int(self):\n"
    '        self.assertEqual(int("7"), 7)\n\n\n'
    "class TestAdd(TestCase):\n"
    "    def test_add(self, device):\n"
    "        x = torch.ones(2, device=device)\n"
    "        self.assertEqual((x + x).sum().item(), 4)\n\n\n"
    "instantiate_device_type_tests(TestAdd, globals())\n\n\n"
    "class TestIndex(TestCase):\n"
    "    def test_index(self, device):\n"
    "        self.assertEqual(torch.arange(3, device=device)[1].item(), 1)\n\n\n"
    "class TestCache(TestCase):\n"
    "    def setUp(self):\n"
    "        super().setUp()\n"
    '        self.state = {"w": torch.ones(2)}\n\n'
    "    def test_keys(self):\n"
    '        self.assertIn("w", self.state)\n\n'
    "    @skip_if_no_gpu\n"
    "    def test_pinned(self):\n"
    '        self.assertEqual(self.state["w"].cuda().sum().item(), 2)\n' + MAIN
)
# test/inductor: a class whose only accelerator use is CUDA (unsafe), an
# ACCELERATOR class with a test made device-generic and a CUDA test moved
# to a class of its own (`accelerator-tests`), and a mixed class left.
KERNELS = (
    "import unittest\n\n"
    "import torch\n"
    "from torch.testing._internal.common_cuda import TEST_CUDA\n"
    "from torch.testing._internal.common_device_type import instantiate_device_type_tests, onlyCUDA\n"
    "from torch.testing._internal.common_utils import HardwareClassification, TestCase, run_tests\n\n\n"
    '@unittest.skipIf(not TEST_CUDA, "needs CUDA")\n'
    "class TestStreams(TestCase):\n"
    "    def test_stream(self):\n"
    "        self.assertIsNotNone(torch.cuda.Stream())\n\n\n"
    "class TestCopy(TestCase):\n"
    "    hw_classification = HardwareClassification.ACCELERATOR\n\n"
    "    @onlyCUDA\n"
    "    def test_copy(self, device):\n"
    "        x = torch.ones(2, device=device)\n"
    "        self.assertEqual(x.clone(), x)\n\n"
    "    @onlyCUDA\n"
    "    def test_cudnn(self, device):\n"
    "        self.assertTrue(torch.backends.cudnn.is_available())\n\n\n"
    "instantiate_device_type_tests(TestCopy, globals())\n\n\n"
    "class TestProbe(TestCase):\n"
    "    def test_probe(self):\n"
    "        if TEST_CUDA and torch.xpu.is_available():\n"
    "            pass\n"
    "        torch.cuda.synchronize()\n"
    "        torch.xpu.synchronize()\n" + MAIN
)
FILES = {"test/core/test_ops.py": OPS, "test/inductor/test_kernels.py": KERNELS}


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("HWLINT_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text(), f"{name} differs (HWLINT_UPDATE_GOLDEN=1 rewrites it)"


@pytest.fixture
def tree(project) -> Path:
    return project(FILES)


def _fix(root: Path, *args: str) -> tuple[str, str, int]:
    proc = run_cli("fix", "--unsafe", *args, cwd=root)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.stdout, proc.stderr, proc.returncode


# -- the description ---------------------------------------------------------


def test_the_description_is_what_a_contributor_writes(tree: Path) -> None:
    # (TestStreams, whose class skip names CUDA, is instantiated for CUDA: a fifth migration.)
    _, err, _ = _fix(tree, "--pr-description", "out.md")
    text = (tree / "out.md").read_text()
    check_golden("pr_description.md", text)
    assert "Wrote the pull-request description to out.md." in err
    # What the run wrote: the title, and no dry-run note.
    assert text.startswith("# Declare hw_classification: 7 test classes in 2 test files (5 migrated)\n\n## Summary")
    # The summary's first line is the fix's own.
    assert err.splitlines()[0] in text


def test_a_dry_run_describes_what_would_be_written_and_writes_no_test_file(tree: Path) -> None:
    before = {rel: (tree / rel).read_text() for rel in FILES}
    out, _, code = _fix(tree, "--diff", "--pr-description", "out.md")
    assert code == 1 and out.startswith("--- a/test/core/test_ops.py")
    assert {rel: (tree / rel).read_text() for rel in FILES} == before
    text = (tree / "out.md").read_text()
    assert "> Described from a dry run: nothing is written yet" in text
    assert "Would classify 6 classes in 2 files" in text
    # Past the dry-run note and the tense, what it says is what the written run says.
    written = run_cli("fix", "--unsafe", "--pr-description", "-", cwd=tree).stdout
    dry = text.replace("Would classify", "Classified").replace("Would migrate", "Migrated")
    assert re.sub(r"> Described from a dry run.*\n\n", "", dry) == written


def test_one_description_per_folder_holds_that_folders_classes(tree: Path) -> None:
    _, err, _ = _fix(tree, "--diff", "--pr-description", "prs", "--pr-per", "folder")
    assert sorted(p.name for p in (tree / "prs").iterdir()) == ["test__core.md", "test__inductor.md"]
    assert "Wrote 2 pull-request descriptions to prs/ (one per folder)." in err
    core = (tree / "prs" / "test__core.md").read_text()
    inductor = (tree / "prs" / "test__inductor.md").read_text()
    assert core.startswith("# Declare hw_classification: 4 test classes in test/core (2 migrated)\n")
    assert inductor.startswith("# Declare hw_classification: 3 test classes in test/inductor (3 migrated)\n")
    classes = re.compile(r"^\| `(test/[^`:]+)` \| `(\w+)` \|", re.M)
    assert classes.findall(core) == [
        ("test/core/test_ops.py", "TestParse"),
        ("test/core/test_ops.py", "TestAdd"),
        ("test/core/test_ops.py", "TestIndex"),
        ("test/core/test_ops.py", "TestCache"),
    ]
    assert classes.findall(inductor) == [
        ("test/inductor/test_kernels.py", "TestStreams"),
        ("test/inductor/test_kernels.py", "TestCopy"),
        ("test/inductor/test_kernels.py", "TestCopyCUDAOnly"),
    ]
    # What is left goes with its folder.
    assert "TestProbe" in inductor and "TestProbe" not in core
    assert "hwlint check test/core/test_ops.py\n" in core


def test_one_description_per_file(project) -> None:
    root = project({**FILES, "test/core/test_more.py": "class TestMore:\n    def test_a(self):\n        pass\n"})
    _fix(root, "--pr-description", "prs", "--pr-per", "file")
    names = sorted(p.name for p in (root / "prs").iterdir())
    assert names == ["test__core__test_more.md", "test__core__test_ops.md", "test__inductor__test_kernels.md"]
    more = (root / "prs" / "test__core__test_more.md").read_text()
    assert more.startswith("# Declare hw_classification: 1 test class in test/core/test_more.py\n")


def test_the_test_plan_runs_each_classification_touched(tree: Path) -> None:
    _, _, _ = _fix(tree, "--diff", "--pr-description", "out.md")
    text = (tree / "out.md").read_text()
    plan = text[text.index("## Test plan") :]
    commands = re.search(r"```sh\n(.*?)```", plan, re.S)
    assert commands is not None
    assert commands.group(1).splitlines() == [
        "python test/core/test_ops.py --hw-classification GENERIC ACCELERATOR",
        "python test/inductor/test_kernels.py --hw-classification ACCELERATOR",
        "python test/inductor/test_kernels.py --hw-classification CUDA  # on a machine with CUDA",
        "hwlint check test/core/test_ops.py test/inductor/test_kernels.py",
    ]


def test_json_lists_the_descriptions_and_keeps_its_keys(tree: Path) -> None:
    plain = json.loads(run_cli("fix", "--unsafe", "--diff", "--format", "json", cwd=tree).stdout)
    out, _, _ = _fix(tree, "--diff", "--format", "json", "--pr-description", "prs", "--pr-per", "folder")
    data = json.loads(out)
    assert list(data) == [*plain, "pr_descriptions"]
    assert {k: v for k, v in data.items() if k != "pr_descriptions"} == plain
    assert [(d["path"], d["files"]) for d in data["pr_descriptions"]] == [
        ("prs/test__core.md", ["test/core/test_ops.py"]),
        ("prs/test__inductor.md", ["test/inductor/test_kernels.py"]),
    ]
    assert data["pr_descriptions"][0]["test_plan"][-1] == "hwlint check test/core/test_ops.py"


def test_nothing_to_fix_writes_no_description(project) -> None:
    root = project({"test/test_a.py": FILES["test/core/test_ops.py"]})
    run_cli("fix", "--unsafe", cwd=root)
    _, err, code = _fix(root, "--pr-description", "out.md")
    assert code == 0 and not (root / "out.md").exists()
    assert "No pull-request description written: the fix changes no file." in err


def test_the_options_say_the_modes_the_module_has() -> None:
    (per,) = [o for o in FIX_COMMAND if o.dest == "pr_per"]
    assert per.choices == PER


# -- bad input -----------------------------------------------------------------


@pytest.mark.parametrize(
    "args, message",
    [
        (("--pr-description", "missing/out.md"), "--pr-description missing/out.md: the folder missing does not exist"),
        (("--pr-description", "test"), "--pr-description test is a folder: name a file, or add --pr-per file|folder"),
        (("--pr-description", "pyproject.toml", "--pr-per", "folder"), "is a file: --pr-per folder writes one"),
        (("--pr-description", "-", "--pr-per", "file"), "--pr-per file writes a description per file into a folder"),
        (("--pr-description", "-", "--format", "json"), "--pr-description - and --format json both write on stdout"),
        (("--pr-description", "-", "--diff"), "--pr-description - and --diff both write on stdout"),
        (("--pr-per", "folder"), "--pr-per folder says how to cut the pull-request descriptions: add --pr-description"),
    ],
)
def test_bad_arguments_are_one_line_and_fix_nothing(tree: Path, args: tuple[str, ...], message: str) -> None:
    before = {rel: (tree / rel).read_text() for rel in FILES}
    proc = run_cli("fix", "--unsafe", *args, cwd=tree)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("hwlint: error: ") and message in proc.stderr
    assert {rel: (tree / rel).read_text() for rel in FILES} == before


def test_a_description_that_cannot_be_written_is_one_line(tree: Path) -> None:
    # A folder where the description goes: the rename over it fails (as root too).
    (tree / "prs" / "test__core.md").mkdir(parents=True)
    proc = run_cli("fix", "--unsafe", "--diff", "--pr-description", "prs", "--pr-per", "folder", cwd=tree)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.splitlines()[-1].startswith("hwlint: error: --pr-description prs: cannot write: ")


# -- the runtime check -----------------------------------------------------------


def test_the_runtime_section_shows_the_counts_before_and_after(tree: Path, torch_python: str) -> None:
    _, err, _ = _fix(tree, "--verify-runtime", "--python", torch_python, "--pr-description", "out.md")
    text = (tree / "out.md").read_text()
    section = text[text.index("## Runtime check") : text.index("## Test plan")]
    assert "Not run" not in section and "**0 lost**" in section
    # The totals are the runtime check's own, as fix printed them.
    totals = re.search(r"(\d+) tests before, (\d+) after: (\d+) renamed, (\d+) newly per-device", err)
    assert totals is not None
    before, after, renamed, per_device = totals.groups()
    assert f"{before} tests before, {after} after: {renamed} renamed, {per_device} newly per-device" in section
    rows = dict(re.findall(r"^\| `(test/[^`]+)` \| (\d+ \| \d+) \|", section, re.M))
    assert set(rows) == set(FILES)
    by_device = {d: (int(b), int(a)) for d, b, a in re.findall(r"^\| ([a-z ]+) \| (\d+) \| (\d+) \|$", section, re.M)}
    # TestCacheAccelerator is instantiated for XPU too (allow_xpu): new there.
    assert set(by_device) == {"not per device", "cpu", "cuda", "xpu"} and by_device["xpu"] == (0, 1)
    # Per device type, the counts add up to the totals.
    assert sum(b for b, _ in by_device.values()) == int(before)
    assert sum(a for _, a in by_device.values()) == int(after)


def test_without_the_runtime_check_the_description_says_how_to_run_it(tree: Path) -> None:
    _fix(tree, "--diff", "--pr-description", "out.md")
    text = (tree / "out.md").read_text()
    # A long line is written a file a line.
    assert (
        "```sh\nhwlint fix --unsafe --verify-runtime --python PYTHON \\\n"
        "    test/core/test_ops.py \\\n    test/inductor/test_kernels.py\n```"
        in text[text.index("## Runtime check") : text.index("## Test plan")]
    )


# -- docs/fix.md -------------------------------------------------------------------


def test_the_docs_example_is_what_fix_writes(tmp_path: Path) -> None:
    text = DOCS.read_text()
    before = re.search(r"<!-- pr-description-example: before -->\n```python\n(.*?)```", text, re.S)
    described = re.search(r"<!-- pr-description-example: description -->\n````markdown\n(.*?)````", text, re.S)
    assert before and described, "docs/fix.md lost its --pr-description example"
    root = write_project(tmp_path / "proj", {"test/test_ops.py": before.group(1)})
    proc = run_cli("fix", "--unsafe", "--pr-description", "-", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == described.group(1)
