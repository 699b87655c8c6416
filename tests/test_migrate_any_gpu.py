"""The "any-gpu" migration of `hwlint fix --unsafe` (inductor tests on
whichever GPU the machine has, `GPU_TYPE`): snippets in, the exact file
out, each refusal with its reason, a property test over generated
inductor-style classes, and docs/fix.md's example."""

from __future__ import annotations

import ast
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwlint.core.config import load_config
from hwlint.fix.apply import apply_fixes
from hwlint.fix.result import FixReport
from hwlint.rules.missing_classification import MissingClassification
from tests.conftest import lint, run_cli, write_project
from tests.test_migrate import migrate

HEAD = (
    "import torch\n"
    "from torch.testing._internal.common_utils import TestCase, run_tests\n"
    "from torch.testing._internal.inductor_utils import GPU_TYPE, HAS_GPU\n"
)
AFTER_HEAD = (
    "import torch\n"
    "from torch.testing._internal.common_utils import TestCase, run_tests, HardwareClassification\n"
    "from torch.testing._internal.inductor_utils import HAS_GPU\n"
    "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n"
)
GATED = '\n\nif __name__ == "__main__":\n    if HAS_GPU:\n        run_tests()\n'
CALL = 'instantiate_device_type_tests(TestA, globals(), allow_xpu=True, except_for="cpu")\n'


def refusals(report: FixReport) -> list[str]:
    return [u.reason for u in report.unfixed if u.kind == "any-gpu"]


# -- what it makes -------------------------------------------------------------


def test_a_gpu_type_class_becomes_an_instantiated_accelerator_class(tmp_path: Path) -> None:
    source = HEAD + (
        "\n\nclass TestA(TestCase):\n    device_type = GPU_TYPE\n\n"
        "    def test_a(self):\n        x = torch.randn(2, device=GPU_TYPE)\n        self.assertEqual(x.sum(), x.sum())\n"
    )
    text, report = migrate(tmp_path, source + GATED)
    assert text == AFTER_HEAD + (
        "\n\nclass TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def test_a(self, device):\n        x = torch.randn(2, device=device)\n        self.assertEqual(x.sum(), x.sum())\n"
        "\n\n" + CALL + GATED
    )
    assert report.migrated == {"any-gpu": 1}
    (done,) = report.files[0].migrated
    assert done.collected == ("TestACUDA", "TestAXPU", "TestAHPU", "TestAPRIVATEUSE1")
    assert "device_type = GPU_TYPE dropped" in done.detail


def test_a_config_patch_of_the_class_goes_onto_its_tests(tmp_path: Path) -> None:
    # As in test_native_matmul.py: on the class, the patch's subclass would be
    # instantiated with no test of its own.
    source = HEAD.replace("import torch\n", "import torch\nfrom torch._inductor import config\n") + (
        '\n\n# why\n@config.patch({"triton.native_matmul": True})\nclass TestA(TestCase):\n'
        "    def helper(self):\n        return 1\n\n"
        "    def test_a(self):\n        torch.randn(2, device=GPU_TYPE)\n"
    )
    text, report = migrate(tmp_path, source + GATED)
    assert text == AFTER_HEAD.replace("import torch\n", "import torch\nfrom torch._inductor import config\n") + (
        "\n\n# why\nclass TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def helper(self):\n        return 1\n\n"
        '    @config.patch({"triton.native_matmul": True})\n'
        "    def test_a(self, device):\n        torch.randn(2, device=device)\n"
        "\n\n" + CALL + GATED
    )
    (done,) = report.files[0].migrated
    assert "its config patch moved onto its tests" in done.detail


def test_a_mock_patch_of_the_class_is_no_config_patch(tmp_path: Path) -> None:
    source = (
        "import unittest.mock\n"
        + HEAD
        + (
            '\n\n@unittest.mock.patch("os.getpid", return_value=1)\nclass TestA(TestCase):\n'
            "    def test_a(self, getpid):\n        torch.randn(2, device=GPU_TYPE)\n"
        )
    )
    text, report = migrate(tmp_path, source + GATED)
    assert text == source + GATED
    assert refusals(report) == ["TestA has a class decorator (@patch): migrate by hand"]


