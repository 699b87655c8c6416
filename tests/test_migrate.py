"""Class-level migrations of `hwlint fix --unsafe` (hwlint.fix.migrate):
snippets in, exact text out, for each migration and each reason it refuses;
every migrated file is fixed again to show that a second run changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hwlint.core.config import load_config
from hwlint.facts.devices import complement, instantiable
from hwlint.fix.apply import apply_fixes
from hwlint.fix.plan_records import ClassMove
from hwlint.fix.result import FixReport
from tests.conftest import lint, run_cli, write_project

IMPORTS = (
    "import torch\n"
    "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n"
    "from torch.testing._internal.common_utils import TestCase, run_tests\n"
)
DECLARED_IMPORTS = (
    "import torch\n"
    "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n"
    "from torch.testing._internal.common_utils import TestCase, run_tests, HardwareClassification\n"
)
MAIN = '\n\nif __name__ == "__main__":\n    run_tests()\n'


def migrate(
    tmp_path: Path, source: str, settings: dict | None = None, files: dict[str, str] | None = None
) -> tuple[str, FixReport]:
    """The file after `hwlint fix --unsafe`, and the report; a second run
    must change nothing."""
    root = write_project(tmp_path / "proj", {"test/test_a.py": source, **(files or {})}, settings)
    config = load_config(start=root)
    report = apply_fixes(config, lint(root), unsafe=True, jobs=1)
    text = (root / "test/test_a.py").read_text()
    again = apply_fixes(config, lint(root), unsafe=True, write=False, jobs=1)
    assert [f.path for f in again.files] == [], "a second run changed something"
    return text, report


def reasons(report: FixReport) -> list[str]:
    return [u.reason for u in sorted(report.unfixed, key=lambda u: (u.path, u.line))]


# -- only_for several devices ------------------------------------------------


def test_only_for_several_devices_becomes_except_for_the_complement(tmp_path: Path) -> None:
    source = (
        IMPORTS
        + (
            "\n\nclass TestA(TestCase):\n    def test_a(self, device):\n        torch.ones(2, device=device)\n\n\n"
            'instantiate_device_type_tests(TestA, globals(), only_for=("cpu", "cuda"))\n'
        )
        + MAIN
    )
    text, report = migrate(tmp_path, source)
    assert (
        text
        == DECLARED_IMPORTS
        + (
            "\n\nclass TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
            "    def test_a(self, device):\n        torch.ones(2, device=device)\n\n\n"
            'instantiate_device_type_tests(TestA, globals(), except_for=("hpu", "privateuse1"))\n'
        )
        + MAIN
    )
    assert report.migrated == {"only-for-except": 1}
    (done,) = report.files[0].migrated
    assert done.collected == ("TestACPU", "TestACUDA")
    assert report.files[0].moves == ()


@pytest.mark.parametrize(
    ("call", "after", "member"),
    [
        # XPU is instantiated only with allow_xpu: the complement keeps the flag's devices.
        (
            'only_for=("cuda", "xpu"), allow_xpu=True',
            'except_for=("cpu", "hpu", "privateuse1"), allow_xpu=True',
            "ACCELERATOR",
        ),
        # A PrivateUse1 backend's name stands for "privateuse1"; quotes follow the source.
        ("only_for=('cpu', 'npu')", "except_for=('cuda', 'hpu')", "ACCELERATOR"),
        # Without allow_xpu the call never instantiates XPU: one device is left.
        ('only_for=("cuda", "xpu")', 'only_for="cuda"', "CUDA"),
        # Every device it can instantiate: no filter at all.
        ('only_for=["cpu", "cuda", "hpu", "privateuse1"]', "", "ACCELERATOR"),
    ],
)
def test_only_for_complement_follows_the_framework(tmp_path: Path, call: str, after: str, member: str) -> None:
    body = "\n\nclass TestA(TestCase):\n    def test_a(self, device):\n        pass\n\n\n"
    source = IMPORTS + body + f"instantiate_device_type_tests(TestA, globals(), {call})\n"
    text, _ = migrate(tmp_path, source)
    end = (
        f"instantiate_device_type_tests(TestA, globals(), {after})\n"
        if after
        else ("instantiate_device_type_tests(TestA, globals())\n")
    )
    assert text.endswith(end)
    assert f"    hw_classification = HardwareClassification.{member}\n" in text


def test_complement_is_over_what_the_call_can_instantiate() -> None:
    assert instantiable(False, False) == ("cpu", "cuda", "hpu", "privateuse1")
    assert instantiable(True, True) == ("cpu", "cuda", "mps", "xpu", "hpu", "privateuse1")
    assert complement(("cuda:0", "openreg"), False, False) == ("cpu", "hpu")
    # Out-of-tree bases (TORCH_TEST_DEVICES) are never listed: they get the tests.
    assert complement(("cpu", "xla"), False, False) == ("cuda", "hpu", "privateuse1")


def test_only_for_a_module_constant_is_read(tmp_path: Path) -> None:
    source = IMPORTS + (
        '\nonly_for = ("cpu", "npu")\n\n\nclass TestA(TestCase):\n    def test_a(self, device):\n        pass\n\n\n'
        "instantiate_device_type_tests(TestA, globals(), only_for=only_for)\n"
    )
    text, _ = migrate(tmp_path, source)
    assert text.endswith('instantiate_device_type_tests(TestA, globals(), except_for=("cuda", "hpu"))\n')
    assert 'only_for = ("cpu", "npu")\n' in text  # the constant stays: other code may read it


@pytest.mark.parametrize("only_for", ['"npu"', '("npu", "privateuse1")'])
def test_only_for_one_unconfigured_device_becomes_accelerator_without_the_others(tmp_path: Path, only_for: str) -> None:
    # NPU is no configured member: the blacklist approach, as for several devices.
    source = IMPORTS + (
        "\n\nclass TestA(TestCase):\n    def test_a(self, device):\n        pass\n\n\n"
        f"instantiate_device_type_tests(TestA, globals(), only_for={only_for})\n"
    )
    text, report = migrate(tmp_path, source)
    assert text == DECLARED_IMPORTS + (
        "\n\nclass TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def test_a(self, device):\n        pass\n\n\n"
        'instantiate_device_type_tests(TestA, globals(), except_for=("cpu", "cuda", "hpu"))\n'
    )
    assert report.migrated == {"only-for-except": 1}


@pytest.mark.parametrize(
    ("head", "call", "reason"),
    [
        (
            'if torch.cuda.is_available():\n    device_types = ("cuda",)\nelse:\n    device_types = ("cpu", "cuda")\n',
            "only_for=device_types",
            "only_for (`device_types`) is not a literal: `device_types` is computed (assigned under a condition)",
        ),
        (
            "",
            "only_for=get_devices()",
            "only_for is computed: choose ACCELERATOR (with except_for) or one device by hand",
        ),
        (
            "",
            'only_for=("cpu", "cuda"), except_for=("hpu",)',
            "only_for is not given by keyword, or except_for is given too: migrate by hand",
        ),
        (
            "",
            'only_for=("mps", "xpu")',
            "only_for=('mps', 'xpu') names no device this call can instantiate: it runs nowhere; fix it by hand",
        ),
    ],
)
def test_only_for_refusals_say_why(tmp_path: Path, head: str, call: str, reason: str) -> None:
    source = (
        IMPORTS
        + head
        + (
            "\n\nclass TestA(TestCase):\n    def test_a(self, device):\n        pass\n\n\n"
            f"instantiate_device_type_tests(TestA, globals(), {call})\n"
        )
    )
    text, report = migrate(tmp_path, source)
    assert text == source
    assert reasons(report) == [reason]
    assert report.unfixed[0].kind == "only-for-several"


def test_only_for_instantiated_twice_is_refused(tmp_path: Path) -> None:
    source = IMPORTS + (
        "\n\nclass TestA(TestCase):\n    def test_a(self, device):\n        pass\n\n\n"
        'instantiate_device_type_tests(TestA, globals(), only_for=("cpu", "cuda"))\n'
        'instantiate_device_type_tests(TestA, globals(), only_for=("xpu",), allow_xpu=True)\n'
    )
    text, report = migrate(tmp_path, source)
    assert text == source
    assert reasons(report) == [
        "TestA is instantiated 2 times, 2 of them at module level: one instantiation can be migrated, choose by hand"
    ]


# -- a device parameter, never instantiated ----------------------------------


def test_a_device_test_is_instantiated_before_main(tmp_path: Path) -> None:
    source = (
        "import torch\nfrom torch.testing._internal.common_utils import TestCase, run_tests\n\n\n"
        "class TestA(TestCase):\n    def test_a(self, device):\n        torch.ones(2, device=device)\n"
    ) + MAIN
    text, report = migrate(tmp_path, source)
    assert (
        text
        == (
            "import torch\nfrom torch.testing._internal.common_utils import TestCase, run_tests, HardwareClassification\n"
            "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n\n\n"
            "class TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
            "    def test_a(self, device):\n        torch.ones(2, device=device)\n\n\n"
            "instantiate_device_type_tests(TestA, globals())\n"
        )
        + MAIN
    )
    assert report.migrated == {"instantiate": 1}
    assert report.files[0].migrated[0].collected == ("TestACPU", "TestACUDA", "TestAHPU", "TestAPRIVATEUSE1")


def test_the_instantiation_joins_the_others_and_merges_the_import(tmp_path: Path) -> None:
    source = (
        "import torch\nfrom torch.testing._internal.common_device_type import (\n    dtypes,\n    onlyCPU,\n)\n"
        "from torch.testing._internal.common_utils import TestCase, run_tests\n\n\n"
        "class TestA(TestCase):\n    @dtypes(torch.float)\n    def test_a(self, device, dtype):\n        pass\n\n\n"
        "class TestB(TestCase):\n    @onlyCPU\n    def test_b(self, device):\n        pass\n\n\n"
        "instantiate_device_type_tests(TestB, globals())\n"
    ) + MAIN
    text, report = migrate(tmp_path, source)
    assert (
        text
        == (
            "import torch\nfrom torch.testing._internal.common_device_type import (\n    dtypes,\n    onlyCPU,\n"
            "    instantiate_device_type_tests,\n)\n"
            "from torch.testing._internal.common_utils import TestCase, run_tests, HardwareClassification\n\n\n"
            "class TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
            "    @dtypes(torch.float)\n    def test_a(self, device, dtype):\n        pass\n\n\n"
            "class TestB(TestCase):\n    hw_classification = HardwareClassification.CPU\n\n"
            "    @onlyCPU\n    def test_b(self, device):\n        pass\n\n\n"
            'instantiate_device_type_tests(TestB, globals(), only_for="cpu")\n'
            "instantiate_device_type_tests(TestA, globals())\n"
        )
        + MAIN
    )
    # TestB's only test is @onlyCPU: the class is CPU's (nothing renamed).
    assert reasons(report) == []
    assert report.files[0].moves == (ClassMove("TestB", "TestB", ("test_b",), ("cpu",)),)


def test_an_unused_device_parameter_is_dropped(tmp_path: Path) -> None:
    source = IMPORTS + (
        "\n\nclass TestA(TestCase):\n    def test_a(self, device):\n        self.assertEqual(1, 1)\n\n"
        "    def test_b(self, device, n=2):  # a comment\n        pass\n"
    )
    text, report = migrate(tmp_path, source)
    assert text == DECLARED_IMPORTS + (
        "\n\nclass TestA(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
        "    def test_a(self):\n        self.assertEqual(1, 1)\n\n"
        "    def test_b(self, n=2):  # a comment\n        pass\n"
    )
    assert report.migrated == {"drop-device": 1}


def test_device_defaults_name_the_device(tmp_path: Path) -> None:
    # torch.xpu.get_device_properties has no device-generic equivalent: XPU tests.
    source = IMPORTS + (
        '\n\nclass TestA(TestCase):\n    def test_a(self, device="xpu"):\n        torch.xpu.get_device_properties()\n\n'
        '    def test_b(self, device=torch.device("xpu:0")):\n        pass\n'
    )
    text, report = migrate(tmp_path, source)
    # An XPU class is instantiated only_for="xpu" (HWC101/HWC111, as
    # TEST_LINTER's device-class rules): the framework passes `device`, and
    # the defaults go.
    assert text == DECLARED_IMPORTS + (
        "\n\nclass TestA(TestCase):\n    hw_classification = HardwareClassification.XPU\n\n"
        "    def test_a(self, device):\n        torch.xpu.get_device_properties()\n\n"
        "    def test_b(self, device):\n        pass\n\n\n"
        'instantiate_device_type_tests(TestA, globals(), only_for="xpu", allow_xpu=True)\n'
    )
    assert report.migrated == {"default-device": 1}
    (done,) = [d for f in report.files for d in f.migrated]
    assert done.collected == ("TestAXPU",)


def test_device_defaults_give_device_to_the_tests_without_one(tmp_path: Path) -> None:
    # torch-xpu-ops' regressions/test_sort.py: one test defaults `device` to
    # XPU, another uses XPU (with no device-generic equivalent) and takes none. The XPU class's tests all take
    # `device` (HWC102); the verification refused this before.
    source = IMPORTS + (
        '\n\nclass TestA(TestCase):\n    def test_a(self, device=torch.device("xpu")):\n        torch.ones(2, device=device)\n\n'
        "    def test_b(self):\n        torch.xpu.get_device_properties()\n"
    )
    text, report = migrate(tmp_path, source)
    assert text == DECLARED_IMPORTS + (
        "\n\nclass TestA(TestCase):\n    hw_classification = HardwareClassification.XPU\n\n"
        "    def test_a(self, device):\n        torch.ones(2, device=device)\n\n"
        "    def test_b(self, device):\n        torch.xpu.get_device_properties()\n\n\n"
        'instantiate_device_type_tests(TestA, globals(), only_for="xpu", allow_xpu=True)\n'
    )
    assert report.migrated == {"default-device": 1} and report.unfixed == []


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (
            '    def test_a(self, device="npu"):\n        self.assertEqual(device, "npu")\n',
            "every `device=` default is 'npu', which is not a configured classification: add it to `classifications`",
        ),
        (
            '    def test_a(self, device="xpu"):\n        pass\n\n    def test_b(self, device):\n        pass\n',
            "the tests' `device` defaults differ or are computed: choose the classification by hand",
        ),
        (
            '    def test_a(self, device="xpu"):\n        torch.cuda.get_device_capability()\n',
            "the tests default to 'xpu' but the class also uses torch.cuda.get_device_capability() (line 8): classify it "
            "by hand",
        ),
        ("    def test_a(self, devices):\n        pass\n", "a test takes `devices` (several devices): migrate by hand"),
        # PyTorch's distributed functional tests (instantiate_parametrized_tests):
        # instantiating them per device would leave none to collect.
        (
            '    @parametrize("device", ["cpu", "cuda"])\n    @parametrize("dim", [0, 1])\n'
            "    def test_a(self, device, dim):\n        torch.ones(dim, device=device)\n",
            "test_a gets `device` from its decorator (@parametrize), not from the device framework: migrate by hand",
        ),
        (
            '    @common_utils.parametrize("dtype, device", [(1, "cpu")])\n'
            "    def test_a(self, dtype, device):\n        torch.ones(1, device=device)\n",
            "test_a gets `device` from its decorator (@common_utils.parametrize), not from the device framework: "
            "migrate by hand",
        ),
        # torchao's tests: the `parameterized` library fills the parameters in
        # order, pytest's and hypothesis' by name; instantiated, none would run.
        (
            '    @parameterized.expand([("cpu",), ("cuda",)])\n'
            "    def test_a(self, device):\n        torch.ones(1, device=device)\n",
            "test_a gets `device` from its decorator (@parameterized.expand), not from the device framework: "
            "migrate by hand",
        ),
        (
            '    @pytest.mark.parametrize("device", ["cpu"])\n'
            "    def test_a(self, device):\n        torch.ones(1, device=device)\n",
            "test_a gets `device` from its decorator (@pytest.mark.parametrize), not from the device framework: "
            "migrate by hand",
        ),
        (
            '    @given(device=st.sampled_from(["cpu"]))\n'
            "    def test_a(self, device):\n        torch.ones(1, device=device)\n",
            "test_a gets `device` from its decorator (@given), not from the device framework: migrate by hand",
        ),
        (
            "    def test_a(self, device):\n        torch.ones(1, device=device)\n\n"
            "    def test_a_cpu(self, device):\n        torch.ones(1, device=device)\n",
            "instantiated, test_a would be named test_a_cpu on cpu, which another test already is: rename one, then migrate",
        ),
        (
            "    def test_a(self, device):\n        torch.cuda.synchronize()\n",
            "no test uses its `device`, but the class uses an accelerator (torch.cuda.synchronize(), line 8): "
            "instantiate it (ACCELERATOR) or classify it by hand",
        ),
    ],
)
def test_device_parameter_refusals_say_why(tmp_path: Path, body: str, reason: str) -> None:
    source = IMPORTS + "\n\nclass TestA(TestCase):\n" + body
    text, report = migrate(tmp_path, source)
    assert text == source
    assert reasons(report) == [reason]


def test_a_subclassed_class_is_not_instantiated(tmp_path: Path) -> None:
    source = (
        IMPORTS + "\n\nclass TestA(TestCase):\n    def test_a(self, device):\n        torch.ones(1, device=device)\n"
    )
    other = "from test.test_a import TestA\n\n\nclass TestB(TestA):\n    pass\n"
    text, report = migrate(tmp_path, source, files={"test/test_b.py": other})
    assert text == source
    assert any("a class in another file subclasses it" in r for r in reasons(report))
    same = source + "\n\nclass TestC(TestA):\n    hw_classification = 'GENERIC'\n"
    text, report = migrate(tmp_path / "same", same)
    assert "instantiate_device_type_tests(TestA" not in text and "ACCELERATOR" not in text
    assert any("another class of the module subclasses TestA" in r for r in reasons(report))


# -- the tests of ACCELERATOR classes ----------------------------------------


ACCELERATOR = (
    "import torch\n"
    "from torch.testing._internal.common_device_type import instantiate_device_type_tests, onlyCUDA, onlyXPU\n"
    "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n\n\n"
    "class TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
)
ACCELERATOR_TAIL = "\n\ninstantiate_device_type_tests(TestA, globals())\n"


def test_device_decorators_of_generic_tests_become_only_accelerator(tmp_path: Path) -> None:
    body = (
        "    @onlyCUDA\n    def test_a(self, device):\n        torch.ones(2, device=device)\n\n"
        "    @onlyXPU  # why\n    @onlyCUDA\n    def test_b(self, device):\n        pass\n\n"
        "    def test_c(self):\n        self.assertTrue(True)\n\n"
        "    def test_d(self, dtype):\n        pass\n"
    )
    text, report = migrate(tmp_path, ACCELERATOR + body + ACCELERATOR_TAIL)
    assert (
        text
        # The decorators it replaced go from the import (flake8's F401 would report them).
        == ACCELERATOR.replace("onlyCUDA, onlyXPU\n", "onlyAccelerator\n")
        + (
            "    @onlyAccelerator\n    def test_a(self, device):\n        torch.ones(2, device=device)\n\n"
            "    @onlyAccelerator  # why\n    def test_b(self, device):\n        pass\n\n"
            "    def test_c(self, device):\n        self.assertTrue(True)\n\n"
            "    def test_d(self, device, dtype):\n        pass\n"
        )
        + ACCELERATOR_TAIL
    )
    assert report.migrated == {"add-device": 2, "only-accelerator": 2}
    assert report.unfixed == []


@pytest.mark.parametrize(
    ("body", "reason", "code"),
    [
        (
            "    @onlyOn(DEVICES)\n    def test_a(self, device):\n        pass\n",
            "test_a is @onlyOn, which runs it on CPU too or names its devices: keep it in a class of those devices",
            "HWC103",
        ),
        (
            '    @onlyNativeDeviceTypesAnd(["xla"])\n    def test_a(self, device):\n        pass\n',
            "test_a is @onlyNativeDeviceTypesAnd, which runs it on CPU too or names its devices: keep it in a class of "
            "those devices",
            "HWC103",
        ),
        (
            "    @onlyCUDA\n    def test_a(self):\n        torch.cuda.synchronize()\n",
            "test_a is @onlyCUDA and names 'cuda': a test of that device; move it to a class of that device",
            "HWC103",
        ),
        (
            "    def test_a(self):\n        x = torch.ones(2).cuda()\n",
            "test_a takes no device and names 'cuda': make it device-generic or move it to a class of that device",
            "HWC102",
        ),
        (
            "    @staticmethod\n    def test_a():\n        pass\n",
            "test_a has no `self` to put `device` after",
            "HWC102",
        ),
    ],
)
def test_accelerator_test_refusals_say_why(tmp_path: Path, body: str, reason: str, code: str) -> None:
    source = ACCELERATOR + body + ACCELERATOR_TAIL
    text, report = migrate(tmp_path, source)
    assert text == source
    (left,) = report.unfixed
    line = next(n for n, text in enumerate(source.splitlines(), 1) if "def test_a" in text)
    assert (left.reason, left.code, left.kind, left.line) == (reason, code, "accelerator-tests", line)


def test_only_accelerator_under_the_name_the_file_imports(tmp_path: Path) -> None:
    source = (
        ACCELERATOR.replace(
            "onlyCUDA, onlyXPU\n",
            "onlyCUDA, onlyXPU\nfrom torch.testing._internal.common_device_type import onlyAccelerator as only_acc\n",
        )
        + ("    @onlyCUDA\n    def test_a(self, device):\n        pass\n")
        + ACCELERATOR_TAIL
    )
    text, _ = migrate(tmp_path, source)
    assert "    @only_acc\n    def test_a(self, device):\n" in text


# -- never a new finding -------------------------------------------------------


def test_a_migration_that_would_surface_a_finding_is_refused(tmp_path: Path) -> None:
    # Instantiating TestA makes it ACCELERATOR; test_b hard-codes CUDA, so
    # its missing `device` cannot be added: HWC102 would be new.
    source = IMPORTS + (
        "\n\nclass TestA(TestCase):\n    def test_a(self, device):\n        torch.ones(2, device=device)\n\n"
        "    def test_b(self):\n        torch.ones(2).cuda()\n"
    )
    text, report = migrate(tmp_path, source)
    assert text == source
    # Fixed again without the migration: test_b's own refusal goes with it.
    assert reasons(report) == ["not migrated: it would surface HWC102 (TestA.test_b)"]


# -- the command -------------------------------------------------------------


def test_fix_diff_and_json_show_the_migrations(tmp_path: Path) -> None:
    source = IMPORTS + (
        "\n\nclass TestA(TestCase):\n    def test_a(self, device):\n        torch.ones(2, device=device)\n\n\n"
        'instantiate_device_type_tests(TestA, globals(), only_for=("cpu", "cuda"))\n'
    )
    root = write_project(tmp_path / "proj", {"test/test_a.py": source})
    diff = run_cli("fix", "--unsafe", "--diff", cwd=root)
    assert diff.returncode == 1
    assert (
        '-instantiate_device_type_tests(TestA, globals(), only_for=("cpu", "cuda"))\n'
        '+instantiate_device_type_tests(TestA, globals(), except_for=("hpu", "privateuse1"))\n'
    ) in diff.stdout
    assert diff.stderr.splitlines()[:4] == [
        "Would classify 1 class in 1 file (ACCELERATOR 1).",
        "Would migrate (unsafe: review the diff), by kind:",
        "  1 only_for several devices -> except_for the complement (ACCELERATOR)",
        "Instantiated per device, collected as (where the machine has the device):",
    ]
    data = json.loads(run_cli("fix", "--unsafe", "--format", "json", cwd=root).stdout)
    assert data["migrated"] == {"only-for-except": 1}
    assert data["migrations"] == [
        {
            "path": "test/test_a.py",
            "line": 6,
            "class_name": "TestA",
            "method": None,
            "kind": "only-for-except",
            "classification": "ACCELERATOR",
            "detail": "only_for=('cpu', 'cuda') -> except_for=('hpu', 'privateuse1')",
            "collected_as": ["TestACPU", "TestACUDA"],
            "to_class": None,
        }
    ]
    assert data["moves"] == []
    assert run_cli("check", cwd=root).returncode == 0


def test_without_unsafe_nothing_is_migrated(tmp_path: Path) -> None:
    source = IMPORTS + "\n\nclass TestA(TestCase):\n    def test_a(self, device):\n        pass\n"
    root = write_project(tmp_path / "proj", {"test/test_a.py": source})
    proc = run_cli("fix", cwd=root)
    assert (root / "test/test_a.py").read_text() == source
    assert "tests take a device but the class is never instantiated" in proc.stderr


# -- a one-device class made device-generic ------------------------------------

ONE_DEVICE = (
    "import torch\nfrom torch.testing._internal.common_utils import TestCase, run_tests\n\n\n"
    "class TestOps(TestCase):\n"
    "    def setUp(self):\n        super().setUp()\n        self.eye = torch.eye(2).xpu()  # shared\n\n"
    '    def test_add(self):\n        a = torch.ones(2, device="xpu")\n        torch.xpu.synchronize()\n'
    "        self.assertEqual((a + a).sum().item(), 4)\n\n"
    '    def test_mul(self, dtype=torch.float):\n        b = torch.ones(2).to("xpu")\n'
) + MAIN


def test_a_one_device_class_becomes_an_instantiated_accelerator_class(tmp_path: Path) -> None:
    text, report = migrate(tmp_path, ONE_DEVICE)
    assert (
        text
        == (
            "import torch\nfrom torch.testing._internal.common_utils import TestCase, run_tests, HardwareClassification\n"
            "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n\n\n"
            "class TestOps(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
            "    def setUp(self):\n        super().setUp()\n        self.eye = torch.eye(2).to(self.device_type)  # shared\n\n"
            "    def test_add(self, device):\n        a = torch.ones(2, device=device)\n        torch.accelerator.synchronize()\n"
            "        self.assertEqual((a + a).sum().item(), 4)\n\n"
            "    def test_mul(self, device, dtype=torch.float):\n        b = torch.ones(2).to(device)\n\n\n"
            # allow_xpu: it still runs on XPU, where it ran; never only_for. Its
            # tests need an accelerator (setUp uses XPU): not CPU, where they never ran.
            'instantiate_device_type_tests(TestOps, globals(), except_for="cpu", allow_xpu=True)\n'
        )
        + MAIN
    )
    assert report.migrated == {"generalize": 1}
    assert report.classified == {"ACCELERATOR": 1}
    (done,) = report.files[0].migrated
    assert done.collected == ("TestOpsCUDA", "TestOpsXPU", "TestOpsHPU", "TestOpsPRIVATEUSE1")


def test_device_defaults_of_an_accelerator_are_generalized(tmp_path: Path) -> None:
    source = IMPORTS + (
        '\n\nclass TestA(TestCase):\n    def test_a(self, device="cuda"):\n        torch.ones(2, device=device)\n'
    )
    text, report = migrate(tmp_path, source)
    assert text == DECLARED_IMPORTS + (
        "\n\nclass TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def test_a(self, device):\n        torch.ones(2, device=device)\n\n\n"
        # Its device defaulted to CUDA: it never ran on CPU.
        'instantiate_device_type_tests(TestA, globals(), except_for="cpu", allow_xpu=True)\n'
    )
    assert report.migrated == {"generalize": 1}


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (
            ("torch.xpu.synchronize()", "torch.xpu.get_device_properties()"),
            # The line in the file as written (its declaration added).
            "`torch.xpu.get_device_properties()` (line 14) has no device-generic equivalent: "
            "device properties differ per backend",
        ),
        (
            ("self.assertEqual(", 'self.assertEqual(a.device.type == "xpu", '),
            '`"xpu"` (line 15) names a device in a string, which no rewrite changes',
        ),
        (
            ("class TestOps(TestCase):\n", "@skipIfNoXPU\nclass TestOps(TestCase):\n"),
            "`@skipIfNoXPU` (line 6) marks a class skipped only since torch 2.13 (oldest-torch 2.7): migrate by hand",
        ),
        (
            ("import torch\n", 'import torch\nDEVICE = torch.device("xpu")\n'),
            "`DEVICE` (line 2) is bound to a device at module level, and TestOps uses it: it is a test of that device",
        ),
        # torch-xpu-ops' export/test_converter_xpu.py: instantiated, test_mul on
        # CUDA would be a second test_mul_cuda, and the module would not import
        # (--verify-runtime found it losing all 48 tests).
        (
            ("    def test_mul(self", "    def test_mul_cuda(self):\n        pass\n\n    def test_mul(self"),
            "instantiated, test_mul would be named test_mul_cuda on cuda, which another test already is: rename one, "
            "then migrate",
        ),
    ],
)
def test_a_one_device_class_not_generalized_keeps_its_device(
    tmp_path: Path, change: tuple[str, str], reason: str
) -> None:
    source = ONE_DEVICE.replace(*change, 1)
    if "DEVICE =" in source:
        source = source.replace('device="xpu"', "device=DEVICE")
    text, report = migrate(tmp_path, source)
    if "skipIfNoXPU" in source:
        # Nor can it be instantiated for XPU (the class decorator): declared XPU's, it
        # would be findings of its own (HWC101, HWC102). Left, saying why; nothing written.
        assert text == source
        assert report.migrated == {} and report.files == []
        (left,) = report.unfixed
        assert (left.kind, left.reason) == (
            "not-instantiable",
            f"not generalized: {reason.replace(' (line 6)', '')}; "
            'not instantiated only_for="xpu": TestOps has class decorators (skipIfNoXPU): instantiate it by hand',
        )
        return
    assert "    hw_classification = HardwareClassification.XPU\n" in text
    # (test_mul_cuda, device-free, makes the class a split's too: refused, setUp uses XPU.)
    refused = [r for f in report.files for r in f.refused if r.migration.kind == "generalize"]
    assert refused[0].reason == reason
    assert report.to_dict()["not_generalized"][0]["reason"] == reason
    # It stays XPU's, instantiated for XPU (its tests given `device`), where nothing stands in the way.
    # (test_mul_cuda is no clash on XPU.)
    assert text.endswith(
        '\n\ninstantiate_device_type_tests(TestOps, globals(), only_for="xpu", allow_xpu=True)\n' + MAIN
    )
    assert "    def test_add(self, device):\n" in text
    assert report.migrated == {"device-class": 1}
    assert report.classified == {"XPU": 1}
    assert report.files[0].migrated[0].collected == ("TestOpsXPU",)


def test_a_class_reaching_a_module_level_device_through_a_helper_stays_that_devices(tmp_path: Path) -> None:
    # The class never names DEVICE: made device-generic, _ones() would still
    # make its tensors on XPU wherever the class ran.
    source = (
        IMPORTS + '\nDEVICE = torch.device("xpu")\n\n\ndef _ones():\n    return torch.ones(2, device=DEVICE)\n\n\n'
        "class TestOnes(TestCase):\n    def test_ones(self):\n        self.assertEqual(_ones().sum().item(), 2)\n"
        + MAIN
    )
    text, report = migrate(tmp_path, source)
    assert [r.reason for f in report.files for r in f.refused] == [
        "`DEVICE` (line 5) is bound to 'xpu' at module level, and TestOnes reaches it: it is a test of that device"
    ]
    assert "    hw_classification = HardwareClassification.XPU\n\n    def test_ones(self, device):\n" in text
    assert text.endswith(
        '\n\ninstantiate_device_type_tests(TestOnes, globals(), only_for="xpu", allow_xpu=True)\n' + MAIN
    )
    assert report.migrated == {"device-class": 1}


# -- docs/fix.md -------------------------------------------------------------

DOCS = Path(__file__).resolve().parent.parent / "docs" / "fix.md"


@pytest.mark.parametrize(
    "name",
    [
        "only-for",
        "device-param",
        "accelerator-tests",
        "generalize",
        "device-class",
        "needs-accelerator",
        "triton-flags",
        "config-patches",
        "any-gpu-spellings",
        "split-cpu",
        "split-one-device",
    ],
)
def test_docs_migration_examples_are_what_fix_does(tmp_path: Path, name: str) -> None:
    import re

    text = DOCS.read_text()
    blocks = dict(re.findall(rf"<!-- migration-example: {name} (\w+) -->\n```python\n(.*?)```", text, re.S))
    assert set(blocks) == {"before", "after"}, f"docs/fix.md lost its {name} before/after example"
    root = write_project(tmp_path / "proj", {"test/test_x.py": blocks["before"]})
    proc = run_cli("fix", "--unsafe", cwd=root)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert (root / "test/test_x.py").read_text() == blocks["after"]
    if name == "accelerator-tests":
        left = re.search(r"For the accelerator-tests example `fix` says where the test went: `(.*?)`\.", text, re.S)
        assert left and " ".join(left.group(1).split()) in proc.stderr
    again = run_cli("fix", "--unsafe", "--diff", cwd=root)
    assert again.stdout == ""


def test_an_accelerator_class_never_instantiated_gets_no_device(tmp_path: Path) -> None:
    # Its tests would be called without one: the finding (HWC101, HWC102) stays.
    source = ACCELERATOR + "    def test_a(self):\n        pass\n"
    text, report = migrate(tmp_path, source)
    assert text == source and report.files == []


# -- one-device tests move to a class of their device --------------------------------

MOVE_HEAD = (
    "import unittest\n"
    "import torch\n"
    "from torch.testing._internal.common_device_type import instantiate_device_type_tests, onlyCPU, onlyOn\n"
    "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n\n\n"
)
MOVE_CLASS = (
    "class TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
    "    def helper(self):\n        return 1\n\n"
    "    def test_keep(self, device):\n        torch.ones(2, device=device)\n\n"
    "    # CPU only: the comment goes with it\n"
    "    @onlyCPU\n    def test_cpu(self, device):\n        self.assertEqual(self.helper(), 1)\n\n"
    '    @onlyOn("cuda")\n    def test_gpu(self, device):\n        torch.cuda.synchronize()\n'
)


def test_one_device_tests_move_to_subclasses_of_their_device(tmp_path: Path) -> None:
    source = MOVE_HEAD + MOVE_CLASS + "\n\ninstantiate_device_type_tests(TestA, globals())\n"
    text, report = migrate(tmp_path, source)
    assert text == MOVE_HEAD + (
        "class TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def helper(self):\n        return 1\n\n"
        "    def test_keep(self, device):\n        torch.ones(2, device=device)\n\n\n"
        "class TestACPUOnly(TestA):\n    hw_classification = HardwareClassification.CPU\n\n"
        "    # CPU only: the comment goes with it\n"
        "    @onlyCPU\n    def test_cpu(self, device):\n        self.assertEqual(self.helper(), 1)\n\n\n"
        "class TestACUDAOnly(TestA):\n    hw_classification = HardwareClassification.CUDA\n\n"
        '    @onlyOn("cuda")\n    def test_gpu(self, device):\n        torch.cuda.synchronize()\n\n\n'
        "instantiate_device_type_tests(TestA, globals())\n"
        'instantiate_device_type_tests(TestACPUOnly, globals(), only_for="cpu")\n'
        'instantiate_device_type_tests(TestACUDAOnly, globals(), only_for="cuda")\n'
    )
    assert report.migrated == {"move-tests": 2}
    assert report.unfixed == []
    assert report.files[0].moves == (
        ClassMove("TestA", "TestACPUOnly", ("test_cpu",), ("cpu",)),
        ClassMove("TestA", "TestACUDAOnly", ("test_gpu",), ("cuda",)),
    )
    assert [d.collected for d in report.files[0].migrated] == [("TestACPUOnlyCPU",), ("TestACUDAOnlyCUDA",)]


def test_native_device_tests_move_to_an_accelerator_class_without_the_other_types(tmp_path: Path) -> None:
    source = (
        "import torch\nfrom torch.testing._internal.common_device_type import (\n"
        "    instantiate_device_type_tests,\n    onlyNativeDeviceTypes,\n)\n"
        "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n\n\n"
        "class TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def test_keep(self, device):\n        pass\n\n"
        "    @onlyNativeDeviceTypes\n    def test_native(self, device):\n        torch.ones(2, device=device)\n\n\n"
        'instantiate_device_type_tests(TestA, globals(), except_for="mps", allow_xpu=True)\n'
    )
    text, report = migrate(tmp_path, source)
    assert text == (
        "import torch\nfrom torch.testing._internal.common_device_type import (\n"
        "    instantiate_device_type_tests,\n)\n"
        "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n\n\n"
        "class TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def test_keep(self, device):\n        pass\n\n\n"
        "class TestANative(TestA):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def test_native(self, device):\n        torch.ones(2, device=device)\n\n\n"
        'instantiate_device_type_tests(TestA, globals(), except_for="mps", allow_xpu=True)\n'
        'instantiate_device_type_tests(TestANative, globals(), allow_xpu=True, except_for=("mps", "hpu", "xla"))\n'
    )
    assert report.files[0].moves == (ClassMove("TestA", "TestANative", ("test_native",), ()),)


def test_a_class_whose_tests_all_have_one_device_becomes_that_device(tmp_path: Path) -> None:
    # Class decorators stay on it: nothing is subclassed.
    source = MOVE_HEAD + (
        '@unittest.skipIf(False, "never")\n'
        "class TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    @onlyCPU\n    def test_cpu(self, device):\n        super().setUp()\n\n\n"
        'instantiate_device_type_tests(TestA, globals(), except_for="cuda", include_lazy=True)\n'
    )
    text, report = migrate(tmp_path, source)
    assert text == source.replace("ACCELERATOR", "CPU").replace(
        'except_for="cuda", include_lazy=True', 'only_for="cpu"'
    )
    assert report.files[0].moves == (ClassMove("TestA", "TestA", ("test_cpu",), ("cpu",)),)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (
            lambda s: s.replace("class TestA(TestCase):", "TestACPUOnly = None\n\n\nclass TestA(TestCase):"),
            "the name TestACPUOnly is taken",
        ),
        (
            lambda s: s.replace("self.assertEqual(self.helper(), 1)", "super().test_keep(device)"),
            "test_cpu uses super() or __class__, which a move changes",
        ),
        (lambda s: s + "TestA.alias = TestA.test_cpu\n", "test_cpu is named elsewhere in the module"),
        (
            lambda s: s.replace("globals())", "globals(), 1)"),
            "TestA's instantiate_device_type_tests call has more positional arguments than the scope",
        ),
    ],
)
def test_a_move_is_refused_with_the_reason(tmp_path: Path, change, reason: str) -> None:
    source = change(
        MOVE_HEAD
        + MOVE_CLASS.split("    @onlyOn")[0].rstrip("\n")
        + "\n"
        + "\n\ninstantiate_device_type_tests(TestA, globals())\n"
    )
    text, report = migrate(tmp_path, source)
    assert text == source
    (left,) = report.unfixed
    assert (left.reason, left.code, left.kind) == (
        f"test_cpu is @onlyCPU; not moved: {reason}",
        "HWC103",
        "accelerator-tests",
    )


def test_a_move_to_an_unconfigured_device_or_past_include_lazy_is_refused(tmp_path: Path) -> None:
    source = (
        MOVE_HEAD
        + MOVE_CLASS.split("    @onlyOn")[0].rstrip("\n")
        + "\n"
        + "\n\ninstantiate_device_type_tests(TestA, globals())\n"
    )
    text, report = migrate(tmp_path, source, {"classifications": ["GENERIC", "ACCELERATOR", "CUDA"]})
    assert text == source
    assert reasons(report) == ["test_cpu is @onlyCPU; not moved: CPU is not a configured classification"]
    native = source.replace("@onlyCPU", "@onlyNativeDeviceTypes").replace("globals())", "globals(), include_lazy=True)")
    text, report = migrate(tmp_path / "lazy", native)
    assert text == native
    assert reasons(report) == [
        "test_cpu is @onlyNativeDeviceTypes; not moved: include_lazy=True adds Lazy, which except_for cannot leave out"
    ]


def test_a_moved_test_keeps_its_class_decorators_and_a_test_that_cannot_move_stays(tmp_path: Path) -> None:
    # What a class decorator does to the class's tests it does to the moved ones: the subclass wears it too.
    # test_other cannot move (another test calls it): it stays, with its finding.
    source = (
        MOVE_HEAD
        + '@unittest.skipIf(False, "never")\n'
        + MOVE_CLASS.split("    @onlyOn")[0]
        + (
            "    @onlyCPU\n    def test_other(self, device):\n        pass\n\n"
            "    def test_calls(self, device):\n        self.test_other(device)\n"
            "\n\ninstantiate_device_type_tests(TestA, globals())\n"
        )
    )
    text, report = migrate(tmp_path, source)
    assert '\n\n\n@unittest.skipIf(False, "never")\nclass TestACPUOnly(TestA):\n' in text
    assert [d.method for d in report.files[0].migrated] == ["test_cpu"]
    assert reasons(report) == ["test_other is @onlyCPU; not moved: test_other is named elsewhere in the module"]


def test_a_test_on_several_devices_moves_to_an_accelerator_class_without_the_others(tmp_path: Path) -> None:
    source = (
        MOVE_HEAD
        + MOVE_CLASS.split("    @onlyOn")[0]
        + (
            '    @onlyOn(["cuda", "xpu", "mps"])\n    def test_gpus(self, device):\n        torch.ones(1, device=device)\n'
            "\n\ninstantiate_device_type_tests(TestA, globals(), allow_xpu=True)\n"
        )
    )
    text, report = migrate(tmp_path, source)
    # MPS is not instantiated there (no allow_mps): the test ran on CUDA and XPU.
    assert (
        "class TestACUDAXPUOnly(TestA):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def test_gpus(self, device):\n"
    ) in text
    assert text.endswith(
        "instantiate_device_type_tests(TestACUDAXPUOnly, globals(), allow_xpu=True, "
        'except_for=("cpu", "hpu", "privateuse1"))\n'
    )
    assert report.files[0].moves[-1] == ClassMove("TestA", "TestACUDAXPUOnly", ("test_gpus",), ("cuda", "xpu"))
    # @onlyOn has no other use: its import goes (flake8's F401 would report it).
    assert "import instantiate_device_type_tests, onlyCPU\n" in text


def test_a_device_default_naming_a_module_level_device_is_that_device(tmp_path: Path) -> None:
    # intel-extension-for-pytorch's tests/gpu/examples: `device=dpcpp_device`
    # after a parameter with a default; the device framework passes `device`
    # by name, so it moves ahead of them when its default goes.
    source = (
        IMPORTS + '\ncpu_device = torch.device("cpu")\ndpcpp_device = torch.device("xpu")\n\n\n'
        "class TestTorchMethod(TestCase):\n"
        "    def test_inverse(self, dtype=torch.float32, device=dpcpp_device):\n"
        "        a = torch.eye(3, dtype=dtype, device=device)\n"
        "        self.assertEqual(torch.linalg.inv(a).to(cpu_device), torch.eye(3, dtype=dtype))\n\n"
        "    def test_det(self, device=dpcpp_device):\n"
        "        self.assertEqual(torch.linalg.det(torch.eye(2, device=device)).item(), 1.0)\n" + MAIN
    )
    text, report = migrate(tmp_path, source)
    assert "    def test_inverse(self, device, dtype=torch.float32):\n" in text
    assert "    def test_det(self, device):\n" in text
    assert "    hw_classification = HardwareClassification.ACCELERATOR\n" in text
    assert text.endswith(
        '\n\ninstantiate_device_type_tests(TestTorchMethod, globals(), except_for="cpu", allow_xpu=True)\n' + MAIN
    )
    assert report.migrated == {"generalize": 1}


def test_a_node_libcst_refuses_is_a_refused_migration_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import libcst as cst

    from hwlint.fix.migrate import parameters as module

    def refuse(*args: object, **kwargs: object) -> None:
        raise cst.CSTValidationError("Cannot have param without defaults following a param with defaults.")

    monkeypatch.setattr(module, "_without_default", refuse)
    source = (
        IMPORTS + '\n\nclass TestOps(TestCase):\n    def test_add(self, device="xpu"):\n'
        "        torch.ones(2, device=device)\n" + MAIN
    )
    root = write_project(tmp_path / "proj", {"test/test_a.py": source})
    report = apply_fixes(load_config(start=root), lint(root), unsafe=True, jobs=1)
    assert [u.reason for u in report.unfixed] == [
        "not migrated: Cannot have param without defaults following a param with defaults."
    ]
    assert report.migrated == {} and report.files == []
    assert "instantiate_device_type_tests(TestOps" not in (root / "test/test_a.py").read_text()


def test_a_pytest_class_is_left_not_instantiated(tmp_path: Path) -> None:
    # torchao's float8 tests: `class TestFloat8TrainingTensor:` with
    # @pytest.mark.parametrize. instantiate_device_type_tests makes TestCase
    # classes of a TestCase: on this one the module's import would fail.
    source = (
        "import pytest\nimport torch\n\n\nclass TestPlain:\n"
        "    def test_cpu(self):\n        assert torch.ones(1).sum() == 1\n\n"
        '    @pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA")\n'
        "    def test_cuda(self):\n"
        '        torch.cuda.jiterator._create_jit_fn("template <typename T> T f(T x) { return x; }")\n'
    )
    text, report = migrate(tmp_path, source)
    assert text == source and report.migrated == {}
    (left,) = report.unfixed
    assert (left.class_name, left.kind) == ("TestPlain", "not-instantiable")
    assert (
        left.reason == "TestPlain derives from no TestCase (a pytest class): the device framework cannot instantiate it"
    )
    # A base of another class of the module (a mixin) is migrated as before.
    mixin = source + "\n\nclass TestRun(TestPlain, unittest.TestCase):\n    pass\n"
    _, report = migrate(tmp_path / "mixin", "import unittest\n" + mixin)
    assert all("derives from no TestCase" not in u.reason for u in report.unfixed)


def test_a_test_whose_parameters_are_filled_in_order_is_not_given_device(tmp_path: Path) -> None:
    # pytorch/xla's pjrt/test_dtypes.py: absl's @parameterized.parameters
    # fills the test's parameters in order; `device` after `self` would take
    # the dtype. The class is no longer made device-generic.
    source = (
        "import torch\nfrom absl.testing import parameterized\n\n\n"
        "class TestDtypes(parameterized.TestCase):\n"
        "    @parameterized.parameters(torch.float16, torch.float32)\n"
        "    def test_dtype(self, dtype):\n"
        '        torch.ones(2, dtype=dtype).to("xpu")\n'
    )
    text, report = migrate(tmp_path, source)
    assert text == source and report.migrated == {}
    (left,) = report.unfixed
    assert (left.class_name, left.kind) == ("TestDtypes", "not-instantiable")
    assert left.reason == (
        'neither made device-generic nor instantiated only_for="xpu": test_dtype\'s parameters are filled in order '
        "by @parameterized.parameters: migrate by hand"
    )
