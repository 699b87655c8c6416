"""Class-level migrations of `hwlint fix --unsafe`, with libcst.

hwlint.fix.plan says which classes to try (hwlint.fix.plan.Migration);
this module decides on the tree whether each migration applies, makes it,
and says why when it does not:

- `only_for` several devices -> `except_for` the complement (ACCELERATOR),
  or, when only one of the devices named can be instantiated there, that
  device's classification with `only_for=` that device;
- tests take `device`, the class is never instantiated -> instantiated
  (ACCELERATOR: a test uses `device`, or a device-type decorator says the
  tests are device tests), the parameter dropped (GENERIC: no test uses
  it and nothing in the class points at a device), or the device every
  `device=` default names (`def test_x(self, device="xpu")` runs on XPU);
- in ACCELERATOR classes, `@onlyCUDA`-style decorators on a test whose
  body names no device -> `@onlyAccelerator`, and a test without `device`
  whose body names no device -> `device` added.

Which device types the framework knows is PyTorch's
torch/testing/_internal/common_device_type.py (2.14):
`get_device_type_test_bases()` always has CPU, CUDA when present and the
PrivateUse1 backend when one is registered (`"npu"`, `"openreg"`: their
`only_for`/`except_for` names are mapped to `"privateuse1"`), HPU when
present; MPS only with `allow_mps=True`, XPU only with `allow_xpu=True`;
`include_lazy` adds Lazy after the filter, and `TORCH_TEST_DEVICES` adds
out-of-tree bases (XLA). The complement of an `only_for` is taken over the
types that call can instantiate: cpu, cuda, hpu, privateuse1, mps with
allow_mps, xpu with allow_xpu. On every machine the class then runs where
it ran before; an out-of-tree base added by TORCH_TEST_DEVICES now gets
the tests too, which is the point of `except_for`.
"""

from __future__ import annotations

import re
from typing import Callable, Mapping, NamedTuple, Sequence

import libcst as cst

from hwlint.core.config import Config
from hwlint.core.diagnostics import NotFixable, Rewrite
from hwlint.facts import DEFAULT_ACCELERATORS, ClassFacts, ModuleFacts, devices
from hwlint.fix.edits import _declaration, _dotted, declare, ensure_import
from hwlint.fix.plan import REPLACEABLE, ClassMove, Migration, SiteRewrite, not_replaceable
from hwlint.fix.rewrite import dotted_expr, parse_module, rewrite_source, verify_rewrites
from hwlint.rules.device_decorator import DeviceDecorator, is_device_specific
from hwlint.rules.device_param import DeviceParam

DEVICE_TYPE_MODULE = "torch.testing._internal.common_device_type"
INSTANTIATE = "instantiate_device_type_tests"
ONLY_ACCELERATOR = "onlyAccelerator"

# The device types instantiate_device_type_tests instantiates whatever its
# flags (when the machine has them), in the framework's order, and those a
# flag opts in.
ALWAYS = devices.INSTANTIATED_BY_DEFAULT
OPT_IN = devices.OPT_IN
_ORDER = devices.FRAMEWORK_ORDER
# Types of common_device_type that are not PrivateUse1 backends; any other
# name in only_for is a PrivateUse1 backend's (filter_desired_device_types
# maps it to "privateuse1"), but for the out-of-tree bases, which no call's
# complement lists.
_IN_TREE = devices.FRAMEWORK_DEVICES
_OUT_OF_TREE = devices.OUT_OF_TREE_BASES
# Decorators of the device-type framework: a test wearing one is a device test.
_DEVICE_TEST_DECORATORS = (
    "dtypes",
    "ops",
    "modules",
    "deviceCountAtLeast",
    "precisionOverride",
    "largeTensorTest",
    "skipMeta",
    "onlyAccelerator",
    "expectedFailureMeta",
)

# What each kind of migration done is called in the summary.
KINDS = {
    "only-for-except": "only_for several devices -> except_for the complement (ACCELERATOR)",
    "only-for-one": "only_for -> the one device it can instantiate",
    "instantiate": "tests take `device` -> instantiate_device_type_tests (ACCELERATOR)",
    "drop-device": "unused `device` parameter dropped (GENERIC)",
    "default-device": "every `device=` default names one device -> that device, instantiated only_for it",
    "only-accelerator": "@only<Device> -> @onlyAccelerator",
    "add-device": "`device` parameter added",
    "generalize": "one-device class -> instantiated ACCELERATOR class (tests take `device`, uses rewritten)",
    "device-class": "one-device class that cannot be made device-generic -> instantiated for its device "
    "(tests take `device`, only_for)",
    "move-tests": "one-device test of an ACCELERATOR class -> a class of that device (a subclass; the class "
    "itself when all its tests are; @onlyNativeDeviceTypes: ACCELERATOR with except_for)",
}

# The device a test's decorator keeps it to; "native" for
# @onlyNativeDeviceTypes, which skips the device types that are not
# PyTorch's own (NATIVE_DEVICES in common_utils).
_MOVES_TO = {**devices.ONLY_DECORATORS, "onlyNativeDeviceTypes": "native"}
NATIVE = "native"
# Lazy is added after the filter (include_lazy), so except_for cannot drop it.
NOT_NATIVE = devices.NOT_NATIVE


class MigrateError(Exception):
    """The file cannot be migrated at all; it is left as it is."""


class Done(NamedTuple):
    """One migration made: `kind` is a key of KINDS; `line` is the class's
    (or the test's) in the file as read; `collected` the per-device class
    names the runtime collects from an instantiated class."""

    kind: str
    class_name: str
    line: int
    member: str | None
    detail: str
    collected: tuple[str, ...] = ()
    method: str = ""
    to_class: str = ""  # "move-tests": the class the test is now in

    def to_dict(self, path: str) -> dict[str, object]:
        return {
            "path": path,
            "line": self.line,
            "class_name": self.class_name,
            "method": self.method or None,
            "kind": self.kind,
            "classification": self.member,
            "detail": self.detail,
            "collected_as": list(self.collected),
            "to_class": self.to_class or None,
        }


class Refused(NamedTuple):
    """A migration (or, for "accelerator-tests", one test of it) not made."""

    migration: Migration
    reason: str
    line: int = 0  # the test's, for one test; else the class's
    code: str = ""  # the rule the test stays reported by (HWC102, HWC103)


class Outcome(NamedTuple):
    fixed: bytes
    done: tuple[Done, ...]
    refused: tuple[Refused, ...]
    moves: tuple[ClassMove, ...] = ()


# -- finding things in the tree ---------------------------------------------


def _classes(body: Sequence[cst.BaseStatement]) -> list[tuple[cst.ClassDef, int | None]]:
    """Module-level classes in source order, as facts lists them (inside
    if/try/with/for/while too), each with its index in `body` when it is a
    statement of the module itself, else None (inside a block)."""
    found: list[tuple[cst.ClassDef, int | None]] = []

    def walk(stmts: Sequence[cst.BaseStatement], top: bool) -> None:
        for index, stmt in enumerate(stmts):
            if isinstance(stmt, cst.ClassDef):
                found.append((stmt, index if top else None))
                continue
            for suite in _suites(stmt):
                if isinstance(suite, cst.IndentedBlock):
                    walk(suite.body, False)

    walk(body, True)
    return found


def _suites(stmt: cst.BaseStatement) -> list[cst.BaseSuite]:
    if isinstance(stmt, cst.If):
        out = [stmt.body]
        orelse = stmt.orelse
        if isinstance(orelse, cst.If):
            out.extend(_suites(orelse))
        elif isinstance(orelse, cst.Else):
            out.append(orelse.body)
        return out
    if isinstance(stmt, (cst.Try, cst.TryStar)):
        return [
            stmt.body,
            *(h.body for h in stmt.handlers),
            *([stmt.orelse.body] if stmt.orelse else []),
            *([stmt.finalbody.body] if stmt.finalbody else []),
        ]
    if isinstance(stmt, (cst.For, cst.While)):
        return [stmt.body, *([stmt.orelse.body] if stmt.orelse else [])]
    if isinstance(stmt, cst.With):
        return [stmt.body]
    return []