def test_parametrized_tests_keep_their_parameters_after_device(tmp_path: Path) -> None:
    source = (
        "import torch\n"
        "from torch.testing._internal.common_utils import (\n    TestCase,\n    instantiate_parametrized_tests,\n"
        "    parametrize,\n    run_tests,\n)\n"
        "from torch.testing._internal.inductor_utils import GPU_TYPE, HAS_GPU\n\n\n"
        "# inductor's determinism\n@instantiate_parametrized_tests\nclass TestA(TestCase):\n"
        '    @parametrize("n", [1, 2])\n    def test_a(self, n):\n        torch.ones(n).to(GPU_TYPE)\n'
    )
    text, _ = migrate(tmp_path, source + GATED)
    assert text == (
        "import torch\n"
        "from torch.testing._internal.common_utils import (\n    TestCase,\n"
        "    parametrize,\n    run_tests,\n    HardwareClassification,\n)\n"
        "from torch.testing._internal.inductor_utils import HAS_GPU\n"
        "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n\n\n"
        "# inductor's determinism\nclass TestA(TestCase):\n"
        "    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        '    @parametrize("n", [1, 2])\n    def test_a(self, device, n):\n        torch.ones(n).to(device)\n'
        "\n\n" + CALL + GATED
    )


def test_decorators_on_gpu_type_become_the_frameworks(tmp_path: Path) -> None:
    # A decorator runs when the class is defined: the framework says it of the test's device type.
    source = (
        "import unittest\n"
        + HEAD
        + (
            "from torch.testing._internal.common_device_type import largeTensorTest\n"
            "\n\nclass TestA(TestCase):\n"
            '    @unittest.skipIf(GPU_TYPE != "cuda", "requires CUDA")\n'
            "    def test_cuda(self):\n        torch.ones(2, device=GPU_TYPE)\n\n"
            '    @unittest.skipIf(GPU_TYPE == "mps", "Triton is not available for MPS")\n'
            '    @largeTensorTest("2GB", device=GPU_TYPE)\n'
            "    def test_big(self):\n        torch.ones(2, device=GPU_TYPE)\n"
        )
    )
    text, report = migrate(tmp_path, source + GATED)
    # `unittest` went with the skips that named it.
    assert text == AFTER_HEAD.replace(
        "common_device_type import instantiate_device_type_tests\n",
        "common_device_type import largeTensorTest, instantiate_device_type_tests, skipMPSIf, onlyAccelerator\n",
    ) + (
        "\n\nclass TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        # @onlyCUDA first; the ACCELERATOR tests' migration then finds the test device-free.
        "    @onlyAccelerator\n    def test_cuda(self, device):\n        torch.ones(2, device=device)\n\n"
        '    @skipMPSIf(True, "Triton is not available for MPS")\n'
        '    @largeTensorTest("2GB")\n'
        "    def test_big(self, device):\n        torch.ones(2, device=device)\n"
        "\n\n" + CALL + GATED
    )
    assert report.migrated == {"any-gpu": 1, "only-accelerator": 1}
    (done, _) = report.files[0].migrated
    assert done.guards == (
        ("test_cuda", ("skipIf",), ("onlyCUDA",)),
        ("test_big", ("skipIf", "largeTensorTest"), ("skipMPSIf", "largeTensorTest")),
    )


def test_uses_that_are_values_get_the_device_type_string(tmp_path: Path) -> None:
    # `device` is "cuda:0"; GPU_TYPE was "cuda", as self.device_type is.
    source = HEAD + (
        "\n\nclass TestA(TestCase):\n    device = GPU_TYPE  # the GPU\n\n"
        "    def setUp(self):\n        super().setUp()\n        self.where = torch.device(GPU_TYPE)\n\n"
        "    def make(self):\n        return torch.ones(2, device=self.device)\n\n"
        "    def test_a(self):\n"
        '        if GPU_TYPE == "xpu":\n            self.skipTest("not on XPU")\n'
        "        x = torch.ones(2, device=self.device)\n"
        '        self.assertIn(f"{GPU_TYPE}:0", str(x.device))\n'
    )
    text, _ = migrate(tmp_path, source + GATED)
    assert text == AFTER_HEAD + (
        "\n\nclass TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    # the GPU\n"
        "    def setUp(self):\n        super().setUp()\n        self.where = torch.device(self.device_type)\n\n"
        "    def make(self):\n        return torch.ones(2, device=self.device_type)\n\n"
        "    def test_a(self, device):\n"
        '        if self.device_type == "xpu":\n            self.skipTest("not on XPU")\n'
        "        x = torch.ones(2, device=device)\n"
        '        self.assertIn(f"{self.device_type}:0", str(x.device))\n'
        "\n\n" + CALL + GATED
    )


def test_a_test_of_cpu_only_code_may_stay_when_a_gpu_skip_keeps_it_off_cpu(tmp_path: Path) -> None:
    # run_tests() is not gated, but each test either uses GPU_TYPE or is skipped without a GPU.
    source = HEAD.replace("HAS_GPU\n", "HAS_GPU, requires_gpu\n") + (
        "\n\nclass TestA(TestCase):\n"
        "    @requires_gpu()\n    def test_a(self):\n        self.assertTrue(HAS_GPU)\n\n"
        "    def test_b(self):\n        torch.ones(2, device=GPU_TYPE)\n"
    )
    text, report = migrate(tmp_path, source + '\n\nif __name__ == "__main__":\n    run_tests()\n')
    assert report.migrated == {"any-gpu": 1}
    assert "    @requires_gpu()\n    def test_a(self, device):\n" in text
    assert "import HAS_GPU, requires_gpu\n" in text and text.count("GPU_TYPE") == 0


