"""Whether a fixed module is what `fix` intended, read from its facts, not
its text: each class fixed declares exactly its intended member and nothing
else changed (`verify`), each rewritten site (HWC201) is gone and nothing
else changed (`verify_rewrites`), each migration did exactly what it says
and no other test changed (`verify_migrations`). A fix that fails these is
not written (FixError for the fixes, RewriteError for the rewrites and the
migrations).
"""

from __future__ import annotations

from typing import Iterable, Sequence

from hwlint.core.config import Config
from hwlint.facts import ClassFacts, Method, ModuleFacts, Site, Value, extract_source
from hwlint.facts.collect import FactsOptions
from hwlint.facts.read import ReadError, decode
from hwlint.facts.resolve import canonical_member
from hwlint.fix.migrate.framework import ONLY_ACCELERATOR
from hwlint.fix.migrate.outcome import Done
from hwlint.fix.plan import REPLACEABLE
from hwlint.fix.plan_records import ClassFix, SiteRewrite
from hwlint.fix.result import FixError
from hwlint.fix.rewrite import RewriteError
from hwlint.rules.device_decorator import is_device_specific
from hwlint.rules.torch_api import DISTRIBUTED, REQUIRES_BACKEND


def verify(path: str, fixed: bytes, fixes: Sequence[ClassFix], before: ModuleFacts, config: Config) -> None:
    """The fixed file parses, each class fixed by a new declaration (only
    those) now declares exactly its intended member, and each replaced
    string declaration (only those) is now the valid member intended."""
    text = decode(fixed)
    if isinstance(text, ReadError):
        raise FixError(f"the fixed file does not decode: {text.message}")
    after = extract_source(path, text, enum=config.enum, attribute=config.attribute)
    if after.error is not None:
        raise FixError(f"the fixed file does not parse: {after.error.message}")
    if [c.name for c in after.classes] != [c.name for c in before.classes]:
        raise FixError("the fixed file's classes differ from the original's")
    intended = {(f.class_name, f.occurrence): f.member for f in fixes if not f.replaces}
    # A replaced declaration is at the position the original's facts give
    # (a loop's is shared by the classes it assigns to).
    replaced = {(f.line, f.column): f for f in fixes if f.replaces}
    checked: set[tuple[int, int]] = set()
    seen: dict[str, int] = {}
    for old, new in zip(before.classes, after.classes):
        occurrence = seen.get(new.name, 0)
        seen[new.name] = occurrence + 1
        checked.update((d.line, d.column) for d in old.declarations)
        member = intended.get((new.name, occurrence))
        if member is None:
            # Lines move with the insertions: compare what is declared.
            if len(new.declarations) != len(old.declarations):
                raise FixError(f"the fix changed {new.name}, which it should not touch")
            for d, now in zip(old.declarations, new.declarations):
                fix = replaced.get((d.line, d.column))
                if fix is None:
                    if (now.value, now.where) != (d.value, d.where):
                        raise FixError(f"the fix changed {new.name}, which it should not touch")
                    continue
                if d.value != Value("string", fix.text):
                    raise FixError(f"the declaration of {new.name} at line {d.line} was not the string {fix.text!r}")
                if (now.value, now.where) != (Value("member", fix.name), d.where) or canonical_member(
                    now, config
                ) != fix.member:
                    raise FixError(
                        f"the declaration of {new.name} at line {d.line} does not end up {config.enum}.{fix.name}"
                    )
            continue
        own = [canonical_member(d, config) for d in new.declarations if d.where == "body"]
        if own != [member]:
            raise FixError(f"{new.name} does not end up classified {member}")
    unseen = [f for position, f in replaced.items() if position not in checked]
    if unseen:
        raise FixError(f"no declaration of {unseen[0].class_name} at line {unseen[0].line}")


