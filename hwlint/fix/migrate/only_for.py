"""The only-for migrations: an `instantiate_device_type_tests(...,
only_for=...)` naming several devices becomes ACCELERATOR with `except_for`
the complement ("only-for-except"), or, when the call can instantiate only
one of them, that device's classification ("only-for-one")."""

from __future__ import annotations

from typing import NamedTuple

import libcst as cst

from hwlint.facts import ModuleFacts
from hwlint.facts.devices import OUT_OF_TREE_BASES, complement, framework_type, instantiable
from hwlint.fix.migrate.class_level import ModuleEdits
from hwlint.fix.migrate.framework import instantiated_names
from hwlint.fix.migrate.outcome import Done, Refusal
from hwlint.fix.migrate.tree import flag_is_true, instantiation_call, literal_strings, module_constant
from hwlint.fix.plan_records import Migration


class _OnlyFor(NamedTuple):
    """The one instantiation of the class, and its only_for: the call's
    index in the module's body, the call, the argument's position in it,
    the argument, its value (a module constant's, for a name), how the
    refusals name it, the devices it names, and the quote they are in."""

    at: int
    call: cst.Call
    position: int
    arg: cst.Arg
    value: cst.BaseExpression
    source: str
    named: tuple[str, ...]
    quote: str


def only_for(state: ModuleEdits, m: Migration, index: int, facts: ModuleFacts) -> Done:
    """The instantiation of the class at `state.body[index]` with only_for
    several devices as ACCELERATOR with `except_for` the complement, or as
    the one device's class when the call can instantiate only one of them.
    Refusal, with why, when the only_for is not a literal the tree shows."""
    given = _only_for_given(state, m, facts)
    named = given.named
    allow_mps, allow_xpu = flag_is_true(given.call, "allow_mps"), flag_is_true(given.call, "allow_xpu")
    can = instantiable(allow_mps, allow_xpu)
    runs = [d for d in dict.fromkeys(named) if framework_type(d) in can or framework_type(d) in OUT_OF_TREE_BASES]
    kinds = list(dict.fromkeys(framework_type(d) for d in runs))
    if not runs:
        raise Refusal(f"only_for={named!r} names no device this call can instantiate: it runs nowhere; fix it by hand")
    member = None
    if len(kinds) == 1:
        device = runs[0]
        member = next((c for c in state.config.classifications if c == device.upper() or c == kinds[0].upper()), None)
        if member is None and "ACCELERATOR" not in state.config.classifications:
            raise Refusal(
                f"only_for{given.source} instantiates only {device!r} here, which is not a configured classification: "
                "add it to `classifications`"
            )
    # One device that is no configured member (a PrivateUse1 backend's):
    # ACCELERATOR with except_for the others, as for several.
    if member is not None:
        return _only_for_one(state, m, index, given, device, member, runs)
    if "ACCELERATOR" not in state.config.classifications:
        raise Refusal("ACCELERATOR is not a configured classification")
    return _except_for(state, m, index, given, complement(named, allow_mps, allow_xpu), can)


def _only_for_given(state: ModuleEdits, m: Migration, facts: ModuleFacts) -> _OnlyFor:
    """The class's one instantiation and the devices its only_for names;
    Refusal when there is not one, or it names them otherwise than by a
    literal (or a module constant holding one)."""
    calls = [(at, call) for at, stmt in enumerate(state.body) if (call := instantiation_call(stmt, m.class_name))]
    found = [i for i in facts.instantiations if i.class_name == m.class_name]
    if len(calls) != 1 or len(found) != 1:
        raise Refusal(
            f"{m.class_name} is instantiated {len(found)} times, {len(calls)} of them at module level: "
            "one instantiation can be migrated, choose by hand"
        )
    at, call = calls[0]
    keywords = [a.keyword.value for a in call.args if a.keyword is not None]
    if "except_for" in keywords or "only_for" not in keywords:
        raise Refusal("only_for is not given by keyword, or except_for is given too: migrate by hand")
    position = keywords.index("only_for") + sum(a.keyword is None for a in call.args)
    arg = call.args[position]
    value: cst.BaseExpression = arg.value
    source = ""
    if isinstance(value, cst.Name):
        source = f" (`{value.value}`)"
        try:
            value = module_constant(state.body, value.value)
        except Refusal as refusal:
            raise Refusal(f"only_for{source} is not a literal: {refusal.reason}") from None
    named = literal_strings(value)
    if not named:
        raise Refusal("only_for is computed: choose ACCELERATOR (with except_for) or one device by hand")
    quote = '"'
    first_string = (
        value
        if isinstance(value, cst.SimpleString)
        else next((e.value for e in getattr(value, "elements", ()) if isinstance(e.value, cst.SimpleString)), None)
    )
    if isinstance(first_string, cst.SimpleString) and first_string.quote in ("'", "'''"):
        quote = "'"
    return _OnlyFor(at, call, position, arg, value, source, named, quote)


def _only_for_one(
    state: ModuleEdits, m: Migration, index: int, given: _OnlyFor, device: str, member: str, runs: list[str]
) -> Done:
    """ "only-for-one": only_for= the one device the call can instantiate, declared its member."""
    at, call, position, arg, quote = given.at, given.call, given.position, given.arg, given.quote
    new_arg = arg.with_changes(value=cst.SimpleString(f"{quote}{device}{quote}"))
    state.body[at] = _with_call(
        state.body[at], call.with_changes(args=[new_arg if i == position else a for i, a in enumerate(call.args)])
    )
    state.declare[index] = member
    dropped = [d for d in given.named if d not in runs]
    return Done(
        "only-for-one",
        m.class_name,
        m.line,
        member,
        f"only_for={device!r}" + (f" ({', '.join(dropped)} cannot be instantiated by this call)" if dropped else ""),
        instantiated_names(m.class_name, [device]),
    )


def _except_for(
    state: ModuleEdits, m: Migration, index: int, given: _OnlyFor, excluded: tuple[str, ...], can: tuple[str, ...]
) -> Done:
    """ "only-for-except": ACCELERATOR, the only_for replaced by `except_for`
    the types it left out (or dropped, when it left out none)."""
    at, call, position, arg, quote = given.at, given.call, given.position, given.arg, given.quote
    if excluded:
        items = ", ".join(f"{quote}{d}{quote}" for d in excluded) + ("," if len(excluded) == 1 else "")
        new_arg = arg.with_changes(keyword=cst.Name("except_for"), value=cst.parse_expression(f"({items})"))
        args = [new_arg if i == position else a for i, a in enumerate(call.args)]
    else:
        args = [a for i, a in enumerate(call.args) if i != position]
        if args:
            args[-1] = args[-1].with_changes(
                comma=call.args[-1].comma if position != len(call.args) - 1 else cst.MaybeSentinel.DEFAULT
            )
    state.body[at] = _with_call(state.body[at], call.with_changes(args=args))
    state.declare[index] = "ACCELERATOR"
    runs_on = [d for d in can if d not in excluded]
    return Done(
        "only-for-except",
        m.class_name,
        m.line,
        "ACCELERATOR",
        f"only_for={tuple(given.named)!r} -> " + (f"except_for={excluded!r}" if excluded else "every device"),
        instantiated_names(m.class_name, runs_on),
    )


def _with_call(stmt: cst.BaseStatement, call: cst.Call) -> cst.BaseStatement:
    assert isinstance(stmt, cst.SimpleStatementLine)
    expr = stmt.body[0]
    assert isinstance(expr, cst.Expr)
    return stmt.with_changes(body=[expr.with_changes(value=call)])