def _find(body: Sequence[cst.BaseStatement], name: str, occurrence: int) -> int | str:
    """The index in `body` of the `occurrence`-th class `name`, or why not."""
    named = [index for cls, index in _classes(body) if cls.name.value == name]
    if occurrence >= len(named):
        return f"class {name} not found where expected"
    index = named[occurrence]
    if index is None:
        return f"{name} is defined inside a block (if/try/with): migrate it by hand"
    return index


def _call_of(stmt: cst.BaseStatement) -> cst.Call | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr):
        value = stmt.body[0].value
        if isinstance(value, cst.Call):
            return value
    return None


def _instantiation(stmt: cst.BaseStatement, name: str | None = None) -> cst.Call | None:
    """The `instantiate_device_type_tests(name, ...)` call `stmt` is, if it is one."""
    call = _call_of(stmt)
    if call is None or _dotted(call.func).rsplit(".", 1)[-1] != INSTANTIATE or not call.args:
        return None
    first = call.args[0].value
    if name is not None and not (isinstance(first, cst.Name) and first.value == name):
        return None
    return call


def _is_main_guard(stmt: cst.BaseStatement) -> bool:
    if not isinstance(stmt, cst.If) or not isinstance(stmt.test, cst.Comparison):
        return False
    return _dotted(stmt.test.left) == "__name__"


def _strings(node: cst.BaseExpression) -> tuple[str, ...] | None:
    """The strings a literal `"cuda"`, `("cpu", "cuda")` or `["cuda"]` names."""
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return (value,) if isinstance(value, str) else None
    if isinstance(node, (cst.Tuple, cst.List)):
        out = []
        for element in node.elements:
            if not isinstance(element, cst.Element) or not isinstance(element.value, cst.SimpleString):
                return None
            value = element.value.evaluated_value
            if not isinstance(value, str):
                return None
            out.append(value)
        return tuple(out)
    return None


def _module_constant(body: Sequence[cst.BaseStatement], name: str) -> cst.BaseExpression | str:
    """The value of a name the module assigns once, at its top level, to a
    literal; or why it is not one."""
    values: list[cst.BaseExpression] = []
    nested = False

    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign) and any(
                    isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets
                ):
                    values.append(small.value)
                elif isinstance(small, (cst.AugAssign, cst.AnnAssign)) and _dotted(small.target) == name:
                    nested = True
        elif _suites(stmt):
            code = cst.Module(body=[]).code_for_node(stmt)
            if re.search(rf"(?<![\w.]){re.escape(name)}\s*(=[^=]|\+=|:)", code):
                nested = True
    if nested or len(values) != 1:
        return f"`{name}` is computed (assigned {'under a condition' if nested else f'{len(values)} times'})"
    return values[0]


# -- which devices -------------------------------------------------------


def _normal(device: str, extend: Sequence[str]) -> str:
    """The device type a name in only_for stands for in the framework."""
    base = device.partition(":")[0].lower()
    if base in _IN_TREE or base in _OUT_OF_TREE:
        return base
    return "privateuse1"  # a PrivateUse1 backend's name ("npu", "openreg", or one of `extend`)


def _opt_in(device: str) -> str:
    """The arguments instantiate_device_type_tests needs to make `device`'s
    classes at all (`, allow_xpu=True`), or ""."""
    return f", {OPT_IN[device]}=True" if device in OPT_IN else ""


def instantiable(allow_mps: bool, allow_xpu: bool) -> tuple[str, ...]:
    """The device types an instantiate_device_type_tests call with these
    flags can instantiate (where the machine has them)."""
    opted = {"mps": allow_mps, "xpu": allow_xpu}
    return tuple(d for d in _ORDER if d in ALWAYS or opted.get(d, False))


def complement(named: Sequence[str], allow_mps: bool, allow_xpu: bool, extend: Sequence[str] = ()) -> tuple[str, ...]:
    """`except_for` for a call with `only_for=named`: the device types it
    could instantiate that `named` does not name."""
    kinds = {_normal(d, extend) for d in named}
    return tuple(d for d in instantiable(allow_mps, allow_xpu) if d not in kinds)


def _flag(call: cst.Call, name: str) -> bool:
    return any(
        a.keyword is not None and a.keyword.value == name and isinstance(a.value, cst.Name) and a.value.value == "True"
        for a in call.args
    )


def _collected(name: str, devices: Sequence[str]) -> tuple[str, ...]:
    return tuple(name + d.upper() for d in devices)


def _clash(cls: cst.ClassDef, devices: Sequence[str], extend: Sequence[str]) -> str | None:
    """Why instantiating `cls` for `devices` would break its import, or None:
    the framework names each test `<test>_<device>`, and a test already
    called so (`test_x` beside `test_x_cuda`) makes instantiation raise
    "Redefinition of test" — the runtime would collect none of the module's
    tests."""
    names = {fn.name.value for _, fn in _tests(cls)}
    for name in sorted(names):
        for device in (*devices, *extend):
            if f"{name}_{device}" in names:
                return (
                    f"instantiated, {name} would be named {name}_{device} on {device}, which another test "
                    "already is: rename one, then migrate"
                )
    return None


# -- text evidence -------------------------------------------------------


def device_words(config: Config) -> re.Pattern[str]:
    """A device, backend or vendor library named in code: `"cuda"`,
    `torch.cuda`, `TEST_CUDA`, `dtypesIfCUDA`, `TestSDPACudaOnly`, `"nccl"`,
    `cudnn`... (a lower-case name stands alone: `dumps` names no MPS)."""
    names = dict.fromkeys(
        (
            *DEFAULT_ACCELERATORS.devices,
            *config.extend_devices,
            "privateuse1",
            "nccl",
            "xccl",
            "hccl",
            "cudnn",
            "rocm",
            "hip",
            "cublas",
            "mkldnn",
            "onednn",
            "triton",
        )
    )
    parts = []
    for name in names:
        parts.append(re.escape(name.upper()))
        parts.append(rf"(?<![a-z]){re.escape(name[0])}(?i:{re.escape(name[1:])})(?![a-z])")
        parts.append(rf"(?<![a-z]){re.escape(name[0].upper())}{re.escape(name[1:])}(?![a-z])")
    return re.compile("|".join(parts))


# -- the migrations ------------------------------------------------------


class _State:
    def __init__(self, module: cst.Module, config: Config) -> None:
        self.module = module
        self.config = config
        self.body: list[cst.BaseStatement] = list(module.body)
        self.declare: dict[int, str] = {}  # index in body -> member
        self.instantiate: list[tuple[int, str, str]] = []  # (index of the class, its name, more arguments)
        self.imports: set[str] = set()


