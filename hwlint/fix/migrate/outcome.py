"""What migrating one module comes to: each migration made (`Done`, of a
kind named in KINDS), each refused with why (`Refused`), the module's whole
result (`MigrationResult`), and the error that leaves a file as it is
(`MigrateError`). hwlint.fix.apply and its summary read these records."""

from __future__ import annotations

from typing import Literal, NamedTuple, get_args

from hwlint.fix.blocker import Blocker
from hwlint.fix.plan_records import ClassMove, Migration

# The migrations made (Done.kind), as the summary, the JSON report and the
# checks of a migrated file (hwlint.fix.verify) name them.
DoneKind = Literal[
    "only-for-except",  # only_for several devices -> except_for the complement
    "only-for-one",  # only_for -> the one device the call can instantiate
    "instantiate",  # tests take `device` -> instantiated, ACCELERATOR
    "drop-device",  # an unused `device` parameter dropped, GENERIC
    "default-device",  # every `device=` default names one device -> instantiated only_for it
    "only-accelerator",  # a test's @onlyCUDA -> @onlyAccelerator
    "add-device",  # a test given `device`
    "generalize",  # a one-device class made device-generic
    "device-class",  # a one-device class instantiated for its device
    "move-tests",  # one-device tests moved to a class of their device
    "any-gpu",  # a class on whichever GPU the machine has (GPU_TYPE) made ACCELERATOR
    "split",  # a class made by splitting a mixed class by test (one record per class made)
    "device-tests",  # the tests of a class instantiated for its device given `device`
]

# What each kind of migration done is called in the summary. Keyed by str:
# the summary looks up the kinds it counted (hwlint.fix.result); the assert
# below holds the keys to DoneKind.
KINDS: dict[str, str] = {
    "only-for-except": "only_for several devices -> except_for the complement (ACCELERATOR)",
    "only-for-one": "only_for -> the one device it can instantiate",
    "instantiate": "tests take `device` -> instantiate_device_type_tests (ACCELERATOR)",
    "drop-device": "unused `device` parameter dropped (GENERIC)",
    "default-device": "every `device=` default names one device -> that device, instantiated only_for it",
    "only-accelerator": "@only<Device> -> @onlyAccelerator",
    "add-device": "`device` parameter added",
    "generalize": "one-device class, or one whose tests need an accelerator, -> instantiated ACCELERATOR class (tests take `device`, uses rewritten)",
    "device-class": "one-device class that cannot be made device-generic -> instantiated for its device "
    "(tests take `device`, only_for)",
    "move-tests": "one-device test of an ACCELERATOR class -> a class of that device (a subclass; the class "
    "itself when all its tests are; @onlyNativeDeviceTypes: ACCELERATOR with except_for)",
    "any-gpu": "class on whichever GPU the machine has (GPU_TYPE) -> instantiated ACCELERATOR class "
    '(tests take `device`, allow_xpu=True, except_for="cpu")',
    "split": "class made by splitting a mixed class by test (<Name>Generic: its device-free tests, GENERIC, "
    "or <Name>OnlyCPU, CPU, when they are the CPU's case of the device tests; "
    "<Name>Accelerator: the others, ACCELERATOR, instantiated, or <Name>CUDA, that device's, instantiated "
    "for it alone, when they stay its tests; the rest in a mixin)",
    "device-tests": "class instantiated for its device -> its tests take `device` (the framework passes it)",
}
assert tuple(KINDS) == get_args(DoneKind), "KINDS names each DoneKind, in order"


class MigrateError(Exception):
    """The file cannot be migrated at all; it is left as it is."""


class Refusal(Exception):
    """Why a migration (or one test of it) is not made: raised by the step
    that finds the reason, caught where the migration was tried, which
    records it as a `Refused`. `line`, `code` and `blocker`: as Refused's."""

    def __init__(
        self, reason: str, line: int = 0, code: str = "", blocker: Blocker | None = None, *, mixed: bool = False
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line
        self.code = code
        self.blocker = blocker
        self.mixed = mixed

    @classmethod
    def blocked(cls, blocker: Blocker) -> Refusal:
        """A generalization refused for `blocker`, its reason the blocker's words."""
        return cls(blocker.describe(), blocker=blocker)

    def of(self, migration: Migration) -> Refused:
        """The record of `migration` refused for this reason."""
        return Refused(migration, self.reason, self.line, self.code, self.blocker, self.mixed)


class Done(NamedTuple):
    """One migration made: `kind` is a key of KINDS; `line` is the class's
    (or the test's) in the file as read; `member` the classification it
    declared (None for a test's migration); `detail` what was done, as the
    summary shows it; `collected` the per-device class names the runtime
    collects from an instantiated class; `method` the test, for a test's
    migration."""

    kind: DoneKind
    class_name: str
    line: int
    member: str | None
    detail: str
    collected: tuple[str, ...] = ()
    method: str = ""
    to_class: str = ""  # "move-tests": the class the test is now in; "split": the class made
    # The tests whose guards were rewritten (hwlint.fix.migrate.guards): the
    # test, its decorators' names before and after, for the verification.
    guards: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = ()

    def to_dict(self, path: str) -> dict[str, object]:
        """The record in the fix report's JSON form, with the file's `path`."""
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
    """A migration (or, for "accelerator-tests", one test of it) not made,
    and why (`reason`, shown to the user as it is)."""

    migration: Migration
    reason: str
    line: int = 0  # the test's, for one test; else the class's
    code: str = ""  # the rule the test stays reported by (HWC102, HWC103)
    # "generalize": what blocked it (the site and why), for the summary and `blocked_by`.
    blocker: Blocker | None = None
    # "split": the class has both device-free tests and device tests, so
    # that no one device's classification fits it (hwlint.fix.apply then leaves it).
    mixed: bool = False

    @property
    def blocked_by(self) -> Blocker:
        """What blocked the migration: its blocker, else its reason, of the class."""
        if self.blocker is not None:
            return self.blocker
        return Blocker(self.migration.line, "", self.reason, "other")


class MigrationResult(NamedTuple):
    """What `migrate_source` made of one module: its bytes (the input's
    when nothing was done), the migrations made and refused, and the tests
    now collected under another class (for `fix --verify-runtime`)."""

    fixed: bytes
    done: tuple[Done, ...]
    refused: tuple[Refused, ...]
    moves: tuple[ClassMove, ...] = ()
