"""Pinned memory needs an accelerator, whichever it is: `.pin_memory()` and
`torch.empty(..., pin_memory=True)` raise where there is none (a
DataLoader's `pin_memory=True` only warns). A test that pins is no GENERIC
test: OpenReg's `TestStorage` (torch_openreg's suite) was declared GENERIC
by the safe fix before. Snippets in, exact text out."""

from __future__ import annotations

from pathlib import Path

import pytest

from hwlint.facts.extract import extract_source
from tests.conftest import run_cli, write_project
from tests.test_migrate import MAIN, migrate

HEAD = "import torch\nfrom torch.testing._internal.common_utils import TestCase, run_tests\n"
DECLARED = (
    "import torch\nfrom torch.testing._internal.common_utils import TestCase, run_tests, HardwareClassification\n"
    "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n"
)


@pytest.mark.parametrize(
    ("line", "site"),
    [
        ("x = torch.randn(4).pin_memory()", ".pin_memory()"),
        ("x = torch.empty(4, pin_memory=True)", "pin_memory=True"),
    ],
)
def test_a_test_that_pins_memory_needs_an_accelerator(tmp_path: Path, line: str, site: str) -> None:
    source = HEAD + f"\n\nclass TestPin(TestCase):\n    def test_pin(self):\n        {line}\n" + MAIN
    root = write_project(tmp_path / "proj", {"test/test_a.py": source})
    proc = run_cli("check", "--no-cache", cwd=root)
    assert (
        "test/test_a.py:5:1: HWC001 test class TestPin declares no hw_classification: add `hw_classification = "
        f"HardwareClassification.<MEMBER>`; its tests run only with an accelerator ({site}, line 7): GENERIC would "
        "send them to CPU runners, where they fail; make the class ACCELERATOR (instantiated per device) or classify "
        "it as the device its runners have\n"
    ) in proc.stdout


def test_the_class_that_pins_becomes_accelerator_and_a_loaders_pinning_stays_generic(tmp_path: Path) -> None:
    source = HEAD + (
        "from torch.utils.data import DataLoader\n\n\n"
        "class TestPin(TestCase):\n    def test_pin(self):\n        x = torch.randn(4).pin_memory()  # pinned\n\n\n"
        "class TestLoader(TestCase):\n    def test_loader(self):\n"
        "        # x.pin_memory() is not called here\n"
        "        DataLoader(list(range(4)), pin_memory=True)\n"
    )
    text, _ = migrate(tmp_path, source + MAIN)
    assert (
        text
        == HEAD.replace("run_tests\n", "run_tests, HardwareClassification\n")
        + (
            "from torch.utils.data import DataLoader\n"
            "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n\n\n"
            "class TestPin(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
            "    def test_pin(self, device):\n        x = torch.randn(4).pin_memory()  # pinned\n\n\n"
            "class TestLoader(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
            "    def test_loader(self):\n"
            "        # x.pin_memory() is not called here\n"
            "        DataLoader(list(range(4)), pin_memory=True)\n\n\n"
            'instantiate_device_type_tests(TestPin, globals(), except_for="cpu", allow_xpu=True)\n'
        )
        + MAIN
    )


def test_a_class_with_one_test_that_pins_is_split(tmp_path: Path) -> None:
    source = HEAD + (
        "\n\nclass TestPin(TestCase):\n    def test_pin(self):\n        torch.randn(4).pin_memory()\n\n"
        "    def test_plain(self):\n        torch.ones(2)\n"
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert (
        text
        == DECLARED
        + (
            "\n\nclass TestPinGeneric(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
            "    def test_plain(self):\n        torch.ones(2)\n\n\n"
            "class TestPinAccelerator(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
            "    def test_pin(self, device):\n        torch.randn(4).pin_memory()\n\n\n"
            'instantiate_device_type_tests(TestPinAccelerator, globals(), except_for="cpu", allow_xpu=True)\n'
        )
        + MAIN
    )
    assert report.migrated == {"split": 2}


def test_pinning_in_setup_is_every_tests_and_in_a_test_its_own() -> None:
    source = HEAD + (
        "\n\nclass TestA(TestCase):\n    def setUp(self):\n        self.x = torch.ones(2).pin_memory()\n\n"
        "    def test_a(self):\n        pass\n\n\n"
        "class TestB(TestCase):\n    def test_b(self):\n        pass\n\n    def test_c(self):\n"
        "        y = torch.zeros(2, pin_memory=True)\n"
    )
    facts = extract_source("test/test_a.py", source)
    a, b = facts.classes
    assert [(s.line, s.text, s.kind, s.name) for s in a.requires] == [(7, ".pin_memory()", "setup", "")]
    assert [(s.line, s.text, s.kind, s.name) for s in b.requires] == [(18, "pin_memory=True", "body", "")]
