"""The rule registry: every rule, in code order. Adding a rule is adding a
module here and one line below."""

from __future__ import annotations

from hwlint.rules.accelerator_api import AcceleratorApi
from hwlint.rules.allowlist_budget import AllowlistBudget
from hwlint.rules.allowlist_growth import AllowlistGrowth
from hwlint.rules.allowlist_stale import AllowlistStale
from hwlint.rules.allowlist_syntax import AllowlistSyntax
from hwlint.rules.base import Example, Rule, Violation
from hwlint.rules.device_decorator import DeviceDecorator
from hwlint.rules.device_param import DeviceParam
from hwlint.rules.device_specific_instantiation import DeviceSpecificInstantiation
from hwlint.rules.duplicate import Duplicate
from hwlint.rules.hardcoded_device import HardcodedDevice
from hwlint.rules.instantiation import Instantiation
from hwlint.rules.invalid_classification import InvalidClassification
from hwlint.rules.missing_classification import MissingClassification
from hwlint.rules.only_for import OnlyFor
from hwlint.rules.parse_error import ParseError
from hwlint.rules.uncertain_file import UncertainFile
from hwlint.rules.phase_overdue import PhaseOverdue

ALL_RULES: tuple[type[Rule], ...] = (
    ParseError,
    MissingClassification,
    InvalidClassification,
    Instantiation,
    DeviceParam,
    DeviceDecorator,
    OnlyFor,
    AcceleratorApi,
    Duplicate,
    DeviceSpecificInstantiation,
    UncertainFile,
    HardcodedDevice,
    AllowlistStale,
    AllowlistBudget,
    AllowlistGrowth,
    AllowlistSyntax,
    PhaseOverdue,
)
BY_CODE: dict[str, type[Rule]] = {rule.code: rule for rule in ALL_RULES}
FIXABLE: tuple[str, ...] = tuple(rule.code for rule in ALL_RULES if rule.fixable)
# What budgets count (the module rules), and what needs the whole tree and
# the allowlist: the groups come from the rules' `scope`, never from codes.
COUNTED: frozenset[str] = frozenset(rule.code for rule in ALL_RULES if rule.scope == "module")
ALLOWLIST_RULES: frozenset[str] = frozenset(rule.code for rule in ALL_RULES if rule.scope == "allowlist")


def _selects(entry: str, rule: type[Rule]) -> bool:
    """Whether a `select` entry turns a rule on.

    A prefix turns on the default rules it covers; a default-off rule needs
    its own code, `ALL`, or a prefix that covers only default-off rules
    (`HWC2` turns on HWC201), so that the default `select = ["HWC1"]` does
    not switch on HWC111.
    """
    if entry == "ALL":
        return True
    if not rule.code.startswith(entry):
        return False
    if rule.default or entry == rule.code:
        return True
    return not any(other.default for other in ALL_RULES if other.code.startswith(entry))


def is_code(entry: str) -> bool:
    """Whether a `select`/`ignore` entry (a code or a prefix) names a rule."""
    return entry == "ALL" or any(rule.code.startswith(entry) for rule in ALL_RULES)


def enabled_codes(select: tuple[str, ...], ignore: tuple[str, ...]) -> frozenset[str]:
    """The codes on for `select`/`ignore`; the more specific entry wins, as in ruff."""
    codes = set()
    for rule in ALL_RULES:
        chosen = [e for e in select if _selects(e, rule)]
        dropped = [e for e in ignore if e == "ALL" or rule.code.startswith(e)]
        if not chosen:
            continue
        if dropped and max(len(e) if e != "ALL" else 0 for e in dropped) >= max(
            len(e) if e != "ALL" else 0 for e in chosen
        ):
            continue
        codes.add(rule.code)
    return frozenset(codes)


__all__ = [
    "ALLOWLIST_RULES",
    "ALL_RULES",
    "BY_CODE",
    "COUNTED",
    "FIXABLE",
    "Example",
    "Rule",
    "Violation",
    "enabled_codes",
    "is_code",
    "AcceleratorApi",
    "AllowlistBudget",
    "AllowlistGrowth",
    "AllowlistStale",
    "AllowlistSyntax",
    "DeviceDecorator",
    "DeviceParam",
    "DeviceSpecificInstantiation",
    "Duplicate",
    "HardcodedDevice",
    "Instantiation",
    "InvalidClassification",
    "MissingClassification",
    "OnlyFor",
    "ParseError",
    "PhaseOverdue",
    "UncertainFile",
]
