"""Parity with PyTorch's TEST_LINTER (issue 13): hwlint reports every
per-classification finding TEST_LINTER reports, and nothing on the shapes of
PyTorch's own migrated files that TEST_LINTER accepts.

The snippets are written from those shapes (patching an accelerator module,
context managers, skip decorators), not copied."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.conftest import lint, run_cli, write_project

HEADER = (
    "import unittest\nfrom unittest import mock\n\nimport torch\n"
    "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n\n"
)


def diagnostics(tmp_path: Path, body: str, **settings: object) -> list[tuple[int, str, str]]:
    """(line, code, message) of each diagnostic, for a file of HEADER + body."""
    root = write_project(tmp_path / "proj", {"test/test_x.py": HEADER + textwrap.dedent(body)}, dict(settings))
    return [(d.line - HEADER.count("\n"), d.code, d.message) for d in lint(root).diagnostics]


# -- accepted: PyTorch's migrated shapes ------------------------------------

MIGRATED_GENERIC = """\
class TestLazyInit(TestCase):
    hw_classification = HardwareClassification.GENERIC

    @mock.patch.object(torch.cuda, "is_available", lambda: True)
    def test_patched_available(self):
        self.assertTrue(torch.cuda.is_available)

    def test_no_accelerator(self):
        with mock.patch.object(torch.accelerator, "current_accelerator", return_value=None):
            pass
        with mock.patch("torch.cuda.device_count", return_value=0), mock.patch.object(torch.xpu, "is_available"):
            pass

    def test_types(self, stream: "torch.cuda.Stream | None" = None, module=torch.cuda):
        self.assertFalse(isinstance(stream, torch.cuda.Stream))
        self.assertIs(getattr(torch, "cuda"), module)
        self.assertEqual(torch.version.cuda, torch.version.cuda)
