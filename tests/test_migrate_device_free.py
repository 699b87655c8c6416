"""Which tests of a class bound to one device use no device, when the split
cannot sort them (hwlint.fix.migrate.device_free): `hwlint fix --unsafe`
leaves such a class, with why, rather than instantiate it for its device
alone and take its device-free tests off the CPU runners they ran on."""

from __future__ import annotations

from pathlib import Path

from tests.test_migrate import migrate

HEAD = (
    "import unittest\n\nimport torch\nfrom torch.testing._internal.common_utils import TEST_CUDA, TestCase, run_tests\n"
)
MAIN = '\n\nif __name__ == "__main__":\n    run_tests()\n'

# As PyTorch's test/jit/test_device_analysis.py: device objects made in
# setUpClass (no CUDA needed to make them), used by some tests only.
DEVICES = (
    "\n\nclass TestA(TestCase):\n"
    "    @classmethod\n    def setUpClass(cls):\n"
    '        cls.cpu = torch.device("cpu")\n'
    '        cls.cuda = torch.device("cuda")\n'
    "        cls.both = [cls.cpu, cls.cuda]\n\n"
    "    def _check(self, device):\n        self.assertEqual(torch.ones(1, device=device).sum().item(), 1)\n\n"
    "    def test_cpu(self):\n        self._check(self.cpu)\n\n"
    "    def test_both(self):\n        for d in self.both:\n            self.assertIsNotNone(d.type)\n\n"
    '    @unittest.skipIf(not TEST_CUDA, "no CUDA")\n'
    "    def test_cuda(self):\n        self._check(self.cuda)\n"
)


def test_a_class_whose_setup_makes_device_objects_is_left_when_some_tests_use_none(tmp_path: Path) -> None:
    # The split cannot sort the tests (setUpClass, which every test runs,
    # names CUDA); test_cpu reaches no CUDA object: it ran on CPU runners.
    source = HEAD + DEVICES + MAIN
    text, report = migrate(tmp_path, source)
    assert text == source and report.files == [] and report.migrated == {}
    (left,) = report.unfixed
    assert (left.class_name, left.kind) == ("TestA", "mixed-accelerator-use")
    assert left.reason == (
        "every accelerator use in the class is CUDA; not split: test_cpu uses no device and ran on CPU runners: "
        'instantiated only_for="cuda", the class would take it off; split it by hand (GENERIC and CUDA)'
    )


def test_a_setup_that_runs_on_the_device_makes_every_test_a_device_test(tmp_path: Path) -> None:
    # torch.cuda.set_device runs for every test: none ran on a CPU runner.
    source = HEAD + DEVICES.replace("cls.both = [cls.cpu, cls.cuda]\n", "cls.both = [cls.cuda]\n") + MAIN
    source = source.replace('        cls.cpu = torch.device("cpu")\n', "        torch.cuda.set_device(0)\n")
    source = source.replace("self._check(self.cpu)", "self._check(None)")
    text, report = migrate(tmp_path, source)
    assert report.unfixed == []
    assert "    hw_classification = HardwareClassification.CUDA\n" in text
    assert 'instantiate_device_type_tests(TestA, globals(), only_for="cuda")\n' in text


def test_a_test_reaching_a_helper_that_uses_the_device_is_a_device_test(tmp_path: Path) -> None:
    # test_cpu now reaches `_on_cuda`, which places on CUDA; test_both names
    # a CUDA object: no test is left that uses no device.
    source = HEAD + DEVICES.replace("self._check(self.cpu)", "self._on_cuda()") + MAIN
    source = source.replace(
        "    def test_cpu(self):",
        "    def _on_cuda(self):\n        return torch.ones(1).cuda()\n\n    def test_cpu(self):",
    )
    text, report = migrate(tmp_path, source)
    assert report.unfixed == []
    assert "    hw_classification = HardwareClassification.CUDA\n" in text


