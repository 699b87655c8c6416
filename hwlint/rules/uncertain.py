"""Uncertain files: where the runtime may collect test classes hwlint cannot see.

Static facts show the classes a module defines. At run time a module can
also make classes by calling a function (`generate_tests(...)`,
`make_test_cls_with_patches(...)`, `type(...)`) and publish them
(`globals().update(...)`), add test methods to a class after its statement
(a class decorator, `setattr`, `copy_tests`), or set the classification
through a variable. Such a module is *uncertain*: `hwlint select` runs it
whole on every runner rather than drop tests no runner would then run, and
HWC112 lists the reasons so that a project can drive them to zero.

Functions named in the `generators` setting are known: the classes they
make, or the classes they copy tests into, are seen, not uncertain.
"""

from __future__ import annotations

from typing import NamedTuple

from hwlint.facts import Dynamic
from hwlint.facts.resolve import ClassInfo, ModuleContext

# Why a file is uncertain, as `--format json` and HWC112 name it.
KINDS = {
    "created-by-call": "a class is created by a call",
    "published": "classes are published through globals() or setattr on the module",
    "methods-by-decorator": "test methods may be added by a class decorator",
    "methods-by-setattr": "test methods may be added by setattr or a call",
    "class-decorator": "a class decorator may replace the class, or make others from it",
    "classification-variable": "the classification is set through a variable",
    "instantiated-through-variable": "instantiate_device_type_tests is given a variable",
    "import-failed": "the module cannot be imported (select --runtime)",
}

# Class decorators that return the class they are given, with no more test
# methods (skip* and requires*, too: PyTorch's `@requires_triton()`,
# `@requires_cuda_p2p_access()` are unittest.skipIf/skipUnless). Any other may add test methods, replace the class
# (`@largeTensorTest` on a class leaves a function: nothing is collected)
# or make classes from it (`@parameterized_class`).
_PLAIN_DECORATORS = frozenset(
    {
        "expectedFailure",
        "instantiate_parametrized_tests",
        "markDynamoStrictTest",
        "unMarkDynamoStrictTest",
        "xfail_inherited_tests",
        "patch",
        "dataclass",
        "final",
        "unique",
        "total_ordering",
    }
)


# Functions that make classes, but never TestCases.
_NOT_TEST_CLASSES = frozenset(
    {
        "Enum",
        "IntEnum",
        "StrEnum",
        "Flag",
        "IntFlag",
        "namedtuple",
        "NamedTuple",
        "TypedDict",
        "TypeVar",
        "NewType",
        "make_dataclass",
    }
)


class Reason(NamedTuple):
    line: int
    column: int
    kind: str  # a key of KINDS
    message: str
    class_name: str | None = None


class Generated(NamedTuple):
    """A class a known generator makes: collected under `name`, derived from `base`."""

    name: str
    base: str
    line: int


class Analysis(NamedTuple):
    reasons: tuple[Reason, ...]
    generated: tuple[Generated, ...]
    gains_tests: frozenset[str]  # classes a known generator copies test methods into


def looks_like_class(name: str) -> bool:
    """`TestFooDynamic`, `DynamicShapesMiscTests`; not `TEST_CUDA` or `device`."""
    return "Test" in name and not name.isupper()


def base_may_be_testcase(base: str) -> bool:
    """Whether a base class hwlint cannot follow may be a TestCase: named
    like one (`TestCase`, `NNTestCase`, `common.DistributedTestBase`) or not
    a plain name (""); `nn.Module` and `Enum` are not. HWC112 and `hwlint
    select` (which follows the bases it can) both judge by this."""
    return not base or "Test" in base.rsplit(".", 1)[-1]


def may_be_testcase(info: ClassInfo) -> bool:
    """A class with a base that may be a TestCase (base_may_be_testcase)."""
    return any(base_may_be_testcase(base) for base in info.facts.bases)


def _arg(dynamic: Dynamic, index: int | None) -> str | None:
    if index is None or index >= len(dynamic.args):
        return None
    return dynamic.args[index]


def _generated_name(template: str | None, dynamic: Dynamic) -> str | None:
    """The name a generator's template gives, when every argument it names is static."""
    if template is None:
        return None
    try:
        name = template.format(*(a if a is not None else "\0" for a in dynamic.args))
    except (IndexError, ValueError):
        return None
    return name if name.isidentifier() else None


