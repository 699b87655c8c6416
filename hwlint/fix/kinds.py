"""The kinds `fix`'s records hold (hwlint.fix.plan: SiteRewrite.kind,
Migration.kind, Unfixed.kind), as Literals: a misspelt kind is a type
error. The rules hand `fix` their kinds as plain strings
(hwlint.core.diagnostics: Rewrite.kind, NotFixable.kind); `rewrite_kind`
and `reason_kind` say, at that one boundary, which kinds they are.
"""

from __future__ import annotations

from typing import Container, Literal, cast

from hwlint.rules.infer import ReasonKind

# The hard-coded devices HWC201 rewrites: the kinds of the facts' sites
# (hwlint.facts.records, DeviceKind and DistributedKind) that have a rewrite.
RewriteKind = Literal[
    "keyword",  # `device="cuda"`
    "method",  # `.cuda()`
    "torch.device",  # `torch.device("cuda")`
    "to",  # `.to("cuda")`
    "argument",  # `self._check("cuda")`, the class's own `_check(self, device)`
    "device-type",  # `device_type="cuda"`, `torch.autocast("cuda")`
    "module",  # `torch.cuda.synchronize()`
    "fstring",  # `f"cuda:{rank}"`
    "backend",  # `init_process_group("nccl")`
    "decorator",  # `@requires_nccl()`
]

# The class-level migrations `--unsafe` tries (hwlint.fix.migrate).
MigrationKind = Literal[
    "only-for",  # an instantiation with only_for several devices
    "device-param",  # tests take `device`, the class is never instantiated
    "accelerator-tests",  # an ACCELERATOR class's tests made device-generic
    "generalize",  # a one-device class made device-generic
    "any-gpu",  # a class on whichever GPU the machine has (GPU_TYPE) made ACCELERATOR
    "split",  # a mixed class split by test into a GENERIC and an ACCELERATOR class
    "device-tests",  # a class instantiated for its device: its tests take `device`
]

# Why the rules say a class needs a human (the kinds of their NotFixable):
# hwlint.rules.infer.ReasonKind, imported above.

# Why a class (or a site, for HWC201) is left for a human (Unfixed.kind):
# the rules' reason, or one of fix's own.
UnfixedKind = Literal[
    ReasonKind,
    "surfaces",  # the fix would surface violations (Unfixed.surfaced)
    "unsafe",  # weaker evidence: --unsafe applies it
    "over-budget",  # the fix would put its allowlisted file over budget
    "not-fixed",  # the rewrite failed
    "lost-tests",  # the runtime collects fewer tests after the fix (--verify-runtime)
    "accelerator-tests",  # an ACCELERATOR class's tests not migrated
    "device-tests",  # a device class's tests not given `device`
    "not-instantiable",  # a one-device class its device's instantiation refused: left unclassified
    "unsafe-rewrite",  # a hard-coded device: --unsafe rewrites it
    "not-rewritten",  # a hard-coded device the tree did not let be rewritten
    "generalize",  # a refused generalization, until fix says whether it is left (hwlint.fix.apply)
    "",  # none said
]


# The migrations that instantiate their class (which removes it from its
# module), and what the class is left as where that would break another file.
INSTANTIATING: dict[MigrationKind, UnfixedKind] = {
    "device-param": "device-not-instantiated",
    "generalize": "not-configured",
    "any-gpu": "any-gpu",
}


def left_unclassified(member: str, classifications: Container[str]) -> UnfixedKind | None:
    """What a "generalize" migration of a class bound to `member` leaves
    the class as when it is refused (or not tried): "not-configured" when
    the device is no configured member, "needs-accelerator" for
    "ACCELERATOR" (tests that need an accelerator but name none); None when
    the class keeps the one-device classification planned for it."""
    if member == "ACCELERATOR":
        return "needs-accelerator"
    return None if member in classifications else "not-configured"


def rewrite_kind(kind: str) -> RewriteKind:
    """A Rewrite's kind (a str in hwlint.core.diagnostics) as the kind of
    site it is: HWC201 gives rewrites of these kinds only."""
    return cast("RewriteKind", kind)


def reason_kind(kind: str) -> ReasonKind:
    """A NotFixable's kind (a str in hwlint.core.diagnostics) as the reason
    it is: the rules give the kinds of hwlint.rules.infer.REASONS only."""
    return cast("ReasonKind", kind)