# -- what it refuses -----------------------------------------------------------


def test_gpu_type_in_a_skips_reason_at_module_level_blocks_nothing(tmp_path: Path) -> None:
    # PyTorch's test_move_constructors_to_gpu.py: GPU_TYPE only in the message.
    skip = (
        "\nrequires_multigpu = functools.partial(\n"
        '    unittest.skipIf, not HAS_GPU, f"requires multiple {GPU_TYPE} devices"\n)\n'
        'requires_two = unittest.skipIf(not HAS_GPU, reason=f"two {GPU_TYPE}s")\n'
    )
    source = (
        "import functools, unittest\n"
        + HEAD
        + skip
        + (
            "\n\nclass TestA(TestCase):\n    @requires_multigpu()\n    @requires_two\n"
            "    def test_a(self):\n        torch.ones(2, device=GPU_TYPE)\n"
        )
    )
    text, report = migrate(tmp_path, source + GATED)
    assert report.migrated == {"any-gpu": 1}, report.unfixed
    assert "    def test_a(self, device):\n        torch.ones(2, device=device)\n" in text
    # GPU_TYPE in a skip's condition still refuses.
    placed = source.replace("skipIf(not HAS_GPU, reason", 'skipIf(GPU_TYPE == "xpu", reason')
    assert refusals(migrate(tmp_path / "b", placed + GATED)[1]) == [
        "TestA uses requires_two, which uses GPU_TYPE at module level (requires_two): "
        "give it the test's `device`, then migrate"
    ]


REFUSED = [
    (
        "\n\ndef make():\n    return torch.ones(2, device=GPU_TYPE)\n\n\n"
        "class TestA(TestCase):\n    def test_a(self):\n        make().to(GPU_TYPE)\n",
        "TestA uses make, which uses GPU_TYPE at module level (def make): give it the test's `device`, then migrate",
    ),
    (
        "\n\nclass TestA(TestCase):\n"
        '    @unittest.skipIf(GPU_TYPE in ("xpu", "mps"), "not on XPU")\n'
        "    def test_a(self):\n        torch.ones(2, device=GPU_TYPE)\n",
        "a decorator of test_a uses GPU_TYPE, which runs when the class is defined: migrate by hand",
    ),
    (
        "\n\nclass TestA(TestCase):\n    sizes = {GPU_TYPE: 2}\n\n"
        "    def test_a(self):\n        torch.ones(2, device=GPU_TYPE)\n",
        "TestA's body uses GPU_TYPE when the class is defined (sizes = {GPU_TYPE: 2}): migrate by hand",
    ),
    (
        "\n\nclass TestA(TestCase):\n    @staticmethod\n    def helper():\n        return GPU_TYPE\n\n"
        "    def test_a(self):\n        torch.ones(2, device=GPU_TYPE)\n",
        "helper uses GPU_TYPE in a static method: nothing there says the device type",
    ),
    (
        "\n\nclass TestA(TestCase):\n"
        '    def test_a(self):\n        device = "cpu"\n        torch.ones(2, device=GPU_TYPE).to(device)\n',
        "test_a binds the name `device` itself, where GPU_TYPE places a tensor",
    ),
    (
        "\n\nclass TestA(TestCase):\n    def test_a(self):\n"
        "        class M:\n            def on(self):\n                return GPU_TYPE\n\n"
        "        M().on()\n",
        "test_a uses GPU_TYPE in a nested scope that rebinds `self`: nothing there says the device type",
    ),
    (
        "\n\nclass Base(TestCase):\n    pass\n\n\nclass TestA(Base):\n    device = GPU_TYPE\n\n"
        "    def test_a(self):\n        torch.ones(2, device=self.device)\n",
        "TestA sets `device = GPU_TYPE` and its base Base may read `self.device`: migrate by hand",
    ),
    (
        "\n\nclass TestA(TestCase):\n    def test_a(self):\n        torch.ones(2, device=GPU_TYPE)\n\n\nALIAS = TestA\n",
        "the module names TestA outside it, which instantiating it deletes from the module: migrate by hand",
    ),
    (
        # Never a GENERIC class: its tests place tensors on the GPU through
        # a name the module binds to GPU_TYPE (in a branch, as inductor's do).
        '\n\nif HAS_GPU:\n    DEVICE = GPU_TYPE\nelse:\n    DEVICE = "cpu"\n\n\nclass TestA(TestCase):\n'
        "    def test_a(self):\n        torch.ones(2, device=DEVICE)\n",
        "TestA uses DEVICE, which uses GPU_TYPE at module level (DEVICE): give it the test's `device`, then migrate",
    ),
]


