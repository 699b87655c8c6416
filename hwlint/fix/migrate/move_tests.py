"""One-device tests of an ACCELERATOR class moved ("move-tests"): into a
subclass of that device, defined and instantiated right after the class, or
the class itself reclassified when every test of it goes."""

from __future__ import annotations

import re
from typing import Callable, NamedTuple, Sequence

import libcst as cst

from hwlint.core.config import Config
from hwlint.facts.devices import OPT_IN, framework_type, instantiable
from hwlint.fix.edits import declaration_statement, ensure_import
from hwlint.fix.migrate.class_level import redeclare
from hwlint.fix.migrate.framework import MOVES_TO, NATIVE, NOT_NATIVE
from hwlint.fix.migrate.outcome import Done, Refusal
from hwlint.fix.migrate.tree import decorator_name, flag_is_true, instantiation_call, literal_strings


def move_target(specific: Sequence[cst.Decorator]) -> str | tuple[str, ...] | None:
    """The device a test's device decorators keep it to (`@onlyCPU` ->
    "cpu", `@onlyOn("cuda")` -> "cuda"), the devices `@onlyOn(["cuda",
    "xpu"])` names, NATIVE for @onlyNativeDeviceTypes alone, or None when
    they disagree or name none that a class can stand for."""
    targets: set[str | tuple[str, ...]] = set()
    for d in specific:
        name = decorator_name(d)
        if name == "onlyOn":
            call = d.decorator
            named = (
                literal_strings(call.args[0].value)
                if isinstance(call, cst.Call) and len(call.args) == 1 and call.args[0].keyword is None
                else None
            )
            if not named:
                return None
            targets.add(named[0].lower() if len(named) == 1 else tuple(d.lower() for d in named))
        elif name in MOVES_TO:
            targets.add(MOVES_TO[name])
        else:
            return None
    if len(targets) == 2 and NATIVE in targets:
        targets.discard(NATIVE)  # @onlyCUDA @onlyNativeDeviceTypes: CUDA is native
    return next(iter(targets)) if len(targets) == 1 else None


# A test to move: its index in the class body, the test, its line in the
# file as read, the names of its device decorators.
MovingTest = tuple[int, cst.FunctionDef, int, list[str]]
# A test that cannot move: the test, its line, its decorators' names, why.
StayingTest = tuple[cst.FunctionDef, int, list[str], str]


class _Move(NamedTuple):
    """A move decided: the class's name and the name of the class the tests
    go to, its member, the instantiation's arguments after the scope
    (`only_for`/`except_for`, flags) as the summary shows them, the device
    types an @onlyOn of several runs on (else ()), the index of the class's
    instantiation in the module's body, the new instantiation's arguments,
    the tests that go, and those tests without their device decorators
    (by id, for an ACCELERATOR class, whose except_for stands for them)."""

    name: str
    new_name: str
    member: str
    runs: str
    several: tuple[str, ...]
    instantiated_at: int
    args: list[cst.Arg]
    tests: Sequence[MovingTest]
    native: dict[int, cst.FunctionDef]

    def done(self, detail: Callable[[cst.FunctionDef, list[str]], str]) -> list[Done]:
        """One record per test moved, `detail` saying what became of it."""
        collected: tuple[str, ...] = tuple(self.new_name + d.upper() for d in self.several)
        if not self.several and self.member != "ACCELERATOR":
            collected = (self.new_name + self.member,)
        return [
            Done(
                "move-tests",
                self.name,
                line,
                self.member,
                detail(fn, names),
                collected,
                method=fn.name.value,
                to_class=self.new_name,
            )
            for _, fn, line, names in self.tests
        ]


def _several(target: tuple[str, ...], call: cst.Call) -> tuple[str, ...]:
    """The device types a test of `@onlyOn(target)` ran on in a class
    instantiated by `call`: those it names that the call instantiates.
    Refusal when the call's except_for is not a literal."""
    excepted = next((a for a in call.args if a.keyword is not None and a.keyword.value == "except_for"), None)
    named_out = literal_strings(excepted.value) if excepted is not None else ()
    if named_out is None:
        raise Refusal("the class's except_for is computed")
    out = {framework_type(d) for d in named_out}
    named = {framework_type(d) for d in target}
    return tuple(
        d
        for d in instantiable(flag_is_true(call, "allow_mps"), flag_is_true(call, "allow_xpu"))
        if d in named and d not in out
    )