"""


def test_generic_class_that_patches_accelerator_modules_is_clean(tmp_path: Path) -> None:
    assert diagnostics(tmp_path, MIGRATED_GENERIC) == []


def test_fix_infers_generic_for_a_class_that_only_patches(tmp_path: Path) -> None:
    """A module passed as an argument is not accelerator use for fix either:
    no unsafe CUDA suggestion, a safe GENERIC."""
    source = HEADER + MIGRATED_GENERIC.replace("    hw_classification = HardwareClassification.GENERIC\n\n", "")
    root = write_project(tmp_path / "proj", {"test/test_x.py": source})
    proc = run_cli("fix", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert "    hw_classification = HardwareClassification.GENERIC\n" in (root / "test/test_x.py").read_text()
    assert "Classified 1 class in 1 file (GENERIC 1)." in proc.stderr


def test_accelerator_class_with_only_accelerator_is_clean(tmp_path: Path) -> None:
    body = """\
    from torch.testing._internal.common_device_type import instantiate_device_type_tests, onlyAccelerator

    class TestOps(TestCase):
        hw_classification = HardwareClassification.ACCELERATOR

        @onlyAccelerator
        def test_add(self, device):
            torch.ones(2, device=device)

    instantiate_device_type_tests(TestOps, globals(), except_for="mps")
    """
    assert diagnostics(tmp_path, body) == []


# -- reported: what TEST_LINTER reports --------------------------------------


def test_every_accelerator_call_is_reported_with_what_it_does(tmp_path: Path) -> None:
    body = """\
    class TestMixed(TestCase):
        hw_classification = HardwareClassification.GENERIC

        @unittest.skipIf(not torch.cuda.is_available(), "needs CUDA")
        def test_a(self):
            x = torch.empty(4, 5).cuda()
            torch.nn.Linear(2, 2).xpu()

        def setUp(self):
            if not torch.accelerator.is_available():
                self.skipTest("needs an accelerator")
            torch.cuda.get_device_name(0).lower()
    """
    assert diagnostics(tmp_path, body) == [
        (
            4,
            "HWC105",
            "GENERIC test class TestMixed probes an accelerator (torch.cuda.is_available()): "
            "move these tests to an ACCELERATOR or device class",
        ),
        (
            6,
            "HWC105",
            "GENERIC test class TestMixed uses an accelerator (torch.empty(...).cuda()): "
            "move these tests to an ACCELERATOR or device class",
        ),
        (
            7,
            "HWC105",
            "GENERIC test class TestMixed uses an accelerator (torch.nn.Linear(...).xpu()): "
            "move these tests to an ACCELERATOR or device class",
        ),
        (
            10,
            "HWC105",
            "GENERIC test class TestMixed probes an accelerator (torch.accelerator.is_available()): "
            "move these tests to an ACCELERATOR or device class",
        ),
        # TEST_LINTER counts the call on CUDA's answer and the question, so does hwlint.
        (
            12,
            "HWC105",
            "GENERIC test class TestMixed uses an accelerator (torch.cuda.get_device_name(...).lower()): "
            "move these tests to an ACCELERATOR or device class",
        ),
        (
            12,
            "HWC105",
            "GENERIC test class TestMixed probes an accelerator (torch.cuda.get_device_name()): "
            "move these tests to an ACCELERATOR or device class",
        ),
    ]


@pytest.mark.parametrize(
    "call",
    [
        "torch.xpu.has_fp64_dtype()",
        "torch.xpu.has_onemkl()",
        "torch.xpu.has_xmx()",
        "torch.backends.cuda.sdp_kernel()",
        "torch.backends.cuda.is_flash_attention_available()",
        "torch.backends.mps.is_available()",
        "torch.ops.xla.add(x, x)",
        "torch.mtia.is_available()",
        "torch.hpu.device_count()",
        "torch.randn(2, device=torch.cuda.current_device()).sum()",
    ],
)
def test_each_segment_test_linter_knows_is_reported(tmp_path: Path, call: str) -> None:
    body = f"""\
    class TestA(TestCase):
        hw_classification = HardwareClassification.GENERIC

        def test_a(self, x=None):
            {call}
    """
    assert [(line, code) for line, code, _ in diagnostics(tmp_path, body)][:1] == [(5, "HWC105")]


@pytest.mark.parametrize(
    "code",
    [
        "torch.backends.cudnn.is_available()",  # cudnn is not an accelerator segment (TEST_LINTER agrees)
        "x.cuda()",  # a tensor method on a name: hard-coded device use, HWC201 (off by default)
        "torch._C._cuda_getDeviceCount()",
        "getattr(torch, 'cuda')",
    ],
)
def test_calls_test_linter_accepts_are_accepted(tmp_path: Path, code: str) -> None:
    body = f"""\
    class TestA(TestCase):
        hw_classification = HardwareClassification.GENERIC

        def test_a(self, x=None):
            {code}
    """
    assert diagnostics(tmp_path, body) == []


def test_deliberately_broader_cases_are_the_documented_ones(tmp_path: Path) -> None:
    """PrivateUse1 modules, TEST_CUDA-style flags and a probing class
    decorator: reported by hwlint, named in HWC105's explanation."""
    body = """\
    @unittest.skipIf(not torch.cuda.is_available(), "needs CUDA")
    class TestA(TestCase):
        hw_classification = HardwareClassification.GENERIC

        def test_a(self):
            self.assertTrue(TEST_CUDA)
            torch.npu.synchronize()
    """
    assert [(line, code) for line, code, _ in diagnostics(tmp_path, body)] == [
        (1, "HWC105"),
        (6, "HWC105"),
        (7, "HWC105"),
    ]
    from hwlint.rules.accelerator_api import AcceleratorApi

    explanation = AcceleratorApi.explanation()
    for named in ("torch.npu", "TEST_CUDA", "class's own decorators", "patch target"):
        assert named in explanation