@pytest.mark.parametrize(("body", "reason"), REFUSED, ids=[str(i) for i in range(len(REFUSED))])
def test_refused_with_the_reason(tmp_path: Path, body: str, reason: str) -> None:
    source = "import unittest\n" + HEAD + body + GATED
    text, report = migrate(tmp_path, source)
    assert refusals(report) == [reason]
    assert "GPU_TYPE" in text and "instantiate_device_type_tests" not in text


def test_a_class_with_device_free_tests_is_split_the_contributors_way(tmp_path: Path) -> None:
    # PyTorch's contributors split such a class (test_move_constructors_to_gpu.py,
    # test_smoke.py): the device-free tests keep running on CPU runners.
    source = HEAD + (
        "\n\nclass TestA(TestCase):\n    def test_math(self):\n        self.assertEqual(1 + 1, 2)\n\n"
        "    def test_gpu(self):\n        torch.ones(2, device=GPU_TYPE)\n"
    )
    main = '\n\nif __name__ == "__main__":\n    run_tests()\n'
    text, report = migrate(tmp_path, source + main)
    assert text == AFTER_HEAD + (
        "\n\nclass TestAGeneric(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
        "    def test_math(self):\n        self.assertEqual(1 + 1, 2)\n\n\n"
        "class TestAAccelerator(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def test_gpu(self, device):\n        torch.ones(2, device=device)\n\n\n"
        'instantiate_device_type_tests(TestAAccelerator, globals(), except_for="cpu", allow_xpu=True)\n' + main
    )
    assert report.migrated == {"split": 2} and refusals(report) == []


def test_the_split_of_a_gpu_type_class_rewrites_its_device_tests_the_any_gpu_way(tmp_path: Path) -> None:
    # `device = GPU_TYPE` goes, a helper only the device tests use moves with
    # them (its uses become `self.device_type`), Triton's name and a skip
    # bound over several lines to whichever GPU the machine has block nothing.
    head = HEAD + ("import functools, unittest\nfrom torch.testing._internal.inductor_utils import HAS_MULTIGPU\n")
    skip = (
        "\nrequires_multigpu = functools.partial(\n"
        '    unittest.skipIf, not HAS_MULTIGPU, f"requires multiple {GPU_TYPE} devices"\n)\n'
    )
    source = (
        head
        + skip
        + (
            "\n\nclass TestA(TestCase):\n    device = GPU_TYPE\n\n"
            "    def _compiled(self, fn, x):\n        return torch.compile(fn)(x.to(self.device))\n\n"
            "    def test_math(self):\n        self.assertEqual(1 + 1, 2)\n\n"
            "    @requires_multigpu()\n"
            "    def test_gpu(self):\n        out = self._compiled(torch.sin, torch.ones(2))\n"
            '        FileCheck().check("triton.jit").run(str(out))\n'
        )
    )
    text, report = migrate(tmp_path, source + GATED)
    assert text == (
        head.replace("run_tests\n", "run_tests, HardwareClassification\n", 1)
        + "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n"
        + skip
        + "\n\nclass TestAGeneric(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
        "    def test_math(self):\n        self.assertEqual(1 + 1, 2)\n\n\n"
        "class TestAAccelerator(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        "    def _compiled(self, fn, x):\n        return torch.compile(fn)(x.to(self.device_type))\n\n"
        "    @requires_multigpu()\n"
        "    def test_gpu(self, device):\n        out = self._compiled(torch.sin, torch.ones(2))\n"
        '        FileCheck().check("triton.jit").run(str(out))\n\n\n'
        'instantiate_device_type_tests(TestAAccelerator, globals(), except_for="cpu", allow_xpu=True)\n' + GATED
    )
    assert report.migrated == {"split": 2}
    # A member both classes would keep that reads `self.device`: no split;
    # the class is made ACCELERATOR whole (run_tests() is gated on a GPU).
    shared = source.replace(
        "        self.assertEqual(1 + 1, 2)\n", "        self.assertEqual(self._compiled(abs, 1), 1)\n"
    )
    text, report = migrate(tmp_path / "b", shared + GATED)
    assert report.migrated == {"any-gpu": 1}
    assert "\nclass TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n" in text