def migrate_source(
    data: bytes, migrations: Sequence[Migration], config: Config, extract: Callable[[bytes], ModuleFacts]
) -> Outcome:
    """The module with `migrations` made where the tree allows them; the
    others refused with the reason. MigrateError when libcst cannot
    parse it. `extract` gives a version's facts (the tests' migrations
    read them after the class-level ones)."""
    done: list[Done] = []
    refused: list[Refused] = []
    accelerator: list[Migration] = [m for m in migrations if m.kind == "accelerator-tests"]
    seen: dict[bytes, ModuleFacts] = {}

    def facts_of(version: bytes) -> ModuleFacts:  # each version's facts once
        if version not in seen:
            seen[version] = extract(version)
        return seen[version]

    original = data
    tried: set[Migration] = set()
    for m in migrations:
        if m.kind == "device-param":
            # Tests whose `device` defaults to one accelerator are that
            # device's; generalized if they can be, else classified so.
            default = _one_default(data, m, _bindings(facts_of(data)))
            if default is None:
                continue
            made = _generalize(data, m._replace(member=default.upper()), config, facts_of)
            if isinstance(made, str):
                continue
            tried.add(m)
        elif m.kind == "generalize":
            made = _generalize(data, m, config, facts_of)
            if isinstance(made, str):
                # The one-device classification hwlint.fix.apply wrote stays,
                # as a class instantiated for that device when it can be.
                refused.append(Refused(m, made))
                if m.member not in config.classifications:
                    continue  # not configured: the class stays unclassified, with why
                as_device = _device_class(data, m, config, facts_of)
                if isinstance(as_device, str):
                    continue
                data, instantiated = as_device
                done.append(instantiated)
                continue
        else:
            continue
        data, generalized = made
        done.append(generalized)
        accelerator.append(m._replace(kind="accelerator-tests"))
    module = parse_module(data, MigrateError)
    state = _State(module, config)
    facts = facts_of(data)
    for m in migrations:
        if m.kind in ("accelerator-tests", "generalize") or m in tried:
            continue
        where = _find(state.body, m.class_name, m.occurrence)
        if isinstance(where, str):
            refused.append(Refused(m, where))
            continue
        handler = _only_for if m.kind == "only-for" else _migrate_device_param if m.kind == "device-param" else None
        if handler is None:
            refused.append(Refused(m, f"no migration of kind {m.kind}"))
            continue
        result = handler(state, m, where, facts)
        if isinstance(result, str):
            refused.append(Refused(m, result))
            continue
        done.append(result)
        if result.member == "ACCELERATOR":
            accelerator.append(m._replace(kind="accelerator-tests"))
    fixed = data
    if state.declare or state.instantiate:
        module = _write_class_level(state)
        fixed = module.bytes
        facts = facts_of(fixed)
    moves: list[ClassMove] = []
    if accelerator:
        # The tree as written, and the facts of its bytes: their lines match.
        module, tests_done, tests_refused = _accelerator_tests(module, accelerator, config, facts)
        done.extend(tests_done)
        refused.extend(tests_refused)
        moved: dict[tuple[str, str], list[Done]] = {}
        for d in tests_done:
            if d.to_class:
                moved.setdefault((d.class_name, d.to_class), []).append(d)
        for (old, new), ds in moved.items():
            member = ds[0].member or ""
            # The types the tests still run on: the device, or those an @onlyOn named (their classes).
            devices: tuple[str, ...] = (
                (member.lower(),) if member != "ACCELERATOR" else tuple(c[len(new) :].lower() for c in ds[0].collected)
            )
            moves.append(ClassMove(old, new, tuple(d.method for d in ds), devices))
        if tests_done:
            fixed = module.bytes
    return Outcome(fixed if done else original, tuple(done), tuple(refused), tuple(moves))


def _write_class_level(state: _State) -> cst.Module:
    body = state.body
    module = state.module.with_changes(body=body)
    enum_name = state.config.enum
    if state.declare:
        module, enum_name = ensure_import(module, state.config.import_from, state.config.enum)
    instantiate = INSTANTIATE
    if state.instantiate:
        module, instantiate = ensure_import(module, DEVICE_TYPE_MODULE, INSTANTIATE)
    # Imports may add a statement: indices move by the same amount.
    shift = len(module.body) - len(body)
    body = list(module.body)
    for index, member in state.declare.items():
        cls = body[index + shift]
        assert isinstance(cls, cst.ClassDef)
        body[index + shift] = declare(cls, _declaration(state.config.attribute, enum_name, member))
    # Last first: an insertion moves what follows it.
    for index, name, more in sorted(state.instantiate, reverse=True):
        at, grouped = _instantiation_place(body, index + shift)
        newline = module.default_newline
        line = cst.parse_statement(
            f"{instantiate}({name}, globals(){more}){newline}", config=cst.PartialParserConfig(default_newline=newline)
        )
        blank = cst.EmptyLine(indent=False)
        line = line.with_changes(leading_lines=[] if grouped else [blank, blank])
        body.insert(at, line)
    return module.with_changes(body=body)


def _instantiation_place(body: Sequence[cst.BaseStatement], index: int) -> tuple[int, bool]:
    """Where the instantiation of the class at `index` goes: after the
    last instantiate_device_type_tests call after it (grouped with them),
    else before `if __name__ == "__main__":`, else at the end."""
    last = None
    for at in range(index + 1, len(body)):
        if _instantiation(body[at]) is not None:
            last = at
        if _is_main_guard(body[at]):
            return (last + 1, True) if last is not None else (at, False)
    return (last + 1, True) if last is not None else (len(body), False)


def _only_for(state: _State, m: Migration, index: int, facts: ModuleFacts) -> Done | str:
    calls = [(at, call) for at, stmt in enumerate(state.body) if (call := _instantiation(stmt, m.class_name))]
    found = [i for i in facts.instantiations if i.class_name == m.class_name]
    if len(calls) != 1 or len(found) != 1:
        return (
            f"{m.class_name} is instantiated {len(found)} times, {len(calls)} of them at module level: "
            "one instantiation can be migrated, choose by hand"
        )
    at, call = calls[0]
    keywords = [a.keyword.value for a in call.args if a.keyword is not None]
    if "except_for" in keywords or "only_for" not in keywords:
        return "only_for is not given by keyword, or except_for is given too: migrate by hand"
    position = keywords.index("only_for") + sum(a.keyword is None for a in call.args)
    arg = call.args[position]
    value: cst.BaseExpression = arg.value
    source = ""
    if isinstance(value, cst.Name):
        source = f" (`{value.value}`)"
        constant = _module_constant(state.body, value.value)
        if isinstance(constant, str):
            return f"only_for{source} is not a literal: {constant}"
        value = constant
    named = _strings(value)
    if not named:
        return "only_for is computed: choose ACCELERATOR (with except_for) or one device by hand"
    allow_mps, allow_xpu = _flag(call, "allow_mps"), _flag(call, "allow_xpu")
    can = instantiable(allow_mps, allow_xpu)
    extend = state.config.extend_devices
    runs = [d for d in dict.fromkeys(named) if _normal(d, extend) in can or _normal(d, extend) in _OUT_OF_TREE]
    kinds = list(dict.fromkeys(_normal(d, extend) for d in runs))
    quote = '"'
    first_string = (
        value
        if isinstance(value, cst.SimpleString)
        else next((e.value for e in getattr(value, "elements", ()) if isinstance(e.value, cst.SimpleString)), None)
    )
    if isinstance(first_string, cst.SimpleString) and first_string.quote in ("'", "'''"):
        quote = "'"
    if not runs:
        return f"only_for={named!r} names no device this call can instantiate: it runs nowhere; fix it by hand"
    member = None
    if len(kinds) == 1:
        device = runs[0]
        member = next((c for c in state.config.classifications if c == device.upper() or c == kinds[0].upper()), None)
        if member is None and "ACCELERATOR" not in state.config.classifications:
            return (
                f"only_for{source} instantiates only {device!r} here, which is not a configured classification: "
                "add it to `classifications`"
            )
    # One device that is no configured member (a PrivateUse1 backend's):
    # ACCELERATOR with except_for the others, as for several.
    if member is not None:
        new_arg = arg.with_changes(value=cst.SimpleString(f"{quote}{device}{quote}"))
        state.body[at] = _with_call(
            state.body[at], call.with_changes(args=[new_arg if i == position else a for i, a in enumerate(call.args)])
        )
        state.declare[index] = member
        dropped = [d for d in named if d not in runs]
        return Done(
            "only-for-one",
            m.class_name,
            m.line,
            member,
            f"only_for={device!r}"
            + (f" ({', '.join(dropped)} cannot be instantiated by this call)" if dropped else ""),
            _collected(m.class_name, [device]),
        )
    if "ACCELERATOR" not in state.config.classifications:
        return "ACCELERATOR is not a configured classification"
    excluded = complement(named, allow_mps, allow_xpu, extend)
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
        f"only_for={tuple(named)!r} -> " + (f"except_for={excluded!r}" if excluded else "every device"),
        _collected(m.class_name, runs_on),
    )