def verify_migrations(before: ModuleFacts, after: ModuleFacts, done: Sequence[Done], config: Config) -> None:
    """The migrated file parses; it has the same classes with the same
    tests; each migrated class declares what the migration says, is
    instantiated as it says; each migrated test has what it says
    (`@onlyAccelerator`, `device`) and no other test changed. RewriteError
    otherwise."""
    if after.error is not None:
        raise RewriteError(f"the migrated file does not parse: {after.error.message}")
    # A class split: the checks below then hold its tests to the classes made.
    before = _split_shape(before, after, [d for d in done if d.kind == "split"], config)
    done = [d for d in done if d.kind != "split"]
    moved = [d for d in done if d.kind == "move-tests"]
    _verify_moves(before, after, moved, config)
    # Tests moved to a new class leave theirs; a class all of whose tests
    # went to one device keeps them (_verify_moves checked them).
    targets = {d.to_class for d in moved if d.to_class != d.class_name}
    gone = {(d.class_name, d.method) for d in moved if d.to_class != d.class_name}
    retargeted = {(d.class_name, d.method) for d in moved if d.to_class == d.class_name}
    remaining = [
        c._replace(methods=tuple(x for x in c.methods if (c.name, x.name) not in gone)) for c in before.classes
    ]
    staying = [c for c in after.classes if c.name not in targets]
    if [(c.name, [m.name for m in c.methods]) for c in remaining] != [
        (c.name, [m.name for m in c.methods]) for c in staying
    ]:
        raise RewriteError("the migration changed the file's classes or their tests")
    by_class = {d.class_name: d for d in done if not d.method}
    tests = [d for d in done if d.method and d.kind != "move-tests"]
    local = next((i.asname for i in after.imports if i.name == REQUIRES_BACKEND), REQUIRES_BACKEND)
    renamed = {name: local for name in DISTRIBUTED if not name.startswith('"')}
    for old, new in zip(remaining, staying):
        d = by_class.get(new.name)
        if d is not None and d.member is not None:
            own = _declared(new, config)
            if own != [d.member]:
                raise RewriteError(f"{new.name} does not end up classified {d.member}")
        for was, now in zip(old.methods, new.methods):
            if (new.name, now.name) in retargeted:
                continue
            if d is not None:
                # Its guards of the device rewritten (hwlint.fix.migrate.guards) before the rest.
                for test, before_names, after_names in d.guards:
                    if (test, before_names) == (was.name, was.decorators):
                        was = was._replace(decorators=after_names)
            mine = {x.kind for x in tests if (x.class_name, x.method) == (new.name, now.name)}
            want_params, want_decorators = was.params, was.decorators
            if d is not None and d.kind == "drop-device":
                want_params = tuple(p for p in was.params if p != "device")
            if (
                d is not None
                and d.kind in ("generalize", "device-class", "any-gpu", "device-tests", "default-device")
                and "device" not in was.params
            ):
                want_params = ("device", *was.params)
            elif d is not None and d.kind == "generalize" and now.params[:1] == ("device",):
                # Its default gone, `device` moved ahead of the parameters
                # with defaults (hwlint.fix.migrate._without_default).
                want_params = ("device", *(p for p in was.params if p != "device"))
            if d is not None and d.kind == "generalize":
                # Its backend decorators rewritten: @requires_accelerator_dist_backend(), as the file imports it.
                want_decorators = tuple(renamed.get(x, x) for x in was.decorators)
            if "add-device" in mine:
                want_params = ("device", *was.params)  # after `self`, which the facts leave out
            if "only-accelerator" in mine:
                # One decorator in place of the device ones: @onlyAccelerator,
                # under the name the file imports it as.
                kept = [x for x in was.decorators if x not in REPLACEABLE]
                added = list(now.decorators)
                for x in kept:
                    if x in added:
                        added.remove(x)
                if set(now.decorators) & REPLACEABLE or len(added) > 1 or (not added and ONLY_ACCELERATOR not in kept):
                    raise RewriteError(f"{new.name}.{now.name} is not @{ONLY_ACCELERATOR} alone")
                want_decorators = now.decorators
            if (now.params, now.decorators) != (want_params, want_decorators):
                raise RewriteError(f"the migration changed {new.name}.{now.name} other than intended")
    _verify_instantiations(after, by_class.values())