def test_a_test_that_would_no_longer_run_on_cpu_runners_is_refused(tmp_path: Path) -> None:
    # The split is refused (a test names another), so the class stays whole.
    source = HEAD + (
        "\n\nclass TestA(TestCase):\n    def test_math(self):\n        self.assertEqual(1 + 1, 2)\n\n"
        "    def test_gpu(self):\n        torch.ones(2, device=GPU_TYPE)\n        self.test_math()\n"
    )
    text, report = migrate(tmp_path, source + '\n\nif __name__ == "__main__":\n    run_tests()\n')
    assert refusals(report) == [
        "test_math uses no GPU and nothing keeps it off CPU runners (no GPU skip, no `if HAS_GPU:` around "
        'run_tests()): instantiated with except_for="cpu" it would no longer run there; move it to a '
        "GENERIC class, then migrate"
    ]
    assert text == source + '\n\nif __name__ == "__main__":\n    run_tests()\n'
    # The `else` of a GPU guard runs without one.
    other = source + '\n\nif __name__ == "__main__":\n    if not HAS_GPU:\n        run_tests()\n'
    assert refusals(migrate(tmp_path / "b", other)[1])[0].startswith("test_math uses no GPU")


# -- properties over generated inductor-style classes ---------------------------

# (line in a test, uses GPU_TYPE)
LINES = [
    ("x = torch.randn(4, device=GPU_TYPE)", True),
    ("x = torch.ones(2).to(GPU_TYPE)", True),
    ("self.assertEqual(torch.device(GPU_TYPE).type, GPU_TYPE)", True),
    ('if GPU_TYPE == "xpu":\n            return', True),
    ("y = [torch.zeros(1, device=GPU_TYPE) for _ in range(2)]", True),
    ("self.assertEqual(1, 1)  # keep me", False),
]


@st.composite
def inductor_modules(draw: st.DrawFn) -> tuple[str, list[str], list[str]]:
    """A module of one to three GPU_TYPE classes, their names, and those of
    the ones that also use CUDA: a class
    may also use CUDA (`torch.cuda.synchronize()` in a test: bound to CUDA,
    made device-generic the any-gpu way)."""
    cuda: list[str] = []
    parametrized = draw(st.booleans())
    parts = [
        "import torch\n"
        "from torch.testing._internal.common_utils import TestCase, run_tests, instantiate_parametrized_tests, parametrize\n"
        "from torch.testing._internal.inductor_utils import GPU_TYPE, HAS_GPU\n"
    ]
    names = []
    for c in range(draw(st.integers(1, 3))):
        name = f"Test{c}"
        names.append(name)
        lines = ["", ""] + (["@instantiate_parametrized_tests"] if parametrized else []) + [f"class {name}(TestCase):"]
        attribute = draw(st.sampled_from(["", "device_type", "device"]))
        if attribute:
            lines += [f"    {attribute} = GPU_TYPE", ""]
        for t in range(draw(st.integers(1, 3))):
            body = draw(st.lists(st.sampled_from(LINES), min_size=1, max_size=3))
            if not any(uses for _, uses in body):
                body.append(LINES[0])
            if draw(st.integers(0, 3)) == 0:
                body.append(("torch.cuda.synchronize()", True))
                cuda += [name] if name not in cuda else []
            params = ""
            if parametrized and draw(st.booleans()):
                lines.append('    @parametrize("n", [1, 2])')
                params = ", n"
            lines.append(f"    def test_{t}(self{params}):")
            lines += [f"        {text}" for text, _ in body]
            if attribute == "device":
                lines.append("        torch.ones(1, device=self.device)")
            lines.append("")
        parts.append("\n".join(lines).rstrip("\n") + "\n")
    parts.append(GATED)
    return "".join(parts), names, cuda


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inductor_modules())
def test_generated_gpu_type_classes_migrate_cleanly(module: tuple[str, list[str], list[str]]) -> None:
    source, names, cuda = module
    with tempfile.TemporaryDirectory() as tmp:
        root = write_project(Path(tmp) / "proj", {"test/test_a.py": source})
        config = load_config(start=root)
        report = apply_fixes(config, lint(root), unsafe=True, jobs=1)
        text = (root / "test/test_a.py").read_text()
        tree = ast.parse(text)
        assert report.migrated.get("any-gpu", 0) == len(names) - len(cuda), report.unfixed
        assert report.migrated.get("generalize", 0) == len(cuda), report.unfixed
        classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
        for name in names:
            cls = classes[name]
            assert "GPU_TYPE" not in ast.unparse(cls) and "torch.cuda." not in ast.unparse(cls)
            assert cls.decorator_list == []
            for fn in cls.body:
                if isinstance(fn, ast.FunctionDef) and fn.name.startswith("test"):
                    assert [a.arg for a in fn.args.args][:2] == ["self", "device"]
            calls = re.findall(rf"^instantiate_device_type_tests\({name}, globals\(\)(.*)\)$", text, re.M)
            assert calls == [', allow_xpu=True, except_for="cpu"']
        again = apply_fixes(config, lint(root), unsafe=True, write=False, jobs=1)
        assert [f.path for f in again.files] == []
        missing = [d for d in lint(root).diagnostics if d.code == MissingClassification.code]
        assert missing == []


