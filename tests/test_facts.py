"""Facts: source in, plain records out."""

from __future__ import annotations

import pickle
import textwrap

from hwlint.facts import (
    DEFAULT_ACCELERATORS,
    Branch,
    Declaration,
    Method,
    Site,
    Value,
    extract_source,
)
from hwlint.facts.vocabulary import vocabulary_for


def facts(source: str):
    return extract_source("test/test_x.py", textwrap.dedent(source))


def test_classes_at_module_level_and_in_blocks_but_not_nested() -> None:
    f = facts(
        """
        class A: pass
        if X:
            class B: pass
        else:
            class C: pass
        try:
            class D: pass
        except ImportError:
            class E: pass
        finally:
            class F: pass
        with ctx():
            class G: pass
        for i in range(2):
            class H: pass
        while False:
            class I: pass
        class Outer:
            class Inner:
                def test_x(self): pass
        def factory():
            class Local:
                def test_y(self): pass
        """
    )
    assert [c.name for c in f.classes] == list("ABCDEFGHI") + ["Outer"]
    assert f.classes[-1].methods == ()


def test_test_methods_params_and_decorators() -> None:
    f = facts(
        """
        class TestA(TestCase):
            def setUp(self): pass
            def helper_test(self): pass
            @common_device_type.onlyCUDA
            @dtypes(torch.float)
            def test_a(self, device, dtype): pass
            async def test_b(self, *, devices): pass
            if FLAG:
                def test_c(self): pass
        """
    )
    (cls,) = f.classes
    assert cls.methods == (
        Method("test_a", 7, 5, ("device", "dtype"), ("onlyCUDA", "dtypes")),
        Method("test_b", 8, 5, ("devices",), ()),
        Method("test_c", 10, 9, (), ()),
    )


def test_declarations_in_every_form() -> None:
    f = facts(
        """
        from torch.testing._internal.common_utils import HardwareClassification as HC
        import torch.testing._internal.common_utils as cu

        class TestA(TestCase):
            hw_classification = HC.GENERIC
        class TestB(TestCase):
            hw_classification: HardwareClassification = cu.HardwareClassification.CUDA
        class TestC(TestCase):
            hw_classification: HardwareClassification
        class TestD(TestCase):
            hw_classification = "GENERIC"
        class TestE(TestCase):
            hw_classification = pick()
        class TestF(TestCase):
            pass
        TestF.hw_classification = HC.XPU
        for cls in (TestA, TestB):
            cls.hw_classification = HC.MPS
        """
    )
    decls = {c.name: c.declarations for c in f.classes}
    assert decls["TestA"] == (
        Declaration(6, 5, Value("member", "GENERIC"), "body"),
        Declaration(19, 5, Value("member", "MPS"), "module"),
    )
    assert decls["TestB"][0] == Declaration(8, 5, Value("member", "CUDA"), "body")
    assert decls["TestC"] == (Declaration(10, 5, Value("missing", ""), "body"),)
    assert decls["TestD"] == (Declaration(12, 5, Value("string", "GENERIC"), "body"),)
    assert decls["TestE"] == (Declaration(14, 5, Value("other", "pick()"), "body"),)
    assert decls["TestF"] == (Declaration(17, 1, Value("member", "XPU"), "module"),)


def test_unknown_enum_name_is_not_a_member() -> None:
    f = facts("class A:\n    hw_classification = Other.GENERIC\n")
    assert f.classes[0].declarations[0].value == Value("other", "Other.GENERIC")


