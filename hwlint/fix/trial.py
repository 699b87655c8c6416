"""Trying a classification before `fix` writes it: the real rules, run on
the module's facts with the declaration added.

A class that HWC001 reports is judged by no other rule: declaring it
ACCELERATOR can bring out what was hidden (tests decorated `@onlyCUDA`,
HWC103; tests without `device`, HWC102). A safe fix must never raise a
file's number of violations, nor turn a passing `hwlint check` into a
failing one, so `fix` asks here what a declaration would surface, with the
rules the configuration turns on, the way `check` would report it (noqa and
per-file-ignores applied), rather than predicting it by hand.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Mapping, NamedTuple

from hwlint.core.diagnostics import Diagnostic
from hwlint.engine.api import CheckResult, Judge, lint_variant, run_resolver
from hwlint.facts import ClassFacts, Declaration, ModuleFacts, Value
from hwlint.rules import BY_CODE, enabled_codes

# A diagnostic's identity across two lints of one module: adding a
# declaration moves no line in the facts, and may change messages.
_Key = tuple[str, int, int, "str | None"]


class Declare(NamedTuple):
    """One classification to try: on the `occurrence`-th module-level class
    named `class_name` (a new declaration), or in place of the string value
    of the declaration at (`line`, `column`) (HWC002)."""

    class_name: str
    occurrence: int
    member: str  # as written: the member or a configured alias
    line: int = 0
    column: int = 0
    replaces: bool = False


class Surfaced(NamedTuple):
    """What a classification would make the rules report that they do not now."""

    change: Declare
    diagnostics: tuple[Diagnostic, ...]

    @property
    def class_name(self) -> str:
        return self.change.class_name

    @property
    def member(self) -> str:
        return self.change.member

    def describe(self, module: ModuleFacts) -> str:
        """`ACCELERATOR, but 28 tests use @onlyCUDA (HWC103) and 5 take no device (HWC102)`."""
        by_code: dict[str, list[Diagnostic]] = {}
        for d in self.diagnostics:
            by_code.setdefault(d.code, []).append(d)
        # Each rule phrases its own findings (Rule.surfaced).
        parts = [BY_CODE[code].surfaced(found, self.member, module) for code, found in sorted(by_code.items())]
        text = f"{self.member}, but " + (", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0])
        others = sorted({d.class_name for d in self.diagnostics if d.class_name and d.class_name != self.class_name})
        if others:
            text += f" (in {', '.join(others)}, which inherit{'s' if len(others) == 1 else ''} it)"
        return text


def _key(d: Diagnostic) -> _Key:
    return (d.code, d.line, d.column, d.class_name)


def declared(facts: ModuleFacts, changes: Iterable[Declare]) -> ModuleFacts:
    """The module's facts as they will be once `changes` are written."""
    add: dict[tuple[str, int], str] = {}
    replace: dict[tuple[int, int], str] = {}
    for change in changes:
        if change.replaces:
            replace[(change.line, change.column)] = change.member
        else:
            add[(change.class_name, change.occurrence)] = change.member
    seen: dict[str, int] = {}
    classes: list[ClassFacts] = []
    for cls in facts.classes:
        occurrence = seen.get(cls.name, 0)
        seen[cls.name] = occurrence + 1
        declarations = tuple(
            d._replace(value=Value("member", replace[(d.line, d.column)])) if (d.line, d.column) in replace else d
            for d in cls.declarations
        )
        member = add.get((cls.name, occurrence))
        if member is not None:
            line = cls.body_line or cls.line + 1
            declarations += (Declaration(line, cls.column + 4, Value("member", member), "body"),)
        classes.append(cls._replace(declarations=declarations))
    return facts._replace(classes=tuple(classes))


