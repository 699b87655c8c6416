"""The records of a fix plan (hwlint.fix.plan): a class's classification
to write, a hard-coded device to rewrite, a migration to try, a misspelt
device to respell, a class left for a human, and one file's plan. Plain
records, before libcst is imported: `hwlint check` builds plans to count
them."""

from __future__ import annotations

from typing import NamedTuple

from hwlint.fix.blocker import Blocker
from hwlint.fix.kinds import MigrationKind, RewriteKind, UnfixedKind
from hwlint.rules.device_decorator import DeviceDecorator
from hwlint.rules.device_param import DeviceParam
from hwlint.rules.infer import REASONS
from hwlint.rules.missing_classification import MissingClassification
from hwlint.rules.torch_api import Equivalent


class SiteRewrite(NamedTuple):
    """One hard-coded device to rewrite: where the facts found it, what it is
    (Site.kind and Site.name), and what the class offers in its place."""

    line: int
    column: int
    kind: RewriteKind
    name: str  # the device string, the method, the module function, the backend or the decorator
    class_name: str
    instantiated: bool  # the class is passed to instantiate_device_type_tests: self.device_type exists
    # "module": the device-generic call; "backend": get_default_backend_for_device
    # under the file's own name for torch.distributed; "decorator": the
    # decorator's name (hwlint.fix.transform imports it).
    equivalent: Equivalent | None = None
    imports_torch: bool = False  # `torch` is bound: torch.accelerator.current_accelerator() can stand for the device


class ClassFix(NamedTuple):
    """A classification to write: added to the class (HWC001) or in place of
    a string declaration (HWC002)."""

    class_name: str
    occurrence: int  # among module-level classes of this name, in source order
    member: str  # the classification the class ends up with (aliases resolved)
    applicability: str
    evidence: str
    line: int  # of the diagnostic: the class (HWC001) or the declaration (HWC002)
    column: int = 0
    code: str = MissingClassification.code
    # A string replacement (HWC002): the enum attribute written in place of
    # the string (the member, or the alias it named) and the string it replaces.
    name: str = ""
    text: str = ""

    @property
    def replaces(self) -> bool:
        return bool(self.name)


class ClassMove(NamedTuple):
    """Tests of class `old` may now be collected under class `new` (same
    module): what a migration that moves, splits or renames classes reports
    (FileResult.moves), for `fix --verify-runtime` (hwlint.fix.verify_runtime)."""

    old: str
    new: str
    # A move of one-device tests (hwlint.fix.migrate, "move-tests"): the
    # tests moved, and the device types they are still instantiated for.
    # Collected before for other types too, they were skipped there by
    # their @only decorator: not collecting them there loses no run.
    tests: tuple[str, ...] = ()
    devices: tuple[str, ...] = ()


