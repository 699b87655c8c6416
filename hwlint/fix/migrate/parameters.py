"""A test's `device` parameter: what device its default names, the
parameter added after `self`, dropped, or its default dropped, and a
class's tests all given one."""

from __future__ import annotations

from typing import Callable, Mapping

import libcst as cst

from hwlint.fix.edits import dotted
from hwlint.fix.migrate.outcome import Refusal
from hwlint.fix.migrate.tree import decorator_name, device_parameter, test_methods


def default_device(node: cst.BaseExpression | None, bound: Mapping[str, str]) -> str | None:
    """The device a default names: a literal (`"xpu"`, `"cuda:0"`,
    `torch.device("xpu")`), or a module-level name `bound` to one
    (ModuleFacts.device_bindings: `device=dpcpp_device`)."""
    if isinstance(node, cst.Name):
        return bound.get(node.value)
    if isinstance(node, cst.Call) and dotted(node.func) == "torch.device" and node.args:
        node = node.args[0].value
    if isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str):
        return node.evaluated_value.partition(":")[0]
    return None


def without_param(params: cst.Parameters, param: cst.Param) -> cst.Parameters:
    """`params` without `param`; the comma before it goes when it was last."""
    for field in ("posonly_params", "params", "kwonly_params"):
        group = list(getattr(params, field))
        if param in group:
            at = group.index(param)
            group.pop(at)
            if at == len(group) and group:
                group[-1] = group[-1].with_changes(comma=param.comma)
            return params.with_changes(**{field: group})
    return params


def with_device(params: cst.Parameters) -> cst.Parameters | None:
    """`params` with `device` after the first positional one (`self`)."""
    group = list(params.params)
    if not group or params.posonly_params:
        return None
    first = group[0]
    after = (
        len(group) > 1
        or not isinstance(params.star_arg, cst.MaybeSentinel)
        or bool(params.kwonly_params)
        or params.star_kwarg is not None
    )
    sep = first.comma if isinstance(first.comma, cst.Comma) else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    group[0] = first.with_changes(comma=sep)
    group.insert(1, cst.Param(cst.Name("device"), comma=sep if after else first.comma))
    return params.with_changes(params=group)


# Decorators that fill a test's parameters in order, unnamed: the
# `parameterized` library's (`@parameterized.expand([...])`,
# `@parameterized([...])`) and absl's (`@parameterized.parameters(...)`,
# `@parameterized.named_parameters(...)`). `device` after `self` would take
# their first value.
FILLS_IN_ORDER = frozenset({"expand", "parameterized", "parameters", "named_parameters"})


def filled_in_order(fn: cst.FunctionDef) -> str:
    """The decorator of `fn` that fills its parameters in order, as written
    (`@parameterized.expand`); "" when none does."""
    return written_decorator(fn, lambda name: name in FILLS_IN_ORDER)


def written_decorator(fn: cst.FunctionDef, naming: Callable[[str], bool]) -> str:
    """The first decorator call of `fn` whose last name `naming` accepts, as
    written (`@parameterized.expand`); "" when none is."""
    for decorator in fn.decorators:
        if isinstance(decorator.decorator, cst.Call) and naming(decorator_name(decorator)):
            return f"@{dotted(decorator.decorator.func)}"
    return ""


def given_device(
    cls: cst.ClassDef, device: str, *, drop_defaults: bool, bound: Mapping[str, str] | None = None
) -> tuple[list[cst.BaseStatement], int]:
    """The class's body with `device` after `self` in each test that lacks
    it, and how many got it; with `drop_defaults` (made device-generic),
    a default naming `device` goes too. Refusal, with why, when a test
    cannot take one."""
    new_body: list[cst.BaseStatement] = list(cls.body.body) if isinstance(cls.body, cst.IndentedBlock) else []
    added = 0
    for i, fn in test_methods(cls):
        param = device_parameter(fn)
        static = next(
            (decorator_name(d) for d in fn.decorators if decorator_name(d) in ("staticmethod", "classmethod")), None
        )
        if param is None:
            filler = filled_in_order(fn)
            if filler:
                raise Refusal(f"{fn.name.value}'s parameters are filled in order by {filler}: migrate by hand")
            params = with_device(fn.params)
            if params is None or static:
                raise Refusal(f"{fn.name.value} has no `self` to put `device` after")
            new_body[i] = fn.with_changes(params=params)
            added += 1
        elif static:
            raise Refusal(f"{fn.name.value} is a {static}: it gets no `device`")
        elif param.name.value == "devices":
            raise Refusal(f"{fn.name.value} takes `devices` (several devices)")
        elif drop_defaults and param.default is not None:
            if default_device(param.default, bound or {}) != device:
                raise Refusal(f"{fn.name.value}'s `device` defaults to something other than {device!r}")
            new_body[i] = fn.with_changes(params=_without_default(fn.params, param))
    return new_body, added


def _without_default(params: cst.Parameters, param: cst.Param) -> cst.Parameters:
    """`params` with `param`'s default gone (`device="xpu"` -> `device`).
    A positional parameter without a default cannot follow one with a
    default (`self, dtype=torch.float, device=dpcpp_device`): it moves to
    right after `self` (the device framework passes `device` by name),
    each place keeping its comma."""
    bare = param.with_changes(default=None, equal=cst.MaybeSentinel.DEFAULT)
    group = list(params.params)
    if param in group and any(p.default is not None for p in group[: group.index(param)]):
        commas = [p.comma for p in group]
        group.remove(param)
        group.insert(1, bare)
        return params.with_changes(params=[p.with_changes(comma=comma) for p, comma in zip(group, commas)])
    return params.with_changes(
        **{
            field: [bare if p is param else p for p in getattr(params, field)]
            for field in ("posonly_params", "params", "kwonly_params")
        }
    )