def test_instantiations() -> None:
    f = facts(
        """
        instantiate_device_type_tests(TestA, globals())
        common_device_type.instantiate_device_type_tests(TestB, globals(), only_for="cuda", allow_mps=True)
        instantiate_device_type_tests(generic_test_class=TestC, scope=globals(), except_for=("cpu", "meta"), allow_xpu=ALLOW)
        instantiate_device_type_tests(TestD, globals(), only_for=DEVICES, allow_xpu=False)
        for cls in (TestE, TestF):
            instantiate_device_type_tests(cls, globals())
        instantiate_device_type_tests(make(), globals())
        instantiate_parametrized_tests(TestG)
        """
    )
    got = [(i.class_name, i.only_for, i.except_for, i.allow_mps, i.allow_xpu, i.line) for i in f.instantiations]
    assert got == [
        ("TestA", None, None, False, False, 2),
        ("TestB", ("cuda",), None, True, False, 3),
        ("TestC", None, ("cpu", "meta"), False, True, 4),
        ("TestD", (), None, False, False, 5),
        ("TestE", None, None, False, False, 7),
        ("TestF", None, None, False, False, 7),
        (None, None, None, False, False, 8),
    ]


def test_probes_and_hardcoded_devices() -> None:
    f = facts(
        """
        class TestA(TestCase):
            @skipIf(not TEST_CUDA, "")
            def test_a(self):
                torch.cuda.is_available()
                x = torch.ones(2, device="cuda:0").to("xpu")
                y = x.cuda()
                torch.backends.mps.is_available()
                torch.device("mps")
                torch.cuda.synchronize()
                z = torch.ones(2, device="cpu")
        """
    )
    (cls,) = f.classes
    assert cls.probes == (
        Site(3, 17, "TEST_CUDA", "flag"),
        Site(5, 9, "torch.cuda.is_available()", "probe"),
        Site(8, 9, "torch.backends.mps.is_available()", "probe"),
        Site(10, 9, "torch.cuda.synchronize()", "use"),
    )
    assert [(s.line, s.text) for s in cls.devices] == [
        (6, 'device="cuda:0"'),
        (6, '.to("xpu")'),
        (7, ".cuda()"),
        (9, 'torch.device("mps")'),
        (10, "torch.cuda.synchronize()"),
    ]


def test_class_without_accelerator_text_is_not_walked() -> None:
    f = facts("class TestA(TestCase):\n    def test_a(self):\n        x = cudagraph_trees()\n")
    assert f.classes[0].probes == () and f.classes[0].devices == ()


def test_noqa_and_skip_file() -> None:
    f = facts("a = 1  # noqa: HWC001, HWC1\nb = 2  # NOQA\nc = 3  # noqa:HWC002\nd = '# no qa'\n")
    assert f.noqa == {1: frozenset({"HWC001", "HWC1"}), 2: None, 3: frozenset({"HWC002"})}
    assert f.suppressed(1, "HWC105") and f.suppressed(2, "HWC001") and not f.suppressed(3, "HWC001")
    assert facts("# hwlint: skip-file\nclass A:\n    def test(self): pass\n").skip_file


def test_branches_tell_alternatives_from_sequences() -> None:
    f = facts(
        """
        if A:
            class T1: pass
        else:
            class T1: pass
        class T2: pass
        class T2: pass
        try:
            class T3: pass
        except ImportError:
            class T3: pass
        """
    )
    c = f.classes
    assert c[1].branch.excludes(c[0].branch)
    assert not c[3].branch.excludes(c[2].branch)
    assert c[5].branch.excludes(c[4].branch)
    assert not Branch().excludes(c[0].branch)


def test_parse_errors_are_facts_not_exceptions() -> None:
    f = facts("class A(\n")
    assert f.error is not None and f.error.line == 1 and "syntax error" in f.error.message
    assert f.classes == ()


def test_facts_pickle_and_are_small() -> None:
    body = "".join(f"    def test_{i}(self, device):\n        x = torch.ones({i}, device=device)\n" for i in range(500))
    f = facts("class TestA(TestCase):\n" + body)
    data = pickle.dumps(f)
    assert pickle.loads(data) == f
    # Facts, not trees: far smaller than the source they come from.
    assert len(data) < len(body) * 0.6


def test_module_level_accelerator_mentions() -> None:
    f = facts(
        """
        import torch
        from torch.testing._internal.common_utils import TEST_CUDA
        device = torch.device("cuda")
        if TEST_CUDA:
            x = 1
        def helper():
            return torch.ones(2).cuda()
        class TestA(TestCase):
            def test_a(self): torch.cuda.synchronize()
        instantiate_device_type_tests(TestA, globals(), only_for="cuda")
        """
    )
    assert f.accelerator_lines == (4, 5, 8)