def move_tests(
    module: cst.Module,
    body: list[cst.BaseStatement],
    where: int,
    placed: int,
    target: str | tuple[str, ...],
    tests: Sequence[MovingTest],
    config: Config,
    whole: bool = False,
) -> tuple[list[Done], list[StayingTest]]:
    """Move `tests` of the ACCELERATOR class at `body[where]` into a new
    subclass of it, defined right after it and instantiated right after
    it (after the `placed` classes moved out of it before): `class
    TestFooCPUOnly(TestFoo)` with `only_for="cpu"` for a device, `class
    TestFooNative(TestFoo)` with `except_for` the types that are not native
    for @onlyNativeDeviceTypes (which it loses). Being a subclass, it has
    the class's setUp, helpers and attributes; the class's own tests are
    not inherited at run time: instantiating a class deletes its tests from
    it; it wears the class's decorators too, so that what they do to tests
    they do to the moved ones. A test that cannot move stays, returned with
    why (`_stays`). When `whole` (every test of the class goes), the class
    itself is reclassified and its instantiation changed instead: nothing
    is renamed. `body` is changed in place; Refusal, with why, when the
    move cannot be made."""
    cls = body[where]
    assert isinstance(cls, cst.ClassDef) and isinstance(cls.body, cst.IndentedBlock)
    name = cls.name.value
    calls = [at for at, stmt in enumerate(body) if instantiation_call(stmt, name) is not None]
    if len(calls) != 1:
        raise Refusal(f"{name} is not instantiated once at the module's top level")
    call = instantiation_call(body[calls[0]], name)
    assert call is not None
    target, several = _narrowed(name, target, call)
    member, suffix = _member_and_suffix(target, several, config)
    new_name = name if whole else name + suffix
    code = module.code_for_node(module.with_changes(body=body))
    if not whole and re.search(rf"\b{re.escape(new_name)}\b", code):
        raise Refusal(f"the name {new_name} is taken")
    if len(call.args) < 2 or any(a.keyword is None for a in call.args[2:]):
        raise Refusal(f"{name}'s instantiate_device_type_tests call has more positional arguments than the scope")
    keywords = {a.keyword.value: a for a in call.args[2:] if a.keyword is not None}
    if "include_lazy" in keywords and target == NATIVE:
        raise Refusal("include_lazy=True adds Lazy, which except_for cannot leave out")
    # A test that cannot move stays (and is refused); the others go.
    refused: list[StayingTest] = []
    going = []
    for entry in tests:
        _, fn, line, names = entry
        why = None if whole else _stays(module, fn, code)
        if why is None:
            going.append(entry)
        else:
            refused.append((fn, line, names, why))
    if not going:
        return [], refused
    args, runs = _instantiation_args(name, new_name, call, keywords, target, several)
    # An ACCELERATOR class's tests lose their device decorators: its except_for stands for them.
    native = (
        {
            id(fn): fn.with_changes(decorators=[d for d in fn.decorators if decorator_name(d) not in names])
            for _, fn, _, names in going
        }
        if member == "ACCELERATOR"
        else {}
    )
    move = _Move(name, new_name, member, runs, several, calls[0], args, going, native)
    if whole:
        return _class_reclassified(body, where, call, move, config), refused
    return _subclass_added(module, body, where, placed, call, move, config), refused


def _narrowed(
    name: str, target: str | tuple[str, ...], call: cst.Call
) -> tuple[str | tuple[str, ...], tuple[str, ...]]:
    """The target as the class's instantiation makes it: an @onlyOn of
    several devices the call makes one of (not a PrivateUse1 backend's) is
    that device's; else the device types it runs on, besides."""
    several: tuple[str, ...] = ()
    if isinstance(target, tuple):
        runs_on = _several(target, call)
        if not runs_on:
            raise Refusal(f"{name}'s instantiation makes none of {', '.join(target)}")
        if len(runs_on) == 1 and runs_on[0] != "privateuse1":
            target = runs_on[0]
        else:
            several = runs_on
    return target, several


def _member_and_suffix(target: str | tuple[str, ...], several: tuple[str, ...], config: Config) -> tuple[str, str]:
    """The member of the class the tests go to, and the suffix of its name;
    Refusal when the member is not configured."""
    if several:
        member, suffix = "ACCELERATOR", "".join(d.upper() for d in several) + "Only"
    elif target == NATIVE:
        member, suffix = "ACCELERATOR", "Native"
    else:
        assert isinstance(target, str)
        member, suffix = target.upper(), f"{target.upper()}Only"
    if member not in config.classifications:
        raise Refusal(f"{member} is not a configured classification")
    return member, suffix


