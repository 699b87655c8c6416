"""Test-class detection and inheritance, in one file and across files."""

from __future__ import annotations

from tests.conftest import lint

GENERIC_BASE = "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n\nclass Base(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n"
ACCEL_BASE = "class Base(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n"
TEST_BASE = "class Base(TestCase):\n    def test_inherited(self): pass\n"


def classes(result, path="test/test_x.py"):
    (ctx,) = [c for c in result.contexts if c.path == path]
    return {c.facts.name: (c.is_test, c.classification) for c in ctx.classes}


def codes(result):
    return [(d.path, d.line, d.code) for d in result.diagnostics]


def test_sibling_module_import(project) -> None:
    root = project(
        {
            "test/common_foo.py": GENERIC_BASE,
            "test/test_x.py": "from common_foo import Base\n\nclass TestX(Base):\n    def test_x(self): pass\n",
        }
    )
    result = lint(root)
    assert classes(result) == {"TestX": (True, "GENERIC")}
    assert codes(result) == []


def test_import_from_another_test_file_in_a_parent_folder(project) -> None:
    # PyTorch runs tests with test/ on sys.path: test/nn/test_a.py may import test/test_bar.py.
    root = project(
        {
            "test/test_bar.py": ACCEL_BASE,
            "test/nn/test_x.py": "from test_bar import Base\n\nclass TestX(Base):\n    def test_x(self): pass\n\ninstantiate_device_type_tests(TestX, globals())\n",
        }
    )
    result = lint(root)
    assert classes(result, "test/nn/test_x.py") == {"TestX": (True, "ACCELERATOR")}
    # Inherited ACCELERATOR from another file: the test must still take a device.
    assert codes(result) == [("test/nn/test_x.py", 4, "HWC102")]
    message = result.diagnostics[0].message
    assert "inherited from Base in test/test_bar.py" in message


def test_package_relative_import(project) -> None:
    root = project(
        {
            "test/pkg/__init__.py": "",
            "test/pkg/common.py": GENERIC_BASE,
            "test/pkg/sub/__init__.py": "",
            "test/pkg/sub/test_x.py": "from ..common import Base\nfrom . import nothing\n\nclass TestX(Base):\n    def test_x(self): pass\n",
        }
    )
    assert classes(lint(root), "test/pkg/sub/test_x.py") == {"TestX": (True, "GENERIC")}


def test_module_attribute_base_and_dotted_package(project) -> None:
    root = project(
        {
            "test/helpers/__init__.py": "",
            "test/helpers/bases.py": GENERIC_BASE,
            "test/common_foo.py": GENERIC_BASE,
            "test/test_x.py": (
                "import common_foo\nimport helpers.bases\nfrom helpers import bases as b\n\n"
                "class TestA(common_foo.Base):\n    def test_a(self): pass\n"
                "class TestB(helpers.bases.Base):\n    def test_b(self): pass\n"
                "class TestC(b.Base):\n    def test_c(self): pass\n"
            ),
        }
    )
    assert classes(lint(root)) == {"TestA": (True, "GENERIC"), "TestB": (True, "GENERIC"), "TestC": (True, "GENERIC")}


def test_reexport_chain_and_alias(project) -> None:
    root = project(
        {
            "test/common_a.py": GENERIC_BASE,
            "test/common_b.py": "from common_a import Base as Renamed\n",
            "test/test_x.py": "from common_b import Renamed as B\n\nclass TestX(B):\n    def test_x(self): pass\n",
        }
    )
    assert classes(lint(root)) == {"TestX": (True, "GENERIC")}


def test_inherited_test_methods_make_a_test_class(project) -> None:
    root = project(
        {
            "test/common_foo.py": TEST_BASE,
            "test/test_x.py": "from common_foo import Base\n\nclass TestX(Base):\n    pass\n\nclass Mixin:\n    pass\n\nclass NotATest(Mixin):\n    def helper(self): pass\n",
        }
    )
    result = lint(root)
    assert classes(result) == {"TestX": (True, None), "Mixin": (False, None), "NotATest": (False, None)}
    assert codes(result) == [("test/test_x.py", 3, "HWC001")]


def test_own_declaration_wins_and_first_classified_base_in_mro_order(project) -> None:
    root = project(
        {
            "test/test_x.py": (
                "class G(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n"
                "class C(TestCase):\n    hw_classification = HardwareClassification.CPU\n"
                "class U(TestCase):\n    pass\n"
                "class TestA(U, C, G):\n    def test_a(self): pass\n"
                "class TestB(G):\n    hw_classification = HardwareClassification.CPU\n    def test_b(self): pass\n"
            ),
        }
    )
    result = lint(root)
    got = classes(result)
    assert got["TestA"] == (True, "CPU") and got["TestB"] == (True, "CPU")


def test_invalid_declaration_is_not_inherited(project) -> None:
    root = project(
        {
            "test/common_foo.py": "class Base(TestCase):\n    hw_classification = None\n",
            "test/test_x.py": "from common_foo import Base\n\nclass TestX(Base):\n    def test_x(self): pass\n",
        }
    )
    result = lint(root)
    assert classes(result) == {"TestX": (True, None)}
    # HWC002 belongs to the file that declares it, which is not a test file here.
    assert codes(result) == [("test/test_x.py", 3, "HWC001")]


def test_cycles_and_unresolvable_bases_do_not_hang(project) -> None:
    root = project(
        {
            "test/common_a.py": "from common_b import B\nclass A(B):\n    def test_a(self): pass\n",
            "test/common_b.py": "from common_a import A\nclass B(A):\n    pass\n",
            "test/test_x.py": "from common_a import A\nfrom nowhere import Z\n\nclass TestX(A, Z, make_base()):\n    pass\n\nclass TestSelf(TestSelf):\n    def test_s(self): pass\n",
        }
    )
    result = lint(root)
    assert classes(result) == {"TestX": (True, None), "TestSelf": (True, None)}


def test_base_file_with_syntax_error_is_unresolvable(project) -> None:
    root = project(
        {
            "test/common_foo.py": "class Base(:\n",
            "test/test_x.py": "from common_foo import Base\n\nclass TestX(Base):\n    def test_x(self): pass\n",
        }
    )
    result = lint(root)
    assert classes(result) == {"TestX": (True, None)}
    # Nothing is known of Base: TestX must declare its own classification.
    assert codes(result) == [("test/test_x.py", 3, "HWC001")]


def test_explicit_inheritance_requires_own_declaration(project) -> None:
    files = {
        "test/test_x.py": (
            "class Base(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n    def test_base(self): pass\n"
            "class TestOwn(Base):\n    def test_own(self): pass\n"
            "class TestNoOwnTests(Base):\n    pass\n"
        )
    }
    inherit = lint(project(files))
    assert codes(inherit) == []
    explicit = lint(project(files, settings={"inheritance": "explicit"}))
    assert codes(explicit) == [("test/test_x.py", 4, "HWC001")]
    assert "it inherits GENERIC from Base, but inheritance is explicit" in explicit.diagnostics[0].message
