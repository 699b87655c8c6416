"""What migrating one module comes to: each migration made (`Done`, of a
kind named in KINDS), each refused with why (`Refused`), the module's whole
result (`MigrationResult`), and the error that leaves a file as it is
(`MigrateError`). hwlint.fix.apply and its summary read these records."""

from __future__ import annotations

from typing import NamedTuple

from hwlint.fix.plan import ClassMove, Migration

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


class MigrationResult(NamedTuple):
    fixed: bytes
    done: tuple[Done, ...]
    refused: tuple[Refused, ...]
    moves: tuple[ClassMove, ...] = ()