def _instantiation_args(
    name: str,
    new_name: str,
    call: cst.Call,
    keywords: dict[str, cst.Arg],
    target: str | tuple[str, ...],
    several: tuple[str, ...],
) -> tuple[list[cst.Arg], str]:
    """The arguments of the moved tests' instantiation (`new_name`, the
    scope, then only_for the device or except_for the types they did not
    run on, with the flags they need), and those after the scope as the
    summary shows them."""
    args = [cst.Arg(cst.Name(new_name)), call.args[1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
    if several:
        # Every type the call can instantiate but those the test ran on.
        flags = [keywords[k] for k in ("allow_mps", "allow_xpu") if k in keywords]
        excluded = tuple(
            d
            for d in instantiable(flag_is_true(call, "allow_mps"), flag_is_true(call, "allow_xpu"))
            if d not in several
        )
        more = [*flags, cst.Arg(_string_tuple(excluded), keyword=cst.Name("except_for"))]
        runs = f"except_for={excluded!r}"
    elif target == NATIVE:
        old = keywords.get("except_for")
        named = literal_strings(old.value) if old is not None else ()
        if named is None:
            raise Refusal(f"{name}'s except_for is computed")
        excluded = tuple(dict.fromkeys((*named, *NOT_NATIVE)))
        flags = [keywords[k] for k in ("allow_mps", "allow_xpu") if k in keywords]
        more = [*flags, cst.Arg(_string_tuple(excluded), keyword=cst.Name("except_for"))]
        runs = f"except_for={excluded!r}"
    else:
        assert isinstance(target, str)
        more = [cst.Arg(_string(target), keyword=cst.Name("only_for"))]
        if target in OPT_IN:
            more.append(cst.Arg(cst.Name("True"), keyword=cst.Name(OPT_IN[target])))
        runs = f"only_for={target!r}"
    space = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    args = [
        a.with_changes(comma=space, equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
        if a.keyword is not None
        else a.with_changes(comma=space)
        for a in (*args, *more)
    ]
    args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return args, runs


def _class_reclassified(
    body: list[cst.BaseStatement], where: int, call: cst.Call, move: _Move, config: Config
) -> list[Done]:
    """Every test of the class goes: the class itself redeclared and its
    instantiation's arguments changed, nothing renamed."""
    cls = body[where]
    assert isinstance(cls, cst.ClassDef) and isinstance(cls.body, cst.IndentedBlock)
    stmts = [move.native.get(id(s), s) for s in cls.body.body]
    redeclared = redeclare(cls.with_changes(body=cls.body.with_changes(body=stmts)), config.attribute, move.member)
    if redeclared is None:
        raise Refusal(f"{move.name} declares its classification other than in its body")
    body[where] = redeclared
    stmt = body[move.instantiated_at]
    assert isinstance(stmt, cst.SimpleStatementLine)
    body[move.instantiated_at] = stmt.with_changes(
        body=[cst.Expr(call.with_changes(args=[call.args[0], *move.args[1:]]))]
    )
    return move.done(
        lambda fn, names: (
            f"{fn.name.value}: @{' @'.join(names)}, as every test of {move.name} -> "
            f"{move.name} is {move.member} ({move.runs})"
        )
    )


def _subclass_added(
    module: cst.Module,
    body: list[cst.BaseStatement],
    where: int,
    placed: int,
    call: cst.Call,
    move: _Move,
    config: Config,
) -> list[Done]:
    """The tests moved out of the class into a subclass of it, declared
    `move.member`, defined and instantiated after it (after the `placed`
    subclasses already added)."""
    cls = body[where]
    assert isinstance(cls, cst.ClassDef) and isinstance(cls.body, cst.IndentedBlock)
    enum_name = ensure_import(module, config.import_from, config.enum)[1]
    moved: list[cst.BaseStatement] = [move.native.get(id(fn), fn) for _, fn, _, _ in move.tests]
    ids = {id(fn) for _, fn, _, _ in move.tests}
    blank = cst.EmptyLine(indent=False)
    new_cls = cst.ClassDef(
        name=cst.Name(move.new_name),
        bases=[cst.Arg(cst.Name(move.name))],
        leading_lines=[blank, blank],
        decorators=[d.with_changes(leading_lines=[]) for d in cls.decorators],
        body=cls.body.with_changes(body=[declaration_statement(config.attribute, enum_name, move.member), *moved]),
    )
    body[where] = cls.with_changes(body=cls.body.with_changes(body=[s for s in cls.body.body if id(s) not in ids]))
    instantiation = cst.SimpleStatementLine([cst.Expr(call.with_changes(args=move.args))])
    # The instantiation first: it is after the class, and inserting the class moves it.
    body.insert(move.instantiated_at + 1 + placed, instantiation)
    body.insert(where + 1 + placed, new_cls)
    return move.done(
        lambda fn, names: f"{fn.name.value}: @{' @'.join(names)} -> {move.new_name} ({move.member}, {move.runs})"
    )


def _stays(module: cst.Module, fn: cst.FunctionDef, code: str) -> str | None:
    """Why a test cannot move to a subclass, or None: zero-argument
    `super()` and `__class__` would mean the new class; a test named
    anywhere but in a `def` (`test_y = test_x`, a skip list, another
    test calling it) would be looked for where it no longer is."""
    text = module.code_for_node(fn)
    if "super(" in text or "__class__" in text:
        return f"{fn.name.value} uses super() or __class__, which a move changes"
    if re.search(rf"(?<!def )\b{re.escape(fn.name.value)}\b", code):
        return f"{fn.name.value} is named elsewhere in the module"
    return None


def _string(value: str) -> cst.SimpleString:
    """A device name as a string literal, in double quotes (black's, and
    PyTorch's, style); device names hold no quote or backslash."""
    return cst.SimpleString(f'"{value}"')


def _string_tuple(values: Sequence[str]) -> cst.Tuple:
    space = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    elements = [cst.Element(_string(v), comma=space) for v in values]
    if len(elements) > 1:
        elements[-1] = elements[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    else:
        elements[-1] = elements[-1].with_changes(comma=cst.Comma())
    return cst.Tuple(elements)