BACKEND = textwrap.dedent(
    """
    device = torch.device("openreg")

    class TestOpenReg(TestCase):
        @unittest.skipIf(not TEST_OPENREG, "no backend")
        def test_a(self):
            torch_npu.npu.synchronize()
            torch_npu.npu.is_available()
            x = torch.ones(2).openreg()
            y = x.to("openreg:1")
    """
)


def test_a_backends_api_counts_once_configured() -> None:
    plain = extract_source("test/test_x.py", BACKEND)
    # Unconfigured, the device is found in the code (hwlint.facts.devices)
    # and its uses count; the backend's own module and flag need the settings.
    assert [d.name for d in plain.devices_found] == ["openreg"]
    assert [(d.line, d.text) for d in plain.classes[0].devices] == [(9, ".openreg()"), (10, '.to("openreg:1")')]
    assert [p.text for p in plain.classes[0].probes] == ["TEST_OPENREG"]
    backend = DEFAULT_ACCELERATORS.extended(modules=["torch_npu.npu"], flags=["TEST_OPENREG"], devices=["openreg"])
    f = extract_source("test/test_x.py", BACKEND, accelerators=backend)
    cls = f.classes[0]
    assert [(p.line, p.column, p.text) for p in cls.probes] == [
        (5, 26, "TEST_OPENREG"),
        (7, 9, "torch_npu.npu.synchronize()"),
        (8, 9, "torch_npu.npu.is_available()"),
    ]
    assert [(d.line, d.column, d.text) for d in cls.devices] == [
        (7, 9, "torch_npu.npu.synchronize()"),
        (9, 27, ".openreg()"),
        (10, 15, '.to("openreg:1")'),
    ]
    assert f.accelerator_lines == (2,)  # the module-level torch.device("openreg"): a hint for fix


def test_default_vocabulary_keeps_its_hand_picked_tokens() -> None:
    """The substrings that pick candidate lines are what makes a large file
    cheap: PyTorch's own set must stay the short hand-picked one, and a
    backend's additions must not drop any of it."""
    default = vocabulary_for(DEFAULT_ACCELERATORS).tokens
    assert default == (
        "accelerator",
        "cuda",
        "hpu",
        "ipu",
        "mps",
        "mtia",
        "xla",
        "xpu",
        "TEST_",
        "torch.npu",
        ".npu(",
        '"npu',
        "'npu",
        # Which device the out-of-tree backend is (Ascend's tests build theirs from it).
        "_get_privateuse1_backend_name",
        "GPU_TYPE",
        # Ascend's backend settings (`torch.backends.npu.matmul.allow_hf32`), which only torch_npu makes.
        "backends.npu",
    )
    extended = vocabulary_for(
        DEFAULT_ACCELERATORS.extended(
            modules=["torch.openreg", "torch_npu.npu"], flags=["TEST_OPENREG"], devices=["openreg"]
        )
    ).tokens
    # TEST_OPENREG needs no token of its own: "TEST_" finds it.
    assert extended[: len(default)] == default
    assert set(extended[len(default) :]) == {
        "torch.openreg",
        "torch_npu.npu",
        '"openreg',
        "'openreg",
        ".openreg(",
        "backends.openreg",
    }


def test_a_string_a_device_type_is_compared_with_is_no_device_site() -> None:
    # `self.device_type == "xpu"` asks which device the test runs on, as a device-generic
    # test may; `x == "xpu"` is a device string like any other.
    source = """
    import torch
    from torch.testing._internal.common_utils import TestCase

    class TestA(TestCase):
        def test_a(self, device):
            if self.device_type == "xpu" or torch.device(device).type in ("cuda", "mps"):
                return
            device_type = torch.device(device).type
            if device_type != "hpu" and x == "xpu":
                return
    """
    (cls,) = facts(source).classes
    assert [(d.line, d.kind, d.name) for d in cls.devices] == [(10, "string", "xpu")]