def _verify_instantiations(after: ModuleFacts, done: Iterable[Done]) -> None:
    """Each migrated class instantiated as its migration says; RewriteError otherwise."""
    for d in done:
        calls = [i for i in after.instantiations if i.class_name == d.class_name]
        if d.kind == "instantiate" and [(i.only_for, i.except_for) for i in calls] != [(None, None)]:
            raise RewriteError(f"{d.class_name} is not instantiated once for every device")
        # Made device-generic: every device, or every accelerator when its tests need one.
        if d.kind == "generalize" and [(i.only_for, i.except_for, i.allow_xpu) for i in calls] not in (
            [(None, None, True)],
            [(None, ("cpu",), True)],
        ):
            raise RewriteError(f"{d.class_name} is not instantiated once for every device")
        if d.kind == "any-gpu" and [(i.only_for, i.except_for, i.allow_xpu) for i in calls] != [(None, ("cpu",), True)]:
            raise RewriteError(f"{d.class_name} is not instantiated once for every accelerator")
        if d.kind == "only-for-except" and (len(calls) != 1 or calls[0].only_for is not None):
            raise RewriteError(f"{d.class_name} still has only_for")
        device = (d.member or "").lower()
        if d.kind == "device-class" and [(i.only_for, i.except_for) for i in calls] != [((device,), None)]:
            raise RewriteError(f"{d.class_name} is not instantiated once for {device}")
        if d.kind == "only-for-one" and (len(calls) != 1 or calls[0].only_for is None or len(calls[0].only_for) != 1):
            raise RewriteError(f"{d.class_name} is not instantiated for one device")


def _split_shape(before: ModuleFacts, after: ModuleFacts, splits: Sequence[Done], config: Config) -> ModuleFacts:
    """`before` as a split of its classes should leave it: each class split
    in place of its mixin (no test), its GENERIC class (the tests that went
    there, unchanged) and its ACCELERATOR class (the others, taking
    `device`). RewriteError when the classes made are not one each,
    declared and instantiated as the split says."""
    if not splits:
        return before
    made: dict[str, dict[str, str]] = {}
    for d in splits:
        made.setdefault(d.class_name, {})[d.member or ""] = d.to_class
    classes: list[ClassFacts] = []
    for old in before.classes:
        targets = made.get(old.name)
        if targets is None:
            classes.append(old)
            continue
        # The device-free tests' class: GENERIC, or CPU when they are the CPU's case (hwlint.fix.migrate.split_cpu).
        member = "CPU" if "CPU" in targets else "GENERIC"
        # The device tests' class: ACCELERATOR, or one device's when they stay its tests.
        one, accelerator = next((k, v) for k, v in targets.items() if k != member)
        generic = targets[member]
        found = {c.name: c for c in after.classes if c.name in (generic, accelerator)}
        if len(found) != 2 or any(c.name == old.name for c in after.classes):
            raise RewriteError(f"{old.name} is not split into one {generic} and one {accelerator}")
        _verify_made(after, found[generic], member, accelerator, config)
        _verify_one_device(after, found[accelerator], one, config)
        going = {x.name for x in found[generic].methods}
        mixin = [c for c in after.classes if c.name == f"_{old.name}Mixin"]
        shaped = [old._replace(name=c.name, methods=()) for c in mixin]
        free = tuple(x for x in old.methods if x.name in going)
        if member == "CPU":
            free = tuple(x._replace(params=("device", *x.params)) for x in free)
        shaped.append(old._replace(name=generic, methods=free))
        # The device tests take `device`; their guards of a device may be rewritten (hwlint.fix.migrate.guards).
        guards = {(t, a): b for d in splits if d.class_name == old.name for t, a, b in d.guards}
        device = tuple(
            (x if "device" in x.params else x._replace(params=("device", *x.params)))._replace(
                decorators=guards.get((x.name, x.decorators), x.decorators)
            )
            for x in old.methods
            if x.name not in going
        )
        shaped.append(old._replace(name=accelerator, methods=device))
        classes.extend(shaped)
    return before._replace(classes=tuple(classes))


def _verify_made(after: ModuleFacts, made: ClassFacts, member: str, accelerator: str, config: Config) -> None:
    """RewriteError unless the class of a split's device-free tests (`made`)
    is declared `member`, instantiated for the CPU alone if CPU and not at all
    if GENERIC, and the ACCELERATOR class is instantiated."""
    if _declared(made, config) != [member]:
        raise RewriteError(f"{made.name} does not end up classified {member}")
    calls = {i.class_name for i in after.instantiations}
    cpu = [i.only_for for i in after.instantiations if i.class_name == made.name]
    if (cpu != [("cpu",)] if member == "CPU" else made.name in calls) or accelerator not in calls:
        raise RewriteError(f"{accelerator} (and {made.name} for the CPU only, if CPU) is not instantiated")