def analyse(ctx: ModuleContext) -> Analysis:
    """Why the runtime may collect classes from this module that its facts do not show."""
    generators = ctx.config.generators
    facts = ctx.facts
    classes: dict[str, ClassInfo] = {info.facts.name: info for info in ctx.classes}
    # Classes the runtime may collect once they gain test methods: no test
    # methods of their own, a base that may be a TestCase.
    hidden = sorted(name for name, info in classes.items() if not info.is_test and may_be_testcase(info))
    reasons: list[Reason] = []
    generated: list[Generated] = []
    gains: set[str] = set()

    def add(d: Dynamic, kind: str, message: str, class_name: str | None = None) -> None:
        reasons.append(Reason(d.line, d.column, kind, message, class_name))

    for d in facts.dynamic:
        known = generators.get(d.func) if d.func else None
        if d.kind == "call":
            if known is not None and known.tests_into is not None:
                into = _arg(d, known.tests_into)
                if into is not None and into.isidentifier():
                    gains.add(into)
                else:
                    add(d, "methods-by-setattr", f"{d.func}() copies test methods into a class hwlint cannot name")
                continue
            if known is not None and known.base is not None:
                base = _arg(d, known.base)
                name = _generated_name(known.name, d) if d.target == "globals()" else d.target or None
                if base is not None and base.isidentifier() and name is not None:
                    generated.append(Generated(name, base, d.line))
                elif d.target:
                    add(d, "created-by-call", f"{d.func}() makes a class whose base or name is not static")
                continue
            if d.func in _NOT_TEST_CLASSES:
                continue
            if d.func == "type" or d.target == "globals()" or looks_like_class(d.target):
                what = (
                    f"{d.target} is"
                    if d.target and d.target != "globals()"
                    else "a class published through globals() is"
                )
                add(d, "created-by-call", f"{what} made by {d.func or 'a call'}() at run time")
            elif not d.target:
                touched = [a for a in d.args if a in hidden]
                if touched:
                    add(
                        d,
                        "methods-by-setattr",
                        f"{d.func}() is given {touched[0]}, which has no test methods hwlint can see: it may add some",
                        touched[0],
                    )
        elif d.kind == "publish":
            how = "globals()" if d.func != "setattr" else "setattr on the module"
            add(d, "published", f"classes may be added to the module through {how}")
        elif d.kind == "setattr":
            owner = classes.get(d.target)
            if owner is not None and owner.is_test:
                continue  # one more test method in a class that is selected anyway
            if owner is not None:
                add(d, "methods-by-setattr", f"test methods are added to {d.target} at run time", d.target)
            elif hidden and d.target != "self":  # setattr(self, ...) sets an instance's attribute
                # The target is a name hwlint cannot follow: it may be any
                # class, so the message names one that would then be collected.
                some = " or ".join(hidden[:2]) + (" or another" if len(hidden) > 2 else "")
                add(
                    d,
                    "methods-by-setattr",
                    f"setattr on {d.target or 'an expression'}, which hwlint cannot follow, may add test methods "
                    f"to a class that has none it can see, such as {some}",
                    hidden[0],
                )
        elif d.kind == "classification":
            add(
                d,
                "classification-variable",
                f"{ctx.config.attribute} is set on {d.target or 'a loop variable'}, a class hwlint cannot name",
            )
    for info in ctx.classes:
        cls = info.facts
        unknown = [d for d in cls.decorators if d not in _PLAIN_DECORATORS and not d.startswith(("skip", "requires"))]
        if unknown and not info.is_test and may_be_testcase(info) and cls.name not in gains:
            reasons.append(
                Reason(
                    cls.line,
                    cls.column,
                    "methods-by-decorator",
                    f"{cls.name} has no test methods hwlint can see, but @{unknown[0]} may add some",
                    cls.name,
                )
            )
        elif unknown and info.is_test:
            reasons.append(
                Reason(
                    cls.line,
                    cls.column,
                    "class-decorator",
                    f"@{unknown[0]} may replace {cls.name}, or make other classes from it",
                    cls.name,
                )
            )
        if info.is_test:
            for decl in cls.declarations:
                if decl.value.kind == "other":
                    reasons.append(
                        Reason(
                            decl.line,
                            decl.column,
                            "classification-variable",
                            f"{cls.name}.{ctx.config.attribute} is {decl.value.text}, which hwlint cannot follow",
                            cls.name,
                        )
                    )
    for call in facts.instantiations:
        if call.class_name is None:
            reasons.append(
                Reason(
                    call.line,
                    call.column,
                    "instantiated-through-variable",
                    "instantiate_device_type_tests is given a class hwlint cannot name",
                )
            )
    reasons.sort(key=lambda r: (r.line, r.column))
    return Analysis(tuple(reasons), tuple(generated), frozenset(gains))