class Unfixed(NamedTuple):
    """A class `fix` left for a human. `kind` (hwlint.fix.kinds.UnfixedKind):
    "surfaces" (the inferred classification would surface violations,
    listed in `surfaced` as codes, of `member`), "unsafe" (weaker evidence),
    another of fix's own, or the kind of a NotFixable (hwlint.rules.infer.REASONS)."""

    path: str
    line: int
    class_name: str
    reason: str
    kind: UnfixedKind = ""
    member: str | None = None
    surfaced: tuple[str, ...] = ()
    code: str = ""  # the rule (HWC201's findings are sites, not classes)
    # For an "unsafe" fix: the kind of its evidence (a key of
    # hwlint.rules.infer.REASONS), so that scripts count unsafe fixes by why
    # they are unsafe without reading the reason's words.
    evidence: str = ""
    blocked_by: Blocker | None = None  # a class not generalized: what blocked it

    @property
    def group(self) -> str:
        """What the summary counts it under."""
        if self.kind == "surfaces":
            return (
                f"{self.member} would surface {', '.join(self.surfaced)}: "
                "fix those tests, or apply with --unsafe and fix them then"
            )
        if self.kind == "unsafe":
            return f"unsafe fix to {self.member}: apply with --unsafe"
        if self.kind == "over-budget":
            return (
                f"{self.member} would put its allowlisted file over budget ({', '.join(self.surfaced)}): "
                "fix those tests first"
            )
        if self.kind == "not-fixed":
            return "not fixed: the rewrite failed"
        if self.kind == "lost-tests":
            return "not written: the runtime collects fewer tests after the fix (--verify-runtime)"
        if self.kind == "accelerator-tests":
            return (
                f"ACCELERATOR test bound to a device or without `device` ({DeviceParam.code}/{DeviceDecorator.code}), not migrated: "
                "make it device-generic, or move it to a class of its device"
            )
        if self.kind == "device-tests":
            return f"test of a device class without `device` ({DeviceParam.code}), not migrated: give it `device`"
        if self.kind == "not-instantiable":
            return "one-device class that cannot be instantiated for its device, left unclassified: see why"
        if self.kind == "unsafe-rewrite":
            return "hard-coded device with a device-agnostic rewrite: apply with --unsafe"
        return REASONS.get(self.kind, self.reason)

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "class_name": self.class_name,
            "kind": self.kind,
            "classification": self.member,
            "surfaced": list(self.surfaced),
            "reason": self.reason,
            "code": self.code,
            "evidence": self.evidence,
            "blocked_by": self.blocked_by.to_dict() if self.blocked_by is not None else None,
        }


class Migration(NamedTuple):
    """A class-level migration to try (hwlint.fix.migrate decides on the
    tree whether it applies, and says why not). `kind`: "only-for" (an
    instantiation with only_for several devices), "device-param" (tests
    take `device`, the class is never instantiated), "accelerator-tests"
    (an ACCELERATOR class's tests: `@onlyCUDA` -> `@onlyAccelerator`, a
    missing `device` added), "generalize" (a one-device class made
    device-generic), "any-gpu" (a class on GPU_TYPE made ACCELERATOR)."""

    kind: MigrationKind
    class_name: str
    occurrence: int  # among module-level classes of this name, in source order
    line: int  # of the class, in the file as read
    evidence: str = ""
    member: str = ""  # "generalize": its one device ("ACCELERATOR": tests that need one, none named)
    # "generalize": what, outside the class's module or body, refuses it
    # before it is tried (a base that uses the device: hwlint.fix.blocker.base_blocker)
    blocked: Blocker | None = None


class Respelling(NamedTuple):
    """A misspelt device of a file (HWC003's "did you mean": where it was
    found first), and its spelling (hwlint.fix.respell)."""

    line: int
    column: int
    wrong: str
    right: str


class FilePlan:
    """What to change in one file. A plain class, not a dataclass: `check`
    builds plans to count them, where importing dataclasses costs a
    measurable part of a one-file run."""

    __slots__ = ("path", "fixes", "rewrites", "migrations", "respellings")

    def __init__(
        self,
        path: str,
        fixes: list[ClassFix] | None = None,
        rewrites: list[SiteRewrite] | None = None,
        migrations: list[Migration] | None = None,
        respellings: list[Respelling] | None = None,
    ) -> None:
        self.path = path
        self.fixes: list[ClassFix] = fixes if fixes is not None else []
        self.rewrites: list[SiteRewrite] = rewrites if rewrites is not None else []  # HWC201
        self.migrations: list[Migration] = migrations if migrations is not None else []  # --unsafe
        self.respellings: list[Respelling] = respellings if respellings is not None else []  # HWC003, --unsafe

    def fields(self) -> tuple[object, ...]:
        """The path, then what to change."""
        return (self.path, self.fixes, self.rewrites, self.migrations, self.respellings)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FilePlan) and self.fields() == other.fields()

    def __repr__(self) -> str:
        return "FilePlan({!r}, fixes={!r}, rewrites={!r}, migrations={!r}, respellings={!r})".format(*self.fields())