# -- docs/fix.md ---------------------------------------------------------------

DOCS = Path(__file__).resolve().parent.parent / "docs" / "fix.md"


def test_docs_any_gpu_example_is_what_fix_does(tmp_path: Path) -> None:
    text = DOCS.read_text()
    blocks = dict(re.findall(r"<!-- migration-example: any-gpu (\w+) -->\n```python\n(.*?)```", text, re.S))
    assert set(blocks) == {"before", "after"}, "docs/fix.md lost its any-gpu before/after example"
    root = write_project(tmp_path / "proj", {"test/test_x.py": blocks["before"]})
    proc = run_cli("fix", "--unsafe", cwd=root)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert (root / "test/test_x.py").read_text() == blocks["after"]
    assert run_cli("fix", "--unsafe", "--diff", cwd=root).stdout == ""


def test_the_runtime_check_maps_a_class_that_set_its_own_device_type() -> None:
    # Before: `device_type = GPU_TYPE` makes the runtime see a device type on
    # a class the framework did not make; its tests are still per device now.
    from hwlint.fix.verify_runtime import compare
    from hwlint.infra.runtime import RuntimeClass, RuntimeModule

    before = RuntimeModule("t.py", (RuntimeClass("TestA", None, True, None, "t.py", "cuda", ("test_a",)),))
    after = RuntimeModule(
        "t.py",
        (
            RuntimeClass("TestACUDA", "ACCELERATOR", True, "TestA", "t.py", "cuda", ("test_a_cuda",)),
            RuntimeClass("TestAXPU", "ACCELERATOR", True, "TestA", "t.py", "xpu", ("test_a_xpu",)),
        ),
    )
    check = compare("t.py", before, after)
    assert check.lost == () and check.per_device == ("TestACUDA.test_a_cuda", "TestAXPU.test_a_xpu")


# -- a class skip of common_utils; which GPU it is, asked --------------------------

SKIPPED = HEAD.replace(
    "from torch.testing._internal.common_utils import TestCase, run_tests\n",
    "from torch.testing._internal.common_utils import TestCase, run_tests, skipIfXpu\n",
) + (
    '\n\n@skipIfXpu(msg="ccl does not work on XPU")\nclass TestA(TestCase):\n'
    "    def test_a(self):\n        x = torch.randn(2, device=GPU_TYPE)\n        self.assertEqual(x.sum(), x.sum())\n"
)


def test_a_class_skip_of_common_utils_stays_where_it_marks_the_class_skipped(tmp_path: Path) -> None:
    # Since torch 2.13 (`lazy_skip_if`), @skipIfXpu on a class sets its
    # `__unittest_skip__`, which the device classes the framework makes keep.
    text, report = migrate(tmp_path, SKIPPED + GATED, {"oldest-torch": "2.13"})
    assert report.migrated == {"any-gpu": 1}
    assert (
        '@skipIfXpu(msg="ccl does not work on XPU")\nclass TestA(TestCase):\n'
        "    hw_classification = HardwareClassification.ACCELERATOR\n"
    ) in text
    assert report.unfixed == []


def test_a_class_skip_of_common_utils_is_refused_where_it_replaced_the_class(tmp_path: Path) -> None:
    # Before, it made the class a function: instantiating it would fail at import.
    _, report = migrate(tmp_path, SKIPPED + GATED)
    assert report.migrated == {}
    assert refusals(report) == [
        "TestA has a class decorator (@skipIfXpu) that marks a class skipped only since torch 2.13 "
        "(oldest-torch 2.7): migrate by hand"
    ]


def test_asking_whether_the_gpu_is_the_privateuse1_backend_is_no_device(tmp_path: Path) -> None:
    source = HEAD + (
        "\n\nclass TestA(TestCase):\n"
        "    def test_a(self):\n"
        '        if GPU_TYPE in ("cuda", torch._C._get_privateuse1_backend_name()):\n'
        "            x = torch.randn(2, device=GPU_TYPE)\n"
    )
    text, report = migrate(tmp_path, source + GATED)
    assert report.migrated == {"any-gpu": 1}
    assert (
        "    def test_a(self, device):\n"
        '        if self.device_type in ("cuda", torch._C._get_privateuse1_backend_name()):\n'
        "            x = torch.randn(2, device=device)\n"
    ) in text