def _with_call(stmt: cst.BaseStatement, call: cst.Call) -> cst.BaseStatement:
    assert isinstance(stmt, cst.SimpleStatementLine)
    expr = stmt.body[0]
    assert isinstance(expr, cst.Expr)
    return stmt.with_changes(body=[expr.with_changes(value=call)])


def _tests(cls: cst.ClassDef) -> list[tuple[int, cst.FunctionDef]]:
    """The test methods written in the class body (index in the body)."""
    if not isinstance(cls.body, cst.IndentedBlock):
        return []
    return [
        (i, s)
        for i, s in enumerate(cls.body.body)
        if isinstance(s, cst.FunctionDef) and s.name.value.startswith("test")
    ]


def _device_param(fn: cst.FunctionDef) -> cst.Param | None:
    params = fn.params
    for p in (*params.posonly_params, *params.params, *params.kwonly_params):
        if p.name.value in ("device", "devices"):
            return p
    return None


def _parametrizes(fn: cst.FunctionDef, name: str) -> bool:
    """Whether a `@parametrize("name, ...", ...)`-style decorator of `fn`
    gives it the argument `name`."""
    for decorator in fn.decorators:
        call = decorator.decorator
        if not (isinstance(call, cst.Call) and _decorator_name(decorator).startswith("parametrize") and call.args):
            continue
        first = call.args[0].value
        if isinstance(first, cst.SimpleString):
            value = first.evaluated_value
            names = value.decode("latin-1") if isinstance(value, bytes) else value
            if name in (n.strip() for n in names.split(",")):
                return True
    return False


def _default_device(node: cst.BaseExpression | None, bound: Mapping[str, str]) -> str | None:
    """The device a default names: a literal (`"xpu"`, `"cuda:0"`,
    `torch.device("xpu")`), or a module-level name `bound` to one
    (ModuleFacts.device_bindings: `device=dpcpp_device`)."""
    if isinstance(node, cst.Name):
        return bound.get(node.value)
    if isinstance(node, cst.Call) and _dotted(node.func) == "torch.device" and node.args:
        node = node.args[0].value
    if isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str):
        return node.evaluated_value.partition(":")[0]
    return None


