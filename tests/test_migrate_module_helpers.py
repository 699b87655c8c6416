"""A test class's module-level helpers, as the class migrations see them
(`hwlint fix --unsafe`): a function the facts bind to one device
(`def _h(w): return w.cuda()`) makes the tests that call it device tests,
so a mixed class is split, not left or made one device's whole; a function
that names two devices makes them device tests too, and the class whose
device-free tests cannot leave CPU runners is left, with why; a call that
asks which device a tensor is on (torchao's `_is_device("xpu", w.device)`)
places nothing, in the facts and in the split alike."""

from __future__ import annotations

from pathlib import Path

from hwlint.facts.extract import extract_source
from tests.test_migrate import migrate

HEAD = "import unittest\n\nimport torch\n"
MAIN = '\n\nif __name__ == "__main__":\n    unittest.main()\n'
TESTS = (
    "\n\nclass TestQ(unittest.TestCase):\n"
    "    def test_plain(self):\n        self.assertEqual(torch.randn(2).shape, (2,))\n\n"
    "    def test_helper(self):\n        _h(torch.randn(2))\n\n"
    "    def test_direct(self):\n{direct}\n"
)
CUDA_ONLY = '        torch.cuda.jiterator._create_jit_fn("template <typename T> T f(T x) { return x; }")'


def test_a_helper_bound_to_one_device_sends_its_callers_to_that_device_class(tmp_path: Path) -> None:
    # Before, the split could not tell who used the helper's mention and the
    # whole class became CUDA's: test_plain left the CPU runners it ran on.
    source = HEAD + "\n\ndef _h(w):\n    return (w.cuda() * 2).cpu()\n" + TESTS.format(direct=CUDA_ONLY) + MAIN
    text, report = migrate(tmp_path, source)
    assert report.unfixed == []
    assert text == (
        "import unittest\n\nimport torch\n"
        "from torch.testing._internal.common_utils import HardwareClassification\n"
        "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n"
        "\n\ndef _h(w):\n    return (w.cuda() * 2).cpu()\n"
        "\n\nclass TestQGeneric(unittest.TestCase):\n"
        "    hw_classification = HardwareClassification.GENERIC\n\n"
        "    def test_plain(self):\n        self.assertEqual(torch.randn(2).shape, (2,))\n"
        "\n\nclass TestQCUDA(unittest.TestCase):\n"
        "    hw_classification = HardwareClassification.CUDA\n\n"
        "    def test_helper(self, device):\n        _h(torch.randn(2))\n\n"
        "    def test_direct(self, device):\n" + CUDA_ONLY + "\n"
        '\n\ninstantiate_device_type_tests(TestQCUDA, globals(), only_for="cuda")\n' + MAIN
    )


def test_a_helper_naming_two_devices_keeps_the_class_off_one_device(tmp_path: Path) -> None:
    # `_h` is bound to no one device; a test calling it may run on one. The
    # class cannot be made device-generic (the jiterator), and test_plain
    # uses no device: instantiated for CUDA alone, it would leave CPU runners.
    helper = "\n\nFLAG = True\n\n\ndef _h(w):\n    return w.cuda() if FLAG else w.xpu()\n"
    source = HEAD + helper + TESTS.format(direct=CUDA_ONLY) + MAIN
    text, report = migrate(tmp_path, source)
    assert text == source
    (left,) = report.unfixed
    assert (left.class_name, left.kind) == ("TestQ", "mixed-accelerator-use")
    assert left.reason.endswith(
        'not split: test_plain uses no device and ran on CPU runners: instantiated only_for="cuda", '
        "the class would take it off; split it by hand (GENERIC and CUDA)"
    )


ASKS = (
    "\n\ndef _is_device(target, device):\n    return device.type == target\n"
    "\n\ndef _layout(w):\n"
    '    if _is_device("xpu", w.device):\n        return w.t()\n    return w\n'
)


def test_a_call_that_asks_which_device_a_tensor_is_on_places_nothing() -> None:
    facts = extract_source("test_a.py", HEAD + ASKS + TESTS.format(direct="        _layout(torch.ones(2))"))
    assert facts.device_bindings == () and facts.accelerator_lines == ()
    (cls,) = facts.classes
    assert cls.devices == () and cls.probes == ()
    # A call named as no question, or given no device, still places on one.
    placed = extract_source("test_a.py", HEAD + ASKS.replace("_is_device(", "_to_device("))
    assert [(b.name, b.device) for b in placed.device_bindings] == [("_layout", "xpu")]
    bare = extract_source("test_a.py", HEAD + ASKS.replace("w.device)", "w)"))
    assert [(b.name, b.device) for b in bare.device_bindings] == [("_layout", "xpu")]


def test_a_class_that_only_asks_is_split_into_generic_and_accelerator(tmp_path: Path) -> None:
    # As torchao's test_quant_primitives.py: its helper asks about XPU; one
    # test needs whichever accelerator there is. Before, the class was made
    # XPU's whole, and instantiated only_for="xpu".
    memory = "        device = torch.accelerator.current_accelerator().type\n        torch.ones(2).to(device)\n"
    source = HEAD + ASKS + TESTS.format(direct=memory).replace("_h(", "_layout(") + MAIN
    text, report = migrate(tmp_path, source)
    assert report.unfixed == []
    assert "class TestQGeneric(unittest.TestCase):\n    hw_classification = HardwareClassification.GENERIC\n" in text
    assert (
        "class TestQAccelerator(unittest.TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n"
        in text
    )
    assert text.count("def test_plain(self):") == text.count("def test_helper(self):") == 1
    assert "    def test_direct(self, device):\n" in text
    assert 'instantiate_device_type_tests(TestQAccelerator, globals(), except_for="cpu", allow_xpu=True)\n' in text
    assert "only_for" not in text