def test_what_leaves_a_test_running_on_a_cpu_only_runner_is_not_reported(tmp_path: Path) -> None:
    """Deliberately narrower than the earlier TEST_LINTER's
    `[accelerator_availability]` (PyTorch's current one has no such rule):
    a skip *when* there is an accelerator, an answer handed on to the code
    under test, and a branch on one (with the calls in its accelerator arm)
    leave the test running on a CPU-only runner, the same way. PyTorch's own
    migrated GENERIC classes do all three. A skip *unless* there is one, an
    assertion on it, and an unguarded call still are reported."""
    body = """\
    class TestA(TestCase):
        hw_classification = HardwareClassification.GENERIC

        @unittest.skipIf(torch.accelerator.is_available(), "CPU-only hosts")
        @unittest.skipUnless(not TEST_CUDA, "CPU-only hosts")
        def test_without(self):
            if torch.cuda.is_available():
                self.skipTest("CPU-only hosts")
            make(TEST_CUDA, pinned=torch.accelerator.is_available())

        def test_branches(self):
            if torch.cuda.is_available():
                expected = type(torch.cuda.device(torch.device("cuda:0")))
            else:
                expected = type(contextlib.nullcontext())
            if not torch.cuda.is_available() or torch.cuda.device_count() < 2:
                pass
            y = torch.cuda.current_device() if torch.cuda.is_available() else 0
            if torch.cuda.is_available() and torch.cuda.device_count() > 1:
                torch.cuda.synchronize()

        @unittest.skipUnless(torch.cuda.is_available(), "needs CUDA")
        def test_needs(self):
            if not torch.cuda.is_available():
                return
            self.assertTrue(torch.cuda.is_available())
            if torch.cuda.is_available():
                pass
            torch.cuda.synchronize()
    """
    found = [
        (line, code, message.split(" (", 1)[0].split("TestA ")[1])
        for line, code, message in diagnostics(tmp_path, body)
    ]
    assert found == [
        # `not A or B`: not a plain branch on A; both calls run without one.
        (16, "HWC105", "probes an accelerator"),
        (16, "HWC105", "probes an accelerator"),
        (22, "HWC105", "probes an accelerator"),
        (24, "HWC105", "probes an accelerator"),
        (26, "HWC105", "probes an accelerator"),
        (29, "HWC105", "uses an accelerator"),
    ]


def test_native_device_types_is_device_specific_unless_allowed(tmp_path: Path) -> None:
    body = """\
    class TestOps(TestCase):
        hw_classification = HardwareClassification.ACCELERATOR

        @onlyNativeDeviceTypes
        @onlyCUDA
        def test_a(self, device):
            pass

        @onlyNativeDeviceTypesAnd(["hpu"])
        def test_b(self, device):
            pass

    instantiate_device_type_tests(TestOps, globals())
    """
    found = diagnostics(tmp_path, body)
    assert [(line, code) for line, code, _ in found] == [(6, "HWC103"), (6, "HWC103"), (10, "HWC103")]
    assert found[0][2] == (
        "TestOps.test_a is ACCELERATOR but decorated @onlyNativeDeviceTypes, which limits it "
        "to some devices: move it to a class for that device, or use @onlyAccelerator"
    )
    allowed = diagnostics(
        tmp_path / "allowed", body, **{"allowed-only-decorators": ["onlyNativeDeviceTypes", "onlyNativeDeviceTypesAnd"]}
    )
    assert [(line, code) for line, code, _ in allowed] == [(6, "HWC103")]


def test_a_probe_in_a_method_decorator_above_the_first_lines_is_found(tmp_path: Path) -> None:
    """The walk skips lines without accelerator text: a decorator sits
    before its `def`, whose line is where ast says the function starts."""
    body = """\
    class TestA(TestCase):
        hw_classification = HardwareClassification.GENERIC

        @unittest.skipIf(
            not torch.accelerator.is_available(), "needs an accelerator"
        )
        @unittest.skipIf(torch.xpu.device_count() < 2, "needs 2 XPUs")
        def test_a(self):
            pass
    """
    assert [(line, code) for line, code, _ in diagnostics(tmp_path, body)] == [(5, "HWC105"), (7, "HWC105")]


# -- device classes: TEST_LINTER's CPU/CUDA/MPS/XPU rules --------------------