class _Uses(cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        self.name = name
        self.found = False

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.found = True


def _uses(fn: cst.FunctionDef, name: str) -> bool:
    visitor = _Uses(name)
    fn.body.visit(visitor)
    return visitor.found


def _class_facts(facts: ModuleFacts, name: str, occurrence: int) -> ClassFacts | None:
    named = [c for c in facts.classes if c.name == name]
    return named[occurrence] if occurrence < len(named) else None


def _migrate_device_param(state: _State, m: Migration, index: int, facts: ModuleFacts) -> Done | str:
    cls = state.body[index]
    assert isinstance(cls, cst.ClassDef)
    info = _class_facts(facts, m.class_name, m.occurrence)
    if info is None:
        return f"class {m.class_name} not found in the facts"
    if any(_dotted_base(b) == m.class_name for c in facts.classes for b in c.bases):
        return (
            f"another class of the module subclasses {m.class_name}: instantiating it would remove it "
            "from the module first; migrate by hand"
        )
    if any(m.class_name in d.args or d.target == m.class_name for d in facts.dynamic):
        return f"{m.class_name} is passed to a function at module level (line {next(d.line for d in facts.dynamic if m.class_name in d.args or d.target == m.class_name)}): migrate by hand"
    tests = _tests(cls)
    taking = [(i, fn, p) for i, fn in tests if (p := _device_param(fn)) is not None]
    if not taking:
        return f"no test written in {m.class_name}'s body takes `device` (inherited?): migrate by hand"
    if any(p.name.value == "devices" for _, _, p in taking):
        return "a test takes `devices` (several devices): migrate by hand"
    parametrized = next((fn for _, fn, p in taking if _parametrizes(fn, p.name.value)), None)
    if parametrized is not None:
        # `@parametrize("device", [...])` gives the test its device itself:
        # instantiating the class would ask the device framework for one
        # more, and the runtime would collect none of its tests.
        return (
            f"{parametrized.name.value} gets `device` from @parametrize, not from the device framework: migrate by hand"
        )
    bound = _bindings(facts)
    defaults = {fn.name.value: _default_device(p.default, bound) for _, fn, p in taking if p.default is not None}
    if defaults:
        kinds = set(defaults.values())
        if None in kinds or len(kinds) != 1 or len(defaults) != len(taking):
            return "the tests' `device` defaults differ or are computed: choose the classification by hand"
        (device,) = kinds
        assert device is not None
        others = _other_devices(info, device)
        if others:
            return f"the tests default to {device!r} but the class also uses {others}: classify it by hand"
        member = next((c for c in state.config.classifications if c == device.upper()), None)
        if member is None:
            return f"every `device=` default is {device!r}, which is not a configured classification: add it to `classifications`"
        if device == "cpu":
            return "every `device=` default is 'cpu': a CPU class is not instantiated for CPU by this migration"
        # A device class is instantiated only_for its device (HWC101/HWC111,
        # TEST_LINTER's device-class rules): the framework then passes
        # `device`, and the defaults go.
        given = _given_device(cls, device, drop_defaults=True, bound=bound)
        if isinstance(given, str):
            return given
        clash = _clash(cls, (device,), state.config.extend_devices)
        if clash is not None:
            return clash
        new_body, _ = given
        state.body[index] = cls.with_changes(body=cls.body.with_changes(body=new_body))
        state.declare[index] = member
        flag = _opt_in(device)
        state.instantiate.append((index, m.class_name, f', only_for="{device}"{flag}'))
        return Done(
            "default-device",
            m.class_name,
            m.line,
            member,
            f'every test\'s `device` defaults to {device!r}: instantiated only_for="{device}"{flag}',
            _collected(m.class_name, (_normal(device, state.config.extend_devices),)),
        )
    used = [fn.name.value for _, fn, _ in taking if _uses(fn, "device")]
    decorated = [
        fn.name.value
        for _, fn in tests
        if any(
            _decorator_name(d) in _DEVICE_TEST_DECORATORS or is_device_specific(_decorator_name(d))
            for d in fn.decorators
        )
    ]
    if used or decorated:
        if "ACCELERATOR" not in state.config.classifications:
            return "ACCELERATOR is not a configured classification"
        clash = _clash(cls, instantiable(False, False), state.config.extend_devices)
        if clash is not None:
            return clash
        state.declare[index] = "ACCELERATOR"
        state.instantiate.append((index, m.class_name, ""))
        why = f"{used[0]} uses `device`" if used else f"{decorated[0]} has a device-type decorator"
        return Done(
            "instantiate",
            m.class_name,
            m.line,
            "ACCELERATOR",
            f"instantiated: {why}",
            _collected(m.class_name, instantiable(False, False)),
        )
    uses = [s for s in (*info.probes, *info.devices, *info.requires, *info.distributed)]
    if uses:
        return (
            f"no test uses its `device`, but the class uses an accelerator ({uses[0].text}, line {uses[0].line}): "
            "instantiate it (ACCELERATOR) or classify it by hand"
        )
    if "GENERIC" not in state.config.classifications:
        return "GENERIC is not a configured classification"
    body = list(cls.body.body) if isinstance(cls.body, cst.IndentedBlock) else []
    for i, fn, param in taking:
        body[i] = fn.with_changes(params=_without_param(fn.params, param))
    new_cls = cls.with_changes(body=cls.body.with_changes(body=body))
    state.body[index] = new_cls
    state.declare[index] = "GENERIC"
    return Done(
        "drop-device",
        m.class_name,
        m.line,
        "GENERIC",
        f"no test uses `device` ({len(taking)} test{'s' if len(taking) != 1 else ''}), no accelerator use in the class",
    )


def _dotted_base(dotted: str) -> str:
    return dotted.rsplit(".", 1)[-1]


def _other_devices(info: ClassFacts, device: str) -> str:
    from hwlint.rules.infer import _probe_device

    for site in (*info.probes, *info.devices):
        found = _probe_device(site.text)
        if found is not None and found != device.upper():
            return f"{site.text} (line {site.line})"
    return ""


def _decorator_name(d: cst.Decorator) -> str:
    expr = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
    return _dotted(expr).rsplit(".", 1)[-1]


def _without_param(params: cst.Parameters, param: cst.Param) -> cst.Parameters:
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


def _with_device(params: cst.Parameters) -> cst.Parameters | None:
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


# -- a one-device class made device-generic ----------------------------


def _generalize(
    data: bytes, m: Migration, config: Config, facts_of: Callable[[bytes], ModuleFacts]
) -> tuple[bytes, Done] | str:
    """A class bound to one device (`m.member`) as an instantiated
    ACCELERATOR class: its tests take `device` (a default naming the
    device goes), its hard-coded devices get HWC201's rewrites
    (hwlint.fix.rewrite), its declaration says ACCELERATOR and it is
    passed to instantiate_device_type_tests (with `allow_xpu=True` or
    `allow_mps=True` for those devices, so that it still runs where it
    ran; never only_for). Refused, with why, when a use has no
    device-generic equivalent or the class still names a device after the
    rewrites."""
    device = m.member.lower()
    if device == "cpu" or "ACCELERATOR" not in config.classifications:
        return "a CPU class stays CPU" if device == "cpu" else "ACCELERATOR is not a configured classification"
    facts = facts_of(data)
    info = _to_instantiate(facts, m)
    if isinstance(info, str):
        return info
    if info.decorators:
        return f"{m.class_name} has class decorators ({info.decorators[0]}): generalize by hand"
    words = device_words(config)
    # What the facts already tell, before libcst parses the file: a use
    # with no device-generic equivalent, a line that names a device and has
    # no rewrite (a test's `def` line aside: its default goes, its name stays).
    early = _site_rewrites(info, facts, config)
    if isinstance(early, str):
        return early
    rewritten = {s.line for s in early}
    defs = {t.line for t in info.methods}
    lines = data.decode("utf-8", "replace").splitlines()
    for n in range(info.body_line or info.line + 1, min(info.end_line, len(lines)) + 1):
        if n in rewritten or n in defs or lines[n - 1].lstrip().startswith(("#", config.attribute)):
            continue
        found = words.search(lines[n - 1])
        if found is not None:
            return f"{m.class_name} names {found.group(0)!r} (line {n}), which no rewrite changes: it is a test of that device"
    # (a) every test takes `device`.
    module = parse_module(data, MigrateError)
    body = list(module.body)
    where = _find(body, m.class_name, m.occurrence)
    if isinstance(where, str):
        return where
    cls = body[where]
    assert isinstance(cls, cst.ClassDef)
    if cls.decorators:
        return f"{m.class_name} has class decorators ({_decorator_name(cls.decorators[0])}): generalize by hand"
    given = _given_device(cls, device, drop_defaults=True, bound=_bindings(facts))
    if isinstance(given, str):
        return given
    new_body, added = given
    body[where] = cls.with_changes(body=cls.body.with_changes(body=new_body))
    step_a = module.with_changes(body=body).bytes
    facts_a = facts_of(step_a)
    info_a = _class_facts(facts_a, m.class_name, m.occurrence)
    assert info_a is not None
    # (b) the hard-coded devices rewritten, each with its device-generic equivalent.
    sites = _site_rewrites(info_a, facts_a, config)
    if isinstance(sites, str):
        return sites
    step_b = step_a
    if sites:
        outcome = rewrite_source(step_a, sites)
        if outcome.skipped:
            site, why = outcome.skipped[0]
            return f"line {site.line}: {why}"
        step_b = outcome.fixed
        verify_rewrites(facts_a, facts_of(step_b), outcome.done)
    # (c) nothing in the class names a device any more, nor a module-level
    # name it uses that does; then the declaration and the instantiation.
    module = parse_module(step_b, MigrateError)
    body = list(module.body)
    cls = body[where]
    assert isinstance(cls, cst.ClassDef)
    named = _names_a_device(cls, words, config.attribute)
    if named:
        return f"after the rewrites, {m.class_name} still names {named}: it is a test of that device"
    bound = _device_constants(step_b, facts_of(step_b).accelerator_lines)
    used = sorted(name for name in bound if _uses_in(cls, name))
    if used:
        return f"{m.class_name} uses {used[0]}, which the module binds to a device"
    facts_b = facts_of(step_b)
    info_b = _class_facts(facts_b, m.class_name, m.occurrence)
    assert info_b is not None
    reached = facts_b.bindings_reached(info_b)
    if reached:
        # Through a module-level function or name: no rewrite of the class changes it.
        return (
            f"{m.class_name} reaches {reached[0].name}, which the module binds to {reached[0].device!r} "
            f"(line {reached[0].line}): it is a test of that device"
        )
    replaced = _redeclare(cls, config.attribute, "ACCELERATOR")
    if replaced is not None:
        body[where] = replaced
    state = _State(module.with_changes(body=body), config)
    if replaced is None:
        state.declare[where] = "ACCELERATOR"
    flag = _opt_in(device)
    runs = instantiable(device == "mps", device == "xpu")
    clash = _clash(cls, runs, config.extend_devices)
    if clash is not None:
        return clash
    state.instantiate.append((where, m.class_name, flag))
    fixed = _write_class_level(state).bytes
    detail = (
        f"{m.member} class made device-generic: {added} test{'s' if added != 1 else ''} given `device`, "
        f"{len(sites)} hard-coded device{'s' if len(sites) != 1 else ''} rewritten, instantiated{flag}"
    )
    return fixed, Done("generalize", m.class_name, m.line, "ACCELERATOR", detail, _collected(m.class_name, runs))


def _device_class(
    data: bytes, m: Migration, config: Config, facts_of: Callable[[bytes], ModuleFacts]
) -> tuple[bytes, Done] | str:
    """A class bound to one device that cannot be made device-generic, as
    a class of that device the framework instantiates: its tests take
    `device` (their bodies still name the device, which a class of it may),
    and it is passed to instantiate_device_type_tests with `only_for=` the
    device (and `allow_xpu=True`/`allow_mps=True`). It then runs, renamed
    `TestFooXPU`, where that device is, as the classification says; the
    declaration hwlint.fix.apply wrote stays."""
    device = m.member.lower()
    if device == "cpu":
        return "a CPU class is not instantiated for CPU by this migration"
    found = _to_instantiate(facts_of(data), m)
    if isinstance(found, str):
        return found
    module = parse_module(data, MigrateError)
    body = list(module.body)
    where = _find(body, m.class_name, m.occurrence)
    if isinstance(where, str):
        return where
    cls = body[where]
    assert isinstance(cls, cst.ClassDef)
    if cls.decorators:
        return f"{m.class_name} has class decorators ({_decorator_name(cls.decorators[0])}): instantiate it by hand"
    if not isinstance(cls.body, cst.IndentedBlock):
        return f"{m.class_name} has a one-line body"
    given = _given_device(cls, device, drop_defaults=False)
    if isinstance(given, str):
        return given
    new_body, added = given
    kind = _normal(device, config.extend_devices)
    clash = _clash(cls, (device,), config.extend_devices)
    if clash is not None:
        return clash
    body[where] = cls.with_changes(body=cls.body.with_changes(body=new_body))
    state = _State(module.with_changes(body=body), config)
    flag = _opt_in(device)
    state.instantiate.append((where, m.class_name, f', only_for="{device}"{flag}'))
    fixed = _write_class_level(state).bytes
    detail = (
        f"{m.member} class instantiated for {device}: {added} test{'s' if added != 1 else ''} given `device`, "
        f'only_for="{device}"{flag}'
    )
    return fixed, Done("device-class", m.class_name, m.line, m.member, detail, _collected(m.class_name, (kind,)))


def _to_instantiate(facts: ModuleFacts, m: Migration) -> ClassFacts | str:
    """The facts of the class `m` would pass to instantiate_device_type_tests,
    or why it cannot be: instantiating removes it from its module, so
    nothing else there may use it."""
    info = _class_facts(facts, m.class_name, m.occurrence)
    if info is None:
        return f"class {m.class_name} not found in the facts"
    if any(i.class_name == m.class_name for i in facts.instantiations):
        return f"{m.class_name} is already instantiated"
    if any(_dotted_base(b) == m.class_name for c in facts.classes for b in c.bases):
        return f"another class of the module subclasses {m.class_name}"
    if any(m.class_name in d.args or d.target == m.class_name for d in facts.dynamic):
        return f"{m.class_name} is passed to a function at module level"
    return info


def _given_device(
    cls: cst.ClassDef, device: str, *, drop_defaults: bool, bound: Mapping[str, str] | None = None
) -> tuple[list[cst.BaseStatement], int] | str:
    """The class's body with `device` after `self` in each test that lacks
    it, and how many got it; with `drop_defaults` (made device-generic),
    a default naming `device` goes too. Or why a test cannot take one."""
    new_body: list[cst.BaseStatement] = list(cls.body.body) if isinstance(cls.body, cst.IndentedBlock) else []
    added = 0
    for i, fn in _tests(cls):
        param = _device_param(fn)
        static = next(
            (_decorator_name(d) for d in fn.decorators if _decorator_name(d) in ("staticmethod", "classmethod")), None
        )
        if param is None:
            params = _with_device(fn.params)
            if params is None or static:
                return f"{fn.name.value} has no `self` to put `device` after"
            new_body[i] = fn.with_changes(params=params)
            added += 1
        elif static:
            return f"{fn.name.value} is a {static}: it gets no `device`"
        elif param.name.value == "devices":
            return f"{fn.name.value} takes `devices` (several devices)"
        elif drop_defaults and param.default is not None:
            if _default_device(param.default, bound or {}) != device:
                return f"{fn.name.value}'s `device` defaults to something other than {device!r}"
            new_body[i] = fn.with_changes(params=_without_default(fn.params, param))
    return new_body, added


def _bindings(facts: ModuleFacts) -> dict[str, str]:
    """Module-level name -> the device it is bound to."""
    return {b.name: b.device for b in facts.device_bindings}


def _one_default(data: bytes, m: Migration, bound: Mapping[str, str]) -> str | None:
    """The accelerator every `device=` default of the class's tests names, if one does."""
    body = parse_module(data, MigrateError).body
    where = _find(body, m.class_name, m.occurrence)
    if isinstance(where, str):
        return None
    cls = body[where]
    assert isinstance(cls, cst.ClassDef)
    params = [p for _, fn in _tests(cls) if (p := _device_param(fn)) is not None]
    found = {_default_device(p.default, bound) if p.default is not None else None for p in params}
    if len(found) != 1:
        return None
    (device,) = found
    return device if device not in (None, "cpu") else None


def _site_rewrites(info: ClassFacts, facts: ModuleFacts, config: Config) -> list[SiteRewrite] | str:
    """HWC201's rewrites of the class's hard-coded devices, or why one has none."""
    from hwlint.facts.resolve import ClassInfo
    from hwlint.fix.plan import _equivalent
    from hwlint.rules.hardcoded_device import device_fix

    modules = DEFAULT_ACCELERATORS.extended(config.extend_accelerator_modules).device_modules
    judged = ClassInfo(info, True, "ACCELERATOR", True, None)
    imports_torch = any(i.asname == "torch" for i in facts.imports)
    out = []
    for site in sorted((*info.devices, *info.distributed), key=lambda s: (s.line, s.column)):
        if site.kind in ("backend-feature", "decorator"):
            return f"line {site.line}: {site.text} belongs to one backend: generalize by hand"
        fix = device_fix(site, judged, modules, config.oldest_torch)
        if not isinstance(fix, Rewrite):
            reason = fix.reason if isinstance(fix, NotFixable) else "no rewrite"
            return f"line {site.line}: {site.text} has no device-generic equivalent ({reason})"
        equivalent = _equivalent(fix, facts.imports)
        if isinstance(equivalent, str):
            return f"line {site.line}: {equivalent}"
        if fix.target != "device" and not imports_torch:
            return f"line {site.line}: {fix.target} needs `import torch`"
        out.append(SiteRewrite(site.line, site.column, fix.kind, fix.name, info.name, True, equivalent, imports_torch))
    return out


def _names_a_device(cls: cst.ClassDef, words: re.Pattern[str], attribute: str) -> str:
    """The first device the class's body names (a test's name aside), or ""."""
    if not isinstance(cls.body, cst.IndentedBlock):
        return ""
    empty = cst.Module(body=[])
    for stmt in cls.body.body:
        if isinstance(stmt, cst.FunctionDef):
            parts = [empty.code_for_node(d) for d in stmt.decorators]
            parts.append(empty.code_for_node(stmt.params))
            parts.append(empty.code_for_node(stmt.body))
            text = "\n".join(parts)
        else:
            text = empty.code_for_node(stmt)
            if text.lstrip().startswith(attribute):
                continue
        found = words.search(text)
        if found is not None:
            return repr(found.group(0))
    return ""


def _device_constants(data: bytes, lines: Sequence[int]) -> set[str]:
    """Names the module binds at its top level on a line that mentions an
    accelerator (`device = torch.device("xpu")`, `TEST_XPU = ...`)."""
    text = data.decode("utf-8", "replace").splitlines()
    names = set()
    for n in lines:
        if 0 < n <= len(text):
            found = re.match(r"([A-Za-z_]\w*)\s*(?::[^=]*)?=[^=]", text[n - 1])
            if found:
                names.add(found.group(1))
    return names


def _uses_in(node: cst.CSTNode, name: str) -> bool:
    visitor = _Uses(name)
    node.visit(visitor)
    return visitor.found


def _redeclare(cls: cst.ClassDef, attribute: str, member: str) -> cst.ClassDef | None:
    """`cls` with its body declaration naming `member` instead."""
    if not isinstance(cls.body, cst.IndentedBlock):
        return None
    body = list(cls.body.body)
    for i, stmt in enumerate(body):
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            continue
        small = stmt.body[0]
        if (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and _dotted(small.targets[0].target) == attribute
            and isinstance(small.value, cst.Attribute)
        ):
            body[i] = stmt.with_changes(
                body=[small.with_changes(value=small.value.with_changes(attr=cst.Name(member)))]
            )
            return cls.with_changes(body=cls.body.with_changes(body=body))
    return None


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


# -- the tests of ACCELERATOR classes -------------------------------------


def _accelerator_tests(
    module: cst.Module, migrations: Sequence[Migration], config: Config, facts: ModuleFacts
) -> tuple[cst.Module, list[Done], list[Refused]]:
    """`module` with the tests of the ACCELERATOR classes migrated; `facts`
    are those of its bytes (a test's lines are its facts' line on: libcst's
    positions would cost a resolve of the whole module)."""
    words = device_words(config)
    allowed = frozenset(config.allowed_only_decorators)
    body: list[cst.BaseStatement] = list(module.body)
    done: list[Done] = []
    refused: list[Refused] = []
    needs_import = False
    seen: set[tuple[str, int]] = set()
    for m in migrations:
        if (m.class_name, m.occurrence) in seen:
            continue
        seen.add((m.class_name, m.occurrence))
        where = _find(body, m.class_name, m.occurrence)
        if isinstance(where, str):
            refused.append(Refused(m, where))
            continue
        cls = body[where]
        assert isinstance(cls, cst.ClassDef)
        info = _class_facts(facts, m.class_name, m.occurrence)
        if info is None:
            refused.append(Refused(m, f"class {m.class_name} not found in the facts"))
            continue
        if not any(i.class_name == m.class_name for i in facts.instantiations):
            refused.append(
                Refused(m, f"{m.class_name} is not passed to instantiate_device_type_tests: its tests get no `device`")
            )
            continue
        sites = [s.line for s in (*info.probes, *info.devices, *info.distributed)]
        lines: dict[str, int] = {}
        for method in info.methods:
            lines.setdefault(method.name, method.line)
        new_body = list(cls.body.body) if isinstance(cls.body, cst.IndentedBlock) else []
        # Tests that stay bound to a device: where they go (hwlint.fix.migrate._move).
        moving: dict[str | tuple[str, ...], list[tuple[int, cst.FunctionDef, int, list[str]]]] = {}
        for i, fn in _tests(cls):
            specific = [d for d in fn.decorators if is_device_specific(_decorator_name(d), allowed)]
            lacks = _device_param(fn) is None
            if not specific and not lacks:
                continue
            line = lines.get(fn.name.value)
            if line is None:
                refused.append(Refused(m, f"{fn.name.value} is not among the facts' tests of {m.class_name}"))
                continue
            # The test as it would read without its @only* decorators: does
            # it still name a device, or use one (the facts' sites)?
            text = cst.Module(
                body=[fn.with_changes(decorators=[d for d in fn.decorators if d not in specific], leading_lines=[])]
            ).code
            named = words.search(text)
            end = line + cst.Module(body=[fn.with_changes(decorators=[], leading_lines=[])]).code.count("\n")
            used = next((s for s in sites if line <= s < end), None)
            generic = named is None and used is None
            why = f"names {named.group(0)!r}" if named is not None else f"uses a device at line {used}"
            new_fn = fn
            kept = False  # a device decorator stays: `device` is then not all that is missing
            if specific:
                names = [_decorator_name(d) for d in specific]
                bad = [n for n in names if n not in REPLACEABLE]
                kept = bool(bad) or not generic
                target = _move_target(specific) if kept else None
                if target is not None and not lacks:
                    moving.setdefault(target, []).append((i, fn, line, names))
                    continue
                if bad:
                    refused.append(Refused(m, not_replaceable(fn.name.value, bad[0]), line, DeviceDecorator.code))
                elif not generic:
                    refused.append(
                        Refused(
                            m,
                            f"{fn.name.value} is @{names[0]} and {why}: a test of that device; "
                            "move it to a class of that device",
                            line,
                            DeviceDecorator.code,
                        )
                    )
                else:
                    has = any(_decorator_name(d) == ONLY_ACCELERATOR for d in fn.decorators)
                    decorators: list[cst.Decorator] = []
                    for d in fn.decorators:
                        if d is specific[0] and not has:
                            decorators.append(d.with_changes(decorator=cst.Name(ONLY_ACCELERATOR)))
                        elif d not in specific:
                            decorators.append(d)
                    new_fn = new_fn.with_changes(decorators=decorators)
                    needs_import = needs_import or not has
                    done.append(
                        Done(
                            "only-accelerator",
                            m.class_name,
                            line,
                            None,
                            f"{fn.name.value}: @{' @'.join(names)} -> @{ONLY_ACCELERATOR}",
                            method=fn.name.value,
                        )
                    )
            if lacks and not kept:
                params = _with_device(fn.params)
                if params is None or any(_decorator_name(d) in ("staticmethod", "classmethod") for d in fn.decorators):
                    refused.append(
                        Refused(m, f"{fn.name.value} has no `self` to put `device` after", line, DeviceParam.code)
                    )
                elif not generic:
                    refused.append(
                        Refused(
                            m,
                            f"{fn.name.value} takes no device and {why}: make it device-generic "
                            "or move it to a class of that device",
                            line,
                            DeviceParam.code,
                        )
                    )
                else:
                    new_fn = new_fn.with_changes(params=params)
                    done.append(
                        Done(
                            "add-device",
                            m.class_name,
                            line,
                            None,
                            f"{fn.name.value}: `device` added",
                            method=fn.name.value,
                        )
                    )
            new_body[i] = new_fn
        if isinstance(cls.body, cst.IndentedBlock):
            body[where] = cls.with_changes(body=cls.body.with_changes(body=new_body))
        placed = 0  # classes already moved out of this one: the next goes after them
        staying = {fn.name.value for _, fn in _tests(cls)} - {
            fn.name.value for ts in moving.values() for _, fn, _, _ in ts
        }
        for target, tests in moving.items():
            made = _move(module, body, where, placed, m, target, tests, config, whole=not staying and len(moving) == 1)
            if isinstance(made, str):
                refused.extend(
                    Refused(m, f"{fn.name.value} is @{names[0]}; not moved: {made}", line, DeviceDecorator.code)
                    for _, fn, line, names in tests
                )
                continue
            moved, stay = made
            refused.extend(
                Refused(m, f"{fn.name.value} is @{names[0]}; not moved: {why}", line, DeviceDecorator.code)
                for fn, line, names, why in stay
            )
            done.extend(moved)
            placed += bool(moved) and moved[0].to_class != moved[0].class_name
    if not done:
        return module, done, refused
    module = module.with_changes(body=body)
    if needs_import:
        module, local = ensure_import(module, DEVICE_TYPE_MODULE, ONLY_ACCELERATOR)
        if local != ONLY_ACCELERATOR:
            module = module.visit(_Rename(ONLY_ACCELERATOR, local))
    if any(d.kind == "move-tests" and d.member == "ACCELERATOR" for d in done):
        # The decorators an ACCELERATOR subclass's except_for stands for.
        for name in ("onlyNativeDeviceTypes", "onlyOn"):
            module = _drop_unused_import(module, name)
    return module, done, refused


def _drop_unused_import(module: cst.Module, name: str) -> cst.Module:
    """`module` without `name` in its `from ... import` lists when nothing
    else names it any more (the moves dropped its last uses): flake8's
    F401 would report it. An import of it alone, or under another name,
    stays."""
    if len(re.findall(rf"\b{re.escape(name)}\b", module.code)) != 1:
        return module

    class Drop(cst.CSTTransformer):
        def leave_ImportFrom(self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom) -> cst.ImportFrom:
            if isinstance(updated_node.names, cst.ImportStar) or len(updated_node.names) < 2:
                return updated_node
            names = list(updated_node.names)
            for at, alias in enumerate(names):
                if alias.asname is None and _dotted(alias.name) == name:
                    names.pop(at)
                    if at == len(names):  # it was last: the one now last keeps its comma (or none)
                        names[-1] = names[-1].with_changes(comma=alias.comma)
                    return updated_node.with_changes(names=names)
            return updated_node

    return module.visit(Drop())


def _move_target(specific: Sequence[cst.Decorator]) -> str | tuple[str, ...] | None:
    """The device a test's device decorators keep it to (`@onlyCPU` ->
    "cpu", `@onlyOn("cuda")` -> "cuda"), the devices `@onlyOn(["cuda",
    "xpu"])` names, NATIVE for @onlyNativeDeviceTypes alone, or None when
    they disagree or name none that a class can stand for."""
    targets: set[str | tuple[str, ...]] = set()
    for d in specific:
        name = _decorator_name(d)
        if name == "onlyOn":
            call = d.decorator
            named = (
                _strings(call.args[0].value)
                if isinstance(call, cst.Call) and len(call.args) == 1 and call.args[0].keyword is None
                else None
            )
            if not named:
                return None
            targets.add(named[0].lower() if len(named) == 1 else tuple(d.lower() for d in named))
        elif name in _MOVES_TO:
            targets.add(_MOVES_TO[name])
        else:
            return None
    if len(targets) == 2 and NATIVE in targets:
        targets.discard(NATIVE)  # @onlyCUDA @onlyNativeDeviceTypes: CUDA is native
    return next(iter(targets)) if len(targets) == 1 else None


def _several(target: tuple[str, ...], call: cst.Call, config: Config) -> tuple[str, ...] | str:
    """The device types a test of `@onlyOn(target)` ran on in a class
    instantiated by `call`: those it names that the call instantiates."""
    excepted = next((a for a in call.args if a.keyword is not None and a.keyword.value == "except_for"), None)
    named_out = _strings(excepted.value) if excepted is not None else ()
    if named_out is None:
        return "the class's except_for is computed"
    out = {_normal(d, config.extend_devices) for d in named_out}
    named = {_normal(d, config.extend_devices) for d in target}
    return tuple(
        d for d in instantiable(_flag(call, "allow_mps"), _flag(call, "allow_xpu")) if d in named and d not in out
    )


def _move(
    module: cst.Module,
    body: list[cst.BaseStatement],
    where: int,
    placed: int,
    m: Migration,
    target: str | tuple[str, ...],
    tests: Sequence[tuple[int, cst.FunctionDef, int, list[str]]],
    config: Config,
    whole: bool = False,
) -> tuple[list[Done], list[tuple[cst.FunctionDef, int, list[str], str]]] | str:
    """Move `tests` of the ACCELERATOR class at `body[where]` into a new
    subclass of it, defined right after it and instantiated right after
    it (after the `placed` classes moved out of it before): `class
    TestFooCPUOnly(TestFoo)` with `only_for="cpu"` for a device, `class TestFooNative(TestFoo)` with `except_for` the types
    that are not native for @onlyNativeDeviceTypes (which it loses). Being
    a subclass, it has the class's setUp, helpers and attributes; the
    class's own tests are not inherited at run time: instantiating a class
    deletes its tests from it; it wears the class's decorators too, so
    that what they do to tests they do to the moved ones. A test that
    cannot move stays, returned with why (hwlint.fix.migrate._stays). When `whole` (every test of the class
    goes), the class itself is reclassified and its instantiation changed
    instead: nothing is renamed. `body` is changed in place; the reason
    when the move cannot be made."""
    cls = body[where]
    assert isinstance(cls, cst.ClassDef) and isinstance(cls.body, cst.IndentedBlock)
    name = cls.name.value
    calls = [at for at, stmt in enumerate(body) if _instantiation(stmt, name) is not None]
    if len(calls) != 1:
        return f"{name} is not instantiated once at the module's top level"
    call = _instantiation(body[calls[0]], name)
    assert call is not None
    several: tuple[str, ...] = ()
    if isinstance(target, tuple):
        runs_on = _several(target, call, config)
        if isinstance(runs_on, str):
            return runs_on
        if not runs_on:
            return f"{name}'s instantiation makes none of {', '.join(target)}"
        if len(runs_on) == 1 and runs_on[0] != "privateuse1":
            target = runs_on[0]
        else:
            several = runs_on
    if several:
        member, suffix = "ACCELERATOR", "".join(d.upper() for d in several) + "Only"
    elif target == NATIVE:
        member, suffix = "ACCELERATOR", "Native"
    else:
        assert isinstance(target, str)
        member, suffix = target.upper(), f"{target.upper()}Only"
        if member not in config.classifications:
            return f"{member} is not a configured classification"
    if member not in config.classifications:
        return f"{member} is not a configured classification"
    new_name = name if whole else name + suffix
    code = module.code_for_node(module.with_changes(body=body))
    if not whole and re.search(rf"\b{re.escape(new_name)}\b", code):
        return f"the name {new_name} is taken"
    if len(call.args) < 2 or any(a.keyword is None for a in call.args[2:]):
        return f"{name}'s instantiate_device_type_tests call has more positional arguments than the scope"
    keywords = {a.keyword.value: a for a in call.args[2:] if a.keyword is not None}
    if "include_lazy" in keywords and target == NATIVE:
        return "include_lazy=True adds Lazy, which except_for cannot leave out"
    # A test that cannot move stays (and is refused); the others go.
    refused: list[tuple[cst.FunctionDef, int, list[str], str]] = []
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
    tests = going
    args = [cst.Arg(cst.Name(new_name)), call.args[1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
    if several:
        # Every type the call can instantiate but those the test ran on.
        flags = [keywords[k] for k in ("allow_mps", "allow_xpu") if k in keywords]
        excluded = tuple(
            d for d in instantiable(_flag(call, "allow_mps"), _flag(call, "allow_xpu")) if d not in several
        )
        more = [*flags, cst.Arg(_string_tuple(excluded), keyword=cst.Name("except_for"))]
        runs = f"except_for={excluded!r}"
    elif target == NATIVE:
        old = keywords.get("except_for")
        named = _strings(old.value) if old is not None else ()
        if named is None:
            return f"{name}'s except_for is computed"
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
    instantiation = cst.SimpleStatementLine([cst.Expr(call.with_changes(args=args))])
    enum_name = ensure_import(module, config.import_from, config.enum)[1]
    moved: list[cst.BaseStatement] = []
    ids = {id(fn) for _, fn, _, _ in tests}
    # An ACCELERATOR class's tests lose their device decorators: its except_for stands for them.
    native = (
        {
            id(fn): fn.with_changes(decorators=[d for d in fn.decorators if _decorator_name(d) not in names])
            for _, fn, _, names in tests
        }
        if member == "ACCELERATOR"
        else {}
    )
    for _, fn, _, _ in tests:
        moved.append(native.get(id(fn), fn))
    if whole:
        stmts = [native.get(id(s), s) for s in cls.body.body]
        redeclared = _redeclare(cls.with_changes(body=cls.body.with_changes(body=stmts)), config.attribute, member)
        if redeclared is None:
            return f"{name} declares its classification other than in its body"
        body[where] = redeclared
        stmt = body[calls[0]]
        assert isinstance(stmt, cst.SimpleStatementLine)
        body[calls[0]] = stmt.with_changes(body=[cst.Expr(call.with_changes(args=[call.args[0], *args[1:]]))])
        collected: tuple[str, ...] = tuple(name + d.upper() for d in several)
        if not several and member != "ACCELERATOR":
            collected = (name + member,)
        return [
            Done(
                "move-tests",
                name,
                line,
                member,
                f"{fn.name.value}: @{' @'.join(names)}, as every test of {name} -> {name} is {member} ({runs})",
                collected,
                method=fn.name.value,
                to_class=name,
            )
            for _, fn, line, names in tests
        ], refused
    blank = cst.EmptyLine(indent=False)
    new_cls = cst.ClassDef(
        name=cst.Name(new_name),
        bases=[cst.Arg(cst.Name(name))],
        leading_lines=[blank, blank],
        decorators=[d.with_changes(leading_lines=[]) for d in cls.decorators],
        body=cls.body.with_changes(body=[_declaration(config.attribute, enum_name, member), *moved]),
    )
    body[where] = cls.with_changes(body=cls.body.with_changes(body=[s for s in cls.body.body if id(s) not in ids]))
    # The instantiation first: it is after the class, and inserting the class moves it.
    body.insert(calls[0] + 1 + placed, instantiation)
    body.insert(where + 1 + placed, new_cls)
    collected = tuple(new_name + d.upper() for d in several)
    if not several and member != "ACCELERATOR":
        collected = (new_name + member,)
    return [
        Done(
            "move-tests",
            name,
            line,
            member,
            f"{fn.name.value}: @{' @'.join(names)} -> {new_name} ({member}, {runs})",
            collected,
            method=fn.name.value,
            to_class=new_name,
        )
        for _, fn, line, names in tests
    ], refused


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


class _Rename(cst.CSTTransformer):
    """`@onlyAccelerator` under the name the file imports it as."""

    def __init__(self, old: str, new: str) -> None:
        super().__init__()
        self.old, self.new = old, new

    def leave_Decorator(self, original_node: cst.Decorator, updated_node: cst.Decorator) -> cst.Decorator:
        if isinstance(updated_node.decorator, cst.Name) and updated_node.decorator.value == self.old:
            return updated_node.with_changes(decorator=dotted_expr(self.new))
        return updated_node
