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

from typing import Literal, NamedTuple

from hwlint.facts import Dynamic
from hwlint.facts.resolve import ClassInfo, ModuleContext

# Why a file is uncertain (a Reason's kind), and how `--format json` and
# HWC112 name it.
UncertainKind = Literal[
    "created-by-call",
    "published",
    "methods-by-decorator",
    "methods-by-setattr",
    "class-decorator",
    "classification-variable",
    "instantiated-through-variable",
    "import-failed",
]
KINDS: dict[UncertainKind, str] = {
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
    """Why a module is uncertain, and where."""

    line: int
    column: int
    kind: UncertainKind
    message: str
    class_name: str | None = None


class Generated(NamedTuple):
    """A class a known generator makes: collected under `name`, derived from `base`."""

    name: str
    base: str
    line: int


class Analysis(NamedTuple):
    """What `analyse` finds in a module."""

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
    scan = _Scan(ctx)
    for d in ctx.facts.dynamic:
        scan.dynamic(d)
    for info in ctx.classes:
        scan.decorated(info)
    for call in ctx.facts.instantiations:
        if call.class_name is None:
            scan.reasons.append(
                Reason(
                    call.line,
                    call.column,
                    "instantiated-through-variable",
                    "instantiate_device_type_tests is given a class hwlint cannot name",
                )
            )
    reasons = sorted(scan.reasons, key=lambda r: (r.line, r.column))
    return Analysis(tuple(reasons), tuple(scan.generated), frozenset(scan.gains))


class _Scan:
    """What `analyse` finds in one module, in the order it finds it: the
    reasons, the classes known generators make, and the classes they copy
    test methods into."""

    def __init__(self, ctx: ModuleContext) -> None:
        self.ctx = ctx
        self.classes: dict[str, ClassInfo] = {info.facts.name: info for info in ctx.classes}
        # Classes the runtime may collect once they gain test methods: no test
        # methods of their own, a base that may be a TestCase.
        self.hidden = sorted(name for name, info in self.classes.items() if not info.is_test and may_be_testcase(info))
        self.reasons: list[Reason] = []
        self.generated: list[Generated] = []
        self.gains: set[str] = set()

    def add(self, d: Dynamic, kind: UncertainKind, message: str, class_name: str | None = None) -> None:
        self.reasons.append(Reason(d.line, d.column, kind, message, class_name))

    def dynamic(self, d: Dynamic) -> None:
        """One dynamic statement of the module: a call, a publication, a
        setattr or a classification set through a variable."""
        if d.kind == "call":
            self.call(d)
        elif d.kind == "publish":
            how = "globals()" if d.func != "setattr" else "setattr on the module"
            self.add(d, "published", f"classes may be added to the module through {how}")
        elif d.kind == "setattr":
            self.setattr(d)
        elif d.kind == "classification":
            self.add(
                d,
                "classification-variable",
                f"{self.ctx.config.attribute} is set on {d.target or 'a loop variable'}, a class hwlint cannot name",
            )

    def call(self, d: Dynamic) -> None:
        """A call at module level: a known generator's (its classes seen), or
        one that may make a class or add test methods to one."""
        known = self.ctx.config.generators.get(d.func) if d.func else None
        if known is not None and known.tests_into is not None:
            into = _arg(d, known.tests_into)
            if into is not None and into.isidentifier():
                self.gains.add(into)
            else:
                self.add(d, "methods-by-setattr", f"{d.func}() copies test methods into a class hwlint cannot name")
            return
        if known is not None and known.base is not None:
            base = _arg(d, known.base)
            name = _generated_name(known.name, d) if d.target == "globals()" else d.target or None
            if base is not None and base.isidentifier() and name is not None:
                self.generated.append(Generated(name, base, d.line))
            elif d.target:
                self.add(d, "created-by-call", f"{d.func}() makes a class whose base or name is not static")
            return
        if d.func in _NOT_TEST_CLASSES:
            return
        if d.func == "type" or d.target == "globals()" or looks_like_class(d.target):
            what = (
                f"{d.target} is" if d.target and d.target != "globals()" else "a class published through globals() is"
            )
            self.add(d, "created-by-call", f"{what} made by {d.func or 'a call'}() at run time")
        elif not d.target:
            touched = [a for a in d.args if a in self.hidden]
            if touched:
                self.add(
                    d,
                    "methods-by-setattr",
                    f"{d.func}() is given {touched[0]}, which has no test methods hwlint can see: it may add some",
                    touched[0],
                )

    def setattr(self, d: Dynamic) -> None:
        """`setattr(target, ...)`: test methods added to a class, maybe one
        hwlint cannot name."""
        owner = self.classes.get(d.target)
        if owner is not None and owner.is_test:
            return  # one more test method in a class that is selected anyway
        if owner is not None:
            self.add(d, "methods-by-setattr", f"test methods are added to {d.target} at run time", d.target)
        elif self.hidden and d.target != "self":  # setattr(self, ...) sets an instance's attribute
            # The target is a name hwlint cannot follow: it may be any
            # class, so the message names one that would then be collected.
            hidden = self.hidden
            some = " or ".join(hidden[:2]) + (" or another" if len(hidden) > 2 else "")
            self.add(
                d,
                "methods-by-setattr",
                f"setattr on {d.target or 'an expression'}, which hwlint cannot follow, may add test methods "
                f"to a class that has none it can see, such as {some}",
                hidden[0],
            )

    def decorated(self, info: ClassInfo) -> None:
        """A class's decorators that may add test methods or replace it, and
        a test class's classification set through a variable."""
        cls = info.facts
        unknown = [d for d in cls.decorators if d not in _PLAIN_DECORATORS and not d.startswith(("skip", "requires"))]
        if unknown and not info.is_test and may_be_testcase(info) and cls.name not in self.gains:
            self.reasons.append(
                Reason(
                    cls.line,
                    cls.column,
                    "methods-by-decorator",
                    f"{cls.name} has no test methods hwlint can see, but @{unknown[0]} may add some",
                    cls.name,
                )
            )
        elif unknown and info.is_test:
            self.reasons.append(
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
                    self.reasons.append(
                        Reason(
                            decl.line,
                            decl.column,
                            "classification-variable",
                            f"{cls.name}.{self.ctx.config.attribute} is {decl.value.text}, which hwlint cannot follow",
                            cls.name,
                        )
                    )