def _declared(cls: ClassFacts, config: Config) -> list[str | None]:
    """The members the class declares in its own body (aliases resolved)."""
    return [canonical_member(x, config) for x in cls.declarations if x.where == "body"]


def _verify_one_device(after: ModuleFacts, made: ClassFacts, member: str, config: Config) -> None:
    """RewriteError unless the class of a split's device tests is declared
    `member` and, when that is one device's, instantiated for it alone."""
    if _declared(made, config) != [member]:
        raise RewriteError(f"{made.name} does not end up classified {member}")
    calls = [(i.only_for, i.except_for) for i in after.instantiations if i.class_name == made.name]
    if member != "ACCELERATOR" and calls != [((member.lower(),), None)]:
        raise RewriteError(f"{made.name} is not instantiated once for {member.lower()}")


def _verify_moves(before: ModuleFacts, after: ModuleFacts, moved: Sequence[Done], config: Config) -> None:
    """Each class tests were moved to is a new subclass of the class they
    left, holds exactly them (their parameters as they were, their
    decorators too but @onlyNativeDeviceTypes, which its except_for stands
    for), declares what the move says and is instantiated once, for its
    device (only_for) or, ACCELERATOR, without only_for."""
    if not moved:
        return
    old = {(c.name, x.name): x for c in before.classes for x in c.methods}
    for target in dict.fromkeys(d.to_class for d in moved):
        mine = [d for d in moved if d.to_class == target]
        found = [c for c in after.classes if c.name == target]
        whole = target == mine[0].class_name
        if len(found) != 1 or (not whole and any(c.name == target for c in before.classes)):
            raise RewriteError(f"{target} is not one {'' if whole else 'new '}class")
        (cls,) = found
        if whole and [x.name for x in cls.methods] != [
            x.name for c in before.classes if c.name == target for x in c.methods
        ]:
            raise RewriteError(f"the migration changed {target}'s tests")
        if not whole and (
            cls.bases != (mine[0].class_name,) or [x.name for x in cls.methods] != [d.method for d in mine]
        ):
            raise RewriteError(f"{target} is not a subclass of {mine[0].class_name} with the tests moved")
        if _declared(cls, config) != [mine[0].member]:
            raise RewriteError(f"{target} does not end up classified {mine[0].member}")
        calls = [i for i in after.instantiations if i.class_name == target]
        device = (mine[0].member or "").lower() if mine[0].member != "ACCELERATOR" else None
        if len(calls) != 1 or calls[0].only_for != ((device,) if device else None):
            raise RewriteError(f"{target} is not instantiated once for {device or 'the devices it names'}")
        now_by_name = {x.name: x for x in cls.methods}
        allowed = frozenset(config.allowed_only_decorators)
        for d in mine:
            was, now = old[(d.class_name, d.method)], now_by_name[d.method]
            # To an ACCELERATOR class, without the device decorators its except_for stands for.
            decorators = (
                was.decorators if device else tuple(x for x in was.decorators if not is_device_specific(x, allowed))
            )
            if (now.params, now.decorators) != (was.params, decorators):
                raise RewriteError(f"the move changed {target}.{now.name} other than intended")


def facts_of(path: str, data: bytes, config: Config) -> ModuleFacts:
    """The facts of a module's new bytes, as the check reads them; RewriteError
    when they do not decode."""
    text = decode(data)
    if isinstance(text, ReadError):
        raise RewriteError(f"the rewritten file does not decode: {text.message}")
    return extract_source(path, text, **FactsOptions.of(config)._asdict())