def test_a_test_naming_only_another_devices_object_uses_no_device_of_the_class(tmp_path: Path) -> None:
    # `self.mkldnn` is MKL-DNN's, a CPU backend: test_mkldnn is no CUDA test.
    source = HEAD + DEVICES.replace("self._check(self.cpu)", "self._check(self.cuda)") + MAIN
    source = source.replace('        cls.cpu = torch.device("cpu")\n', '        cls.mkldnn = torch.device("mkldnn")\n')
    source = source.replace("cls.both = [cls.cpu, cls.cuda]", "cls.both = [cls.cuda]")
    source = source.replace(
        "    def test_both(self):",
        "    def test_mkldnn(self):\n        self.assertEqual(self.mkldnn.type, 'mkldnn')\n\n    def test_both(self):",
    )
    text, report = migrate(tmp_path, source)
    assert text == source
    (left,) = report.unfixed
    assert left.reason.endswith(
        "not split: test_mkldnn uses no device and ran on CPU runners: "
        'instantiated only_for="cuda", the class would take it off; split it by hand (GENERIC and CUDA)'
    )


def test_a_class_skipped_without_its_device_has_no_test_that_ran_on_cpu_runners(tmp_path: Path) -> None:
    # The whole class is skipped without CUDA: test_cpu never ran on a CPU runner.
    source = HEAD + DEVICES.replace(
        "class TestA(TestCase):", '@unittest.skipIf(not TEST_CUDA, "no CUDA")\nclass TestA(TestCase):'
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert report.unfixed == []
    assert "    hw_classification = HardwareClassification.CUDA\n" in text


def test_a_class_setting_its_own_device_makes_every_test_a_device_test(tmp_path: Path) -> None:
    # `device = "cuda"`, as inductor's classes say it to the helpers they call
    # (`self.common = check_model_gpu`), which may place test_cpu's tensors there.
    source = (
        HEAD + DEVICES.replace("class TestA(TestCase):\n", 'class TestA(TestCase):\n    device = "cuda"\n\n') + MAIN
    )
    text, report = migrate(tmp_path, source)
    assert report.unfixed == []
    assert "    hw_classification = HardwareClassification.CUDA\n" in text


def test_a_test_whose_decorator_requires_an_accelerator_is_a_device_test(tmp_path: Path) -> None:
    # test_cpu now requires two GPUs (a requirement of the facts; its code
    # names no device): no test is left that ran on CPU runners.
    source = HEAD.replace("TEST_CUDA, ", "TEST_CUDA, TEST_MULTIGPU, ") + DEVICES.replace(
        "    def test_cpu(self):", '    @unittest.skipIf(not TEST_MULTIGPU, "one GPU")\n    def test_cpu(self):'
    )
    text, report = migrate(tmp_path, source + MAIN)
    assert report.unfixed == []
    assert "    hw_classification = HardwareClassification.CUDA\n" in text


def test_a_test_reaching_a_helper_that_places_on_gpu_type_is_a_device_test(tmp_path: Path) -> None:
    # `_on_gpu` names no device, but places on GPU_TYPE (a site of the facts):
    # test_cpu, which calls it, is no device-free test.
    head = HEAD + "from torch.testing._internal.inductor_utils import GPU_TYPE\n"
    source = head + DEVICES.replace("self._check(self.cpu)", "self._on_gpu()") + MAIN
    source = source.replace(
        "    def test_cpu(self):",
        "    def _on_gpu(self):\n        return torch.ones(1, device=GPU_TYPE)\n\n    def test_cpu(self):",
    )
    source = source.replace("cls.both = [cls.cpu, cls.cuda]", "cls.both = [cls.cuda]")
    _, report = migrate(tmp_path, source)
    assert report.unfixed == [] and report.migrated == {"device-class": 1}


def test_a_test_calling_a_device_test_is_a_device_test(tmp_path: Path) -> None:
    # test_cpu now runs test_cuda, test_both a CUDA object: no test uses no device. Its
    # instantiation is refused next (`self.test_cuda` is gone from CUDA's class): left, saying so.
    source = HEAD + DEVICES.replace("self._check(self.cpu)", "self.test_cuda()") + MAIN
    source = source.replace("for d in self.both:\n            self.assertIsNotNone(d.type)", "self._check(self.cuda)")
    text, report = migrate(tmp_path, source)
    assert text == source
    (left,) = report.unfixed
    assert (left.class_name, left.kind) == ("TestA", "not-instantiable")
    assert left.reason.startswith(
        "not generalized: `cls.cuda` names 'cuda', which no rewrite changes: it is a test of that device; "
        'not instantiated only_for="cuda": a method of TestA uses self.test_cuda, a test'
    )