def test_a_test_another_test_calls_refuses_the_class(tmp_path: Path) -> None:
    # Instantiated, TestACUDA has test_a_cuda alone: `self.test_a()` would raise AttributeError.
    source = HEAD + (
        "\n\nclass TestA(TestCase):\n"
        "    def test_a(self):\n        x = torch.randn(2, device=GPU_TYPE)\n\n"
        "    def test_b(self):\n        self.test_a()\n"
    )
    text, report = migrate(tmp_path, source + GATED)
    assert text == source + GATED
    # (The split, tried first, is refused too: test_a is named in test_b.)
    assert [(u.kind, u.reason.rsplit("; ", 1)[-1]) for u in report.unfixed] == [
        ("mixed-accelerator-use", "not split: test_a is named elsewhere in the class"),
        (
            "any-gpu",
            "a method of TestA uses self.test_a, a test: instantiated, the class has test_a_<device> in its place, "
            "not test_a: move that test's body into a helper both call, then migrate",
        ),
    ]


def test_a_class_not_split_but_migrated_whole_is_not_left(tmp_path: Path) -> None:
    source = HEAD + (
        "\n\nclass TestA(TestCase):\n"
        "    def test_a(self):\n        x = torch.randn(2, device=GPU_TYPE)\n\n"
        "    def test_b(self):\n        self.assertEqual(2, 2)  # as test_a does on the GPU\n\n"
        "    def test_c(self):\n        self.assertEqual(1, 1)\n"
    )
    _, report = migrate(tmp_path, source + GATED)
    assert report.migrated == {"any-gpu": 1}
    assert report.unfixed == []
    assert [r["reason"] for r in report.to_dict()["not_split"]] == ["not split: test_a is named elsewhere in the class"]


# -- a one-device class that also runs on GPU_TYPE ------------------------------

CUDA_AND_GPU_TYPE = HEAD + (
    "from torch.testing._internal.common_device_type import largeTensorTest\n"
    "\n\nclass TestA(TestCase):\n"
    '    @largeTensorTest("2GB", device=GPU_TYPE)\n'
    "    def check(self, n):\n        x = torch.randn(n, device=GPU_TYPE)\n        torch.cuda.{call}\n        return x\n\n"
    "    def test_one(self):\n        self.check(1)\n\n"
    "    def test_two(self):\n        self.assertEqual(self.check(2).shape, (2,))\n"
)


def test_a_cuda_class_on_gpu_type_becomes_device_generic_as_contributors_make_it(tmp_path: Path) -> None:
    # Inductor's test_auto_chunker.py: `device=GPU_TYPE` beside `torch.cuda.reset_peak_memory_stats()`.
    # GPU_TYPE becomes the framework's device type (a helper's decorator measuring the
    # test's own device), and CUDA's uses their device-generic equivalents.
    source = CUDA_AND_GPU_TYPE.format(call="synchronize()")
    text, report = migrate(tmp_path, source + GATED)
    assert text == AFTER_HEAD.replace(
        "common_device_type import instantiate_device_type_tests\n",
        "common_device_type import largeTensorTest, instantiate_device_type_tests\n",
    ) + (
        "\n\nclass TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
        '    @largeTensorTest("2GB")\n'
        "    def check(self, n):\n        x = torch.randn(n, device=self.device_type)\n"
        "        torch.accelerator.synchronize()\n        return x\n\n"
        "    def test_one(self, device):\n        self.check(1)\n\n"
        "    def test_two(self, device):\n        self.assertEqual(self.check(2).shape, (2,))\n"
        "\n\n" + CALL + GATED
    )
    assert report.migrated == {"generalize": 1}
    assert report.classified == {"ACCELERATOR": 1}
    (done,) = report.files[0].migrated
    assert done.collected == ("TestACUDA", "TestAXPU", "TestAHPU", "TestAPRIVATEUSE1")
    assert done.detail.endswith("; 1 use of CUDA given device-generic rewrites")


def test_a_cuda_use_without_an_equivalent_keeps_the_class_on_cuda(tmp_path: Path) -> None:
    # torch.accelerator.max_memory_allocated is PyTorch 2.9's; the oldest PyTorch here is 2.7.
    source = CUDA_AND_GPU_TYPE.format(call="max_memory_allocated()")
    text, report = migrate(tmp_path, source + GATED, settings={"oldest-torch": "2.7"})
    assert "hw_classification = HardwareClassification.CUDA\n" in text
    assert 'instantiate_device_type_tests(TestA, globals(), only_for="cuda")\n' in text
    assert "device=GPU_TYPE" in text  # GPU_TYPE is CUDA wherever the class now runs
    assert report.migrated == {"device-class": 1}
    assert [u.reason for u in report.unfixed] == []
    # Not the GPU_TYPE, which the any-gpu way rewrites: the use of CUDA that has no equivalent,
    # at its line in the file as written (its declaration added).
    refused = {r.migration.kind: r.reason for r in report.files[0].refused}
    assert refused["generalize"] == (
        "`torch.cuda.max_memory_allocated()` (line 13) has no device-generic equivalent before torch 2.9 "
        "(oldest-torch 2.7): torch.accelerator.max_memory_allocated"
    )
    assert text.splitlines()[12] == "        torch.cuda.max_memory_allocated()"


