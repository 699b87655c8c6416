"""The CPU's case of a split (hwlint.fix.migrate.split_cpu): device-free
tests that hand a helper of the class the CPU where a device test hands it
its device become `<Name>OnlyCPU`, CPU, instantiated for the CPU, as the
contributors split inductor's `test_minifier_isolate.py`."""

from __future__ import annotations

from pathlib import Path

from hwlint.fix.plan_records import ClassMove
from tests.test_migrate import migrate
from tests.test_migrate_split import DECLARED_HEAD, HEAD, MAIN

HELPER = "    def _check(self, device, expected):\n        torch.ones(2, device=device)\n\n"
CPU_CASE = '    def test_cpu(self):\n        self._check("cpu", 1)\n\n'
GPU_CASE = '    @requires_gpu\n    def test_cuda(self):\n        self._check("cuda", 2)\n'


def test_the_cpu_case_of_a_device_helper_goes_to_a_cpu_class(tmp_path: Path) -> None:
    text, report = migrate(tmp_path, HEAD + "\n\nclass TestA(TestCase):\n" + HELPER + CPU_CASE + GPU_CASE + MAIN)
    assert (
        text
        == DECLARED_HEAD
        + (
            "\n\nclass _TestAMixin:\n" + HELPER.rstrip("\n") + "\n\n\n"
            "class TestAOnlyCPU(_TestAMixin, TestCase):\n"
            "    hw_classification = HardwareClassification.CPU\n\n"
            "    def test_cpu(self, device):\n        self._check(device, 1)\n\n\n"
            "class TestAAccelerator(_TestAMixin, TestCase):\n"
            "    hw_classification = HardwareClassification.ACCELERATOR\n\n"
            "    @requires_gpu\n    def test_cuda(self, device):\n        self._check(device, 2)\n\n\n"
            'instantiate_device_type_tests(TestAAccelerator, globals(), except_for="cpu", allow_xpu=True)\n'
            'instantiate_device_type_tests(TestAOnlyCPU, globals(), only_for="cpu")\n'
        )
        + MAIN
    )
    assert report.migrated == {"split": 2}
    assert report.classified == {"ACCELERATOR": 1, "CPU": 1}
    (result,) = report.files
    assert result.moves[0] == ClassMove("TestA", "TestAOnlyCPU", ("test_cpu",))
    assert result.migrated[0].collected == ("TestAOnlyCPUCPU",)


def test_a_device_free_test_of_another_kind_keeps_them_all_generic(tmp_path: Path) -> None:
    # One device-free test is no CPU case: no third class; both stay GENERIC.
    free = "    def test_free(self):\n        self.assertTrue(True)\n\n"
    text, report = migrate(tmp_path, HEAD + "\n\nclass TestA(TestCase):\n" + HELPER + CPU_CASE + free + GPU_CASE + MAIN)
    assert report.classified == {"ACCELERATOR": 1, "GENERIC": 1}
    assert 'self._check("cpu", 1)' in text and "OnlyCPU" not in text


def test_the_cpu_handed_to_a_helper_no_device_test_calls_is_no_cpu_case(tmp_path: Path) -> None:
    other = '    def test_cpu(self):\n        self._other("cpu")\n\n'
    source = HEAD + "\n\nclass TestA(TestCase):\n" + HELPER + "    def _other(self, d):\n        pass\n\n" + other
    text, report = migrate(tmp_path, source + GPU_CASE + MAIN)
    assert report.classified == {"ACCELERATOR": 1, "GENERIC": 1}
    assert "class TestAGeneric(" in text and "OnlyCPU" not in text


def test_the_cpu_handed_to_a_testcase_method_or_no_device_parameter_is_no_cpu_case(tmp_path: Path) -> None:
    # `assertEqual` is no helper of the class; `_check`'s `expected` names no device.
    free = (
        '    def test_cpu(self):\n        self.assertEqual(torch.ones(1).device.type, "cpu")\n'
        '        self._check(torch.device("cpu"), "cpu")\n\n'
    )
    gpu = '    @requires_gpu\n    def test_cuda(self):\n        self._check("cuda", 2)\n        self.assertEqual(torch.ones(1).numel(), 1)\n'
    text, report = migrate(tmp_path, HEAD + "\n\nclass TestA(TestCase):\n" + HELPER + free + gpu + MAIN)
    assert report.classified == {"ACCELERATOR": 1, "GENERIC": 1}
    assert 'self.assertEqual(torch.ones(1).device.type, "cpu")' in text and "OnlyCPU" not in text