class Trial:
    """Tries classifications on the modules of one check run."""

    def __init__(self, result: CheckResult) -> None:
        self.result = result
        config = result.config
        # What `hwlint check` judges, whatever the fix run selected.
        self.enabled = enabled_codes(tuple(config.select), tuple(config.ignore))
        self.judge = Judge(config)

    def lint(self, facts: ModuleFacts, changed: Mapping[str, ModuleFacts] | None = None) -> list[Diagnostic]:
        """What `hwlint check` would report of the module with `facts`, the
        modules in `changed` (path -> facts) as they would be."""
        if not changed:
            known = self.result.as_linted(facts, self.enabled)
            if known is not None:
                return known
        return lint_variant(self.result, facts, self.enabled, self.judge, changed)

    def subclasses_elsewhere(self, changed: Mapping[str, ModuleFacts]) -> dict[str, set[tuple[str, str]]]:
        """The run's other modules with a class whose base is a class of a
        `changed` module: path -> {(base's path, base's name)}. A
        classification declared there reaches them by inheritance."""
        resolver = run_resolver(self.result)
        if resolver is None or not changed:
            return {}
        found: dict[str, set[tuple[str, str]]] = {}
        for ctx in self.result.may_inherit_from(changed):
            if ctx.path in changed:
                continue
            for cls in ctx.facts.classes:
                for dotted in cls.bases:
                    base = resolver.find_base(ctx.path, dotted)
                    if base is not None and base[0] in changed:
                        found.setdefault(ctx.path, set()).add((base[0], base[1].name))
        return found

    def reached(self, changed: Mapping[str, ModuleFacts]) -> list[tuple[str, str, ModuleFacts, list[Diagnostic]]]:
        """What the `changed` modules' classifications surface in subclasses
        in other modules: (base's path, base's name, the subclass's module,
        the new diagnostics there), for each base that a module with new
        diagnostics inherits from."""
        resolver = run_resolver(self.result)
        found: list[tuple[str, str, ModuleFacts, list[Diagnostic]]] = []
        for path, bases in sorted(self.subclasses_elsewhere(changed).items()):
            facts = resolver.module(path) if resolver is not None else None
            if facts is None:
                continue
            new = _new(Counter(_key(d) for d in self.lint(facts)), self.lint(facts, changed))
            if new:
                found.extend((base_path, base_name, facts, new) for base_path, base_name in sorted(bases))
        return found

    def screen(
        self, facts: ModuleFacts, candidates: list[Declare]
    ) -> tuple[list[Declare], list[Surfaced], ModuleFacts]:
        """Split `candidates` into those that surface nothing (together) and
        those that would, with what they would surface.

        Each is tried on top of the ones accepted before it, so that the
        accepted ones are safe together (a base's classification reaches
        its subclasses in the module). Last first: subclasses usually
        follow their bases, and once a subclass has its own declaration, a
        base's problems are its own. The last value is the facts with the
        accepted ones declared."""
        state = facts
        current = Counter(_key(d) for d in self.lint(state))
        accepted: list[Declare] = []
        surfaced: list[Surfaced] = []
        for candidate in reversed(candidates):
            trial = declared(facts, [*accepted, candidate])
            after = self.lint(trial)
            new = _new(current, after)
            if new:
                surfaced.append(Surfaced(candidate, tuple(new)))
                continue
            accepted.append(candidate)
            state = trial
            current = Counter(_key(d) for d in after)
        return accepted[::-1], surfaced[::-1], state

    def surfaced_by(self, facts: ModuleFacts, changes: list[Declare]) -> list[Diagnostic]:
        """What declaring all `changes` at once adds to the module's diagnostics."""
        before = Counter(_key(d) for d in self.lint(facts))
        return _new(before, self.lint(declared(facts, changes)))


def _new(before: Counter[_Key], after: list[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics of `after` that `before` did not have (as multisets)."""
    left = Counter(before)
    new = []
    for d in sorted(after):
        if left[_key(d)] > 0:
            left[_key(d)] -= 1
        else:
            new.append(d)
    return new