def test_a_gpu_type_use_the_any_gpu_way_refuses_says_why(tmp_path: Path) -> None:
    # `GPU_TYPE` in a static method has no `self.device_type` to become.
    source = CUDA_AND_GPU_TYPE.format(call="synchronize()").replace(
        "    def test_one(self):",
        "    @staticmethod\n    def make():\n        return GPU_TYPE\n\n    def test_one(self):",
    )
    text, report = migrate(tmp_path, source + GATED)
    assert "hw_classification = HardwareClassification.CUDA\n" in text
    refused = {r.migration.kind: r.reason for r in report.files[0].refused}
    assert refused["generalize"] == (
        "`GPU_TYPE` (line 10) has no device-generic rewrite here: "
        "make uses GPU_TYPE in a static method: nothing there says the device type"
    )


def test_docs_cuda_and_gpu_type_example_is_what_fix_does(tmp_path: Path) -> None:
    text = DOCS.read_text()
    found = re.findall(r"<!-- migration-example: cuda-and-gpu-type (\w+) -->\n```python\n(.*?)```", text, re.S)
    blocks = dict(found)
    assert set(blocks) == {"before", "after"}, "docs/fix.md lost its cuda-and-gpu-type before/after example"
    root = write_project(tmp_path / "proj", {"test/test_x.py": blocks["before"]})
    proc = run_cli("fix", "--unsafe", cwd=root)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert (root / "test/test_x.py").read_text() == blocks["after"]
    assert run_cli("fix", "--unsafe", "--diff", cwd=root).stdout == ""


def test_a_cuda_class_on_gpu_type_skipped_without_cuda_stays_cuda(tmp_path: Path) -> None:
    # inductor's test_dropout_align_random_eager.py: every device class would inherit
    # a class skip that names CUDA; as generalize refuses it, so does the any-gpu way.
    source = "import unittest\n" + CUDA_AND_GPU_TYPE.format(call="synchronize()").replace(
        "class TestA(TestCase):", '@unittest.skipIf(not torch.cuda.is_available(), "CUDA only")\nclass TestA(TestCase):'
    )
    text, report = migrate(tmp_path, source + GATED)
    assert "hw_classification = HardwareClassification.CUDA\n" in text
    assert report.migrated == {"device-class": 1}
    refused = {r.migration.kind: r.reason for r in report.files[0].refused}
    assert refused["generalize"] == (
        '`@unittest.skipIf(not torch.cuda.is_available(), "CUDA only")` (line 8) names a device, '
        "and every device class would inherit the skip: a class of that device"
    )


def test_a_cuda_class_on_gpu_type_reaching_module_level_cuda_stays_cuda(tmp_path: Path) -> None:
    # A module-level helper the class calls uses CUDA: made ACCELERATOR, it would still be CUDA's.
    source = CUDA_AND_GPU_TYPE.format(call="synchronize()").replace(
        "\n\nclass TestA(TestCase):", "\n\ndef seed():\n    torch.cuda.set_device(0)\n\n\nclass TestA(TestCase):"
    )
    source = source.replace("    def test_one(self):\n", "    def test_one(self):\n        seed()\n")
    text, report = migrate(tmp_path, source + GATED)
    assert "hw_classification = HardwareClassification.CUDA\n" in text
    assert report.migrated == {"device-class": 1}
    (refused,) = [r.reason for r in report.files[0].refused if r.migration.kind == "generalize"]
    assert "seed" in refused and "it is a test of that device" in refused


def test_a_cuda_class_on_gpu_type_whose_test_calls_a_test_is_left_saying_why_once(tmp_path: Path) -> None:
    source = CUDA_AND_GPU_TYPE.format(call="synchronize()").replace(
        "self.assertEqual(self.check(2).shape, (2,))", "self.test_one()"
    )
    text, report = migrate(tmp_path, source + GATED)
    assert text == source + GATED
    assert [(u.kind, u.reason) for u in report.unfixed] == [
        (
            "not-instantiable",
            'neither made device-generic nor instantiated only_for="cuda": a method of TestA uses self.test_one, '
            "a test: instantiated, the class has test_one_<device> in its place, not test_one: move that test's "
            "body into a helper both call, then migrate",
        )
    ]
