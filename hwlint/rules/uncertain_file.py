"""HWC112 `uncertain-file`: Test classes, methods or classifications that exist only at run time.

The rule, its examples and its check; `hwlint rule HWC112` prints its
explanation (the class docstring)."""

from __future__ import annotations

from typing import Iterator

from hwlint.facts.resolve import ModuleContext
from hwlint.rules.base import Example, Rule, Violation, snippet

_HEADER = "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n\n"


class UncertainFile(Rule):
    """
    ## What it does
    Reports what makes a module *uncertain*: test classes, test methods or
    classifications that only exist once the module runs, so that hwlint
    cannot see them.

    - a class made by a call (`TestFooDynamic = make_test_cls(...)`,
      `type(...)`) or published through `globals()` or `setattr` on the module
      (`globals().update(generate_tests(...))`);
    - test methods added after the class statement, to a class with none of
      its own: by a class decorator (`@expose_mixin_tests`), by `setattr`, or
      by a call given the class (`copy_tests(Template, CpuTests, "cpu")`);
    - a test class under a class decorator hwlint does not know, which may
      replace it (`@largeTensorTest("32GB")` on a class leaves a function)
      or make classes from it (`@parameterized_class`); `skip*`, `patch`,
      `instantiate_parametrized_tests` and the Dynamo strict-mode markers
      are known to keep it;
    - the classification set through a variable
      (`for cls in generated.values(): cls.hw_classification = ...`,
      `hw_classification = KIND`);
    - `instantiate_device_type_tests` given a variable.

    ## Why is this bad?
    A class hwlint cannot see is a class nobody can lint, and one `hwlint
    select` cannot place: it runs such a module whole on every runner, so
    that no runner drops its tests. Each site reported here is a module that
    every runner runs in full.

    ## Example
    ```python
    globals().update(generate_tests("TensorPipe", RpcTestMixin, TESTS, __name__))
    ```

    ## Use instead
    Write the classes out, each with its classification:
    ```python
    class TensorPipeRpcTest(RpcTestMixin, TestCase):
        hw_classification = HardwareClassification.CPU
    ```
    or name the generator in the `generators` setting when the classes it
    makes are static:
    ```toml
    [tool.hwlint.generators]
    make_test_cls_with_patches = { base = 0, name = "{1}{0}" }
    copy_tests = { tests-into = 1 }
    ```

    ## Options
    `generators`: functions that make test classes (`base`: the position of
    the argument the class derives from; `name`: its name, `{N}` standing for
    argument N, when the call's result is not bound to a name) or copy test
    methods into one (`tests-into`: that argument's position).
    """

    code = "HWC112"
    name = "uncertain-file"
    summary = "Test classes, methods or classifications that exist only at run time"
    default = False
    VALID = (
        Example(
            _HEADER
            + snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.CPU
                    def test_a(self): pass

                TestADynamic = make_test_cls_with_patches(TestA, 'Dynamic', '_dynamic')
                """),
            settings={"generators": {"make_test_cls_with_patches": {"base": 0}}},
        ),
        Example(
            _HEADER
            + snippet("""\
                class Template:
                    def test_a(self): pass

                class CpuTests(TestCase):
                    hw_classification = HardwareClassification.CPU

                copy_tests(Template, CpuTests, 'cpu')
                """),
            settings={"generators": {"copy_tests": {"tests-into": 1}}},
        ),
        Example(
            _HEADER
            + snippet("""\
                @skipIfRocm
                @instantiate_parametrized_tests
                class TestA(TestCase):
                    hw_classification = HardwareClassification.CPU
                    def test_a(self): pass
                """)
        ),
        # More test methods in a class that has some change nothing.
        Example(
            _HEADER
            + snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.CPU
                    def test_a(self): pass

                setattr(TestA, 'test_b', lambda self: None)
                """)
        ),
    )
    INVALID = (
        Example(
            _HEADER + "globals().update(generate_tests('TensorPipe', Mixin, TESTS, __name__))\n",
            expect=((3, 18),),
            messages=("a class published through globals() is made by generate_tests() at run time",),
        ),
        Example(
            _HEADER
            + snippet("""\
                generated = generate_tests('TensorPipe', Mixin, TESTS, __name__)
                globals().update(generated)
                for _cls in generated.values():
                    _cls.hw_classification = HardwareClassification.CPU
                """),
            expect=((4, 1), (6, 5)),
            messages=(
                "classes may be added to the module through globals()",
                "hw_classification is set on a loop variable",
            ),
        ),
        Example(
            _HEADER
            + snippet("""\
                @expose_mixin_tests(Mixin)
                class TestA(TestCase):
                    hw_classification = HardwareClassification.CPU
                """),
            expect=((4, 1),),
            messages=("TestA has no test methods hwlint can see, but @expose_mixin_tests may add some",),
        ),
        Example(
            _HEADER
            + snippet("""\
                @largeTensorTest('32GB')
                class TestA(TestCase):
                    hw_classification = HardwareClassification.CPU
                    def test_a(self): pass
                """),
            expect=((4, 1),),
            messages=("@largeTensorTest may replace TestA, or make other classes from it",),
        ),
        Example(
            _HEADER
            + snippet("""\
                class TestA(TestCase):
                    hw_classification = HardwareClassification.CPU

                for name in NAMES:
                    setattr(TestA, 'test_' + name, make_test(name))
                """),
            expect=((7, 5),),
            messages=("test methods are added to TestA at run time",),
        ),
        Example(
            _HEADER
            + snippet("""\
                KIND = HardwareClassification.CPU

                class TestA(TestCase):
                    hw_classification = KIND
                    def test_a(self): pass
                """),
            expect=((6, 5),),
            messages=("TestA.hw_classification is KIND, which hwlint cannot follow",),
        ),
        Example(
            _HEADER + "TestADynamic = make_test_cls_with_patches(TestA, 'Dynamic', '_dynamic')\n",
            expect=((3, 16),),
            messages=("TestADynamic is made by make_test_cls_with_patches() at run time",),
        ),
    )

    def check(self, ctx: ModuleContext) -> Iterator[Violation]:
        from hwlint.rules.uncertain import analyse  # off by default: a check without it does not import it

        for reason in analyse(ctx).reasons:
            yield Violation(
                reason.line,
                reason.column,
                f"{reason.message}: hwlint cannot see what the runtime collects here",
                reason.class_name,
            )
