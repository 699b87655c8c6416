"""Whether a fixed module is what `fix` intended, read from its facts, not
its text: each class fixed declares exactly its intended member and nothing
else changed (`verify`), each migration did exactly what it says and no
other test changed (`verify_migrations`). A fix that fails these is not
written (FixError for the fixes, RewriteError for the migrations).
"""

from __future__ import annotations

from typing import Sequence

from hwlint.core.config import Config
from hwlint.facts import ModuleFacts, Value, extract_source
from hwlint.facts.collect import FactsOptions
from hwlint.facts.read import ReadError, decode
from hwlint.facts.resolve import canonical_member
from hwlint.fix.migrate.framework import ONLY_ACCELERATOR
from hwlint.fix.migrate.outcome import Done
from hwlint.fix.plan import REPLACEABLE, ClassFix
from hwlint.fix.result import FixError
from hwlint.fix.rewrite import RewriteError
from hwlint.rules.device_decorator import is_device_specific


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
    for old, new in zip(remaining, staying):
        d = by_class.get(new.name)
        if d is not None and d.member is not None:
            own = [canonical_member(x, config) for x in new.declarations if x.where == "body"]
            if own != [d.member]:
                raise RewriteError(f"{new.name} does not end up classified {d.member}")
        for was, now in zip(old.methods, new.methods):
            if (new.name, now.name) in retargeted:
                continue
            mine = {x.kind for x in tests if (x.class_name, x.method) == (new.name, now.name)}
            want_params, want_decorators = was.params, was.decorators
            if d is not None and d.kind == "drop-device":
                want_params = tuple(p for p in was.params if p != "device")
            if d is not None and d.kind in ("generalize", "device-class") and "device" not in was.params:
                want_params = ("device", *was.params)
            elif d is not None and d.kind == "generalize" and now.params[:1] == ("device",):
                # Its default gone, `device` moved ahead of the parameters
                # with defaults (hwlint.fix.migrate._without_default).
                want_params = ("device", *(p for p in was.params if p != "device"))
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
    for d in by_class.values():
        calls = [i for i in after.instantiations if i.class_name == d.class_name]
        if d.kind in ("instantiate", "generalize") and [(i.only_for, i.except_for) for i in calls] != [(None, None)]:
            raise RewriteError(f"{d.class_name} is not instantiated once for every device")
        if d.kind == "only-for-except" and (len(calls) != 1 or calls[0].only_for is not None):
            raise RewriteError(f"{d.class_name} still has only_for")
        device = (d.member or "").lower()
        if d.kind == "device-class" and [(i.only_for, i.except_for) for i in calls] != [((device,), None)]:
            raise RewriteError(f"{d.class_name} is not instantiated once for {device}")
        if d.kind == "only-for-one" and (len(calls) != 1 or calls[0].only_for is None or len(calls[0].only_for) != 1):
            raise RewriteError(f"{d.class_name} is not instantiated for one device")


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
        if [canonical_member(x, config) for x in cls.declarations if x.where == "body"] != [mine[0].member]:
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