def test_device_classes_get_every_finding_test_linter_makes(tmp_path: Path) -> None:
    """[instantiation], [device_param], [only_for] and [except_for] of device
    classes: one hwlint diagnostic for each TEST_LINTER message, at its line."""
    body = """\
    class TestNotInstantiated(TestCase):
        hw_classification = HardwareClassification.CUDA

        def test_a(self):
            torch.ones(2).cuda()

        def test_b(self, device):
            pass

    class TestExceptFor(TestCase):
        hw_classification = HardwareClassification.CPU

        def test_a(self, device):
            pass

    class TestOthers(TestCase):
        hw_classification = HardwareClassification.XPU

        def test_a(self, devices):
            pass

    class TestRight(TestCase):
        hw_classification = HardwareClassification.CUDA

        def test_a(self, device):
            pass

    instantiate_device_type_tests(TestExceptFor, globals(), except_for="cuda")
    instantiate_device_type_tests(TestOthers, globals(), only_for=["cpu", "xpu"], allow_xpu=True)
    instantiate_device_type_tests(TestRight, globals(), only_for="cuda")
    """
    assert diagnostics(tmp_path, body) == [
        (
            1,
            "HWC101",
            "CUDA test class TestNotInstantiated is never passed to instantiate_device_type_tests: "
            "add `instantiate_device_type_tests(TestNotInstantiated, globals(), only_for='cuda')`",
        ),
        (
            4,
            "HWC102",
            "TestNotInstantiated.test_a takes no device but the class is CUDA: add a `device` parameter "
            "and use it (instantiate_device_type_tests passes the cuda device under test)",
        ),
        (
            28,
            "HWC111",
            "CPU test class TestExceptFor is instantiated with except_for: its tests are for cpu alone, "
            "pass only_for='cpu' instead",
        ),
        (28, "HWC111", "CPU test class TestExceptFor is instantiated without only_for: pass only_for='cpu'"),
        (
            29,
            "HWC111",
            "XPU test class TestOthers is instantiated with only_for=('cpu', 'xpu'): pass only_for='xpu' alone",
        ),
    ]


def test_a_device_class_inherited_is_judged_as_its_own(tmp_path: Path) -> None:
    """TEST_LINTER lints a class's own declaration; hwlint the effective one:
    a subclass of a CUDA base is a CUDA class, instantiated, with tests that
    take `device` (the explanation of HWC101 names the case)."""
    body = """\
    class Base(TestCase):
        hw_classification = HardwareClassification.CUDA

    class TestSub(Base):
        def test_a(self):
            pass
    """
    assert [(line, code) for line, code, _ in diagnostics(tmp_path, body)] == [(4, "HWC101"), (5, "HWC102")]
    from hwlint.rules.instantiation import Instantiation

    assert "effective classification" in Instantiation.explanation()


@pytest.mark.parametrize(
    ("source", "member"),
    [
        (
            "class TestA(TestCase):\n    def test_a(self, device): pass\n"
            "instantiate_device_type_tests(TestA, globals(), only_for='xpu')\n",
            "XPU",
        ),
        (
            "class TestA(TestCase):\n    def test_a(self, device): pass\n"
            "instantiate_device_type_tests(TestA, globals(), only_for=('mps',))\n",
            "MPS",
        ),
        (
            "class TestA(TestCase):\n    def test_a(self, device): pass\n"
            "instantiate_device_type_tests(TestA, globals(), only_for=('cpu', 'cuda'))\n",
            "ACCELERATOR",
        ),
        (
            "class TestA(TestCase):\n    def test_a(self, device): pass\n"
            "common_device_type.instantiate_device_type_tests(TestA, globals(), except_for='cpu')\n",
            "ACCELERATOR",
        ),
        ("class TestA(TestCase):\n    def test_a(self): torch.ones(2, device='cuda:0')\n", "CUDA"),
        ("class TestA(TestCase):\n    def test_a(self): torch.ones(2).cuda()\n", "CUDA"),
        ("class TestA(TestCase):\n    def test_a(self): torch.ones(2, device='xpu')\n", "GENERIC"),
    ],
)
def test_bench_parity_classifies_mechanically(source: str, member: str) -> None:
    """benchmarks/bench_parity.py's stand-in for a hurried migration."""
    import ast

    from benchmarks.bench_parity import instantiations, mechanical_member

    tree = ast.parse(source)
    node = tree.body[0]
    assert isinstance(node, ast.ClassDef)
    assert mechanical_member(node, instantiations(tree).get(node.name, [])) == member