def verify_rewrites(before: ModuleFacts, after: ModuleFacts, done: Sequence[SiteRewrite]) -> None:
    """The rewritten module parses, has the same classes, methods and
    declarations, and its hard-coded devices are the original's minus the
    rewritten ones (rewrites change columns, never lines: sites compare by
    line and text); the only new accelerator uses are the rewritten calls'
    replacements. RewriteError otherwise."""
    if after.error is not None:
        raise RewriteError(f"the rewritten file does not parse: {after.error.message}")
    shape = [(c.name, _renamed(c, done), [(d.value, d.where) for d in c.declarations]) for c in before.classes]
    if shape != [(c.name, c.methods, [(d.value, d.where) for d in c.declarations]) for c in after.classes]:
        raise RewriteError("the rewrite changed the file's classes, methods or declarations")
    gone = {(s.line, s.column) for s in done}
    # A rewritten module call trades its probe (`torch.cuda.synchronize`)
    # for the replacement's (`torch.accelerator.synchronize`) on its line.
    calls = {(s.line, s.name) for s in done if s.kind == "module"}
    # A backend rewritten outside a test may ask torch.accelerator for the device.
    new_lines = {line for line, _ in calls} | {
        s.line for s in done if s.kind in ("backend", "fstring", "torch.device", "method")
    }
    for old, new in zip(before.classes, after.classes):
        for field in ("devices", "distributed"):
            was: tuple[Site, ...] = getattr(old, field)
            expected = sorted((s.line, s.text) for s in was if (s.line, s.column) not in gone)
            if sorted((s.line, s.text) for s in getattr(new, field)) != expected:
                raise RewriteError(f"the rewrite left {old.name}'s hard-coded devices other than intended")
        added = _minus([(p.line, _callee(p.text)) for p in new.probes], [(p.line, _callee(p.text)) for p in old.probes])
        unexpected = [p for p in added if p[0] not in new_lines or not p[1].startswith("torch.accelerator.")]
        removed = _minus(
            [(p.line, _callee(p.text)) for p in old.probes], [(p.line, _callee(p.text)) for p in new.probes]
        )
        # `.cuda()` on a torch expression is a use too (TEST_LINTER's rule):
        # rewritten to `.to(device)`, that use is gone from its line.
        # A probe is recorded at the line where its expression starts, which
        # for `torch.Tensor([...\n]).cuda()` is above the `.cuda()` site: each
        # removed use takes the nearest rewritten method of its name at or below it.
        methods = sorted((s.line, s.name) for s in done if s.kind == "method")

        # Called only within this iteration, so the loop variables it reads are the current ones.
        def explained(p: tuple[int, str]) -> bool:
            if p in calls:
                return True
            # A call chained on a rewritten one (`torch.cuda.current_stream().wait_stream(s)`)
            # is a probe through it: it goes with it.
            if any(p[0] == line and p[1].startswith(name + "(...).") for line, name in calls):
                return True
            site = next((m for m in methods if m[0] >= p[0] and p[1].endswith("." + m[1])), None)  # noqa: B023
            if site is None:
                return False
            methods.remove(site)  # noqa: B023
            return True

        if unexpected or not all(explained(p) for p in sorted(removed)):
            raise RewriteError(f"the rewrite changed {old.name}'s accelerator probes other than intended")


def _renamed(cls: ClassFacts, done: Sequence[SiteRewrite]) -> tuple[Method, ...]:
    """The class's test methods as they read once its backend decorators
    (`@requires_nccl()`) are rewritten: a decorator site sits between the
    previous method's line and its own."""
    sites = sorted(
        (s.line, s.name, s.equivalent.target)
        for s in done
        if s.kind == "decorator" and s.equivalent is not None and cls.line <= s.line <= cls.end_line
    )
    if not sites:
        return cls.methods
    methods = []
    previous = cls.line
    for method in cls.methods:
        names = {name: target for line, name, target in sites if previous <= line <= method.line}
        if names:
            method = method._replace(decorators=tuple(names.get(d, d) for d in method.decorators))
        methods.append(method)
        previous = method.line
    return tuple(methods)


def _callee(text: str) -> str:
    """A probe's callee: its text without the call's parentheses
    (`torch.cuda.synchronize()` and `torch.cuda.synchronize(...)` are
    `torch.cuda.synchronize`)."""
    for tail in ("(...)", "()"):
        if text.endswith(tail):
            return text[: -len(tail)]
    return text


def _minus(items: list[tuple[int, str]], other: list[tuple[int, str]]) -> list[tuple[int, str]]:
    rest = list(other)
    out = []
    for item in items:
        if item in rest:
            rest.remove(item)
        else:
            out.append(item)
    return out
