"""What stood in the way of making a one-device class device-generic (the
"generalize" migration): the site, its line and why, with a kind to count
by. A refused generalization carries one (hwlint.fix.migrate.outcome:
Refusal, Refused; hwlint.fix.plan: Unfixed), so that the summary says what
blocked a class and `--format json` gives it as a field (`blocked_by`)
that scripts read without parsing the reason's words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, NamedTuple

if TYPE_CHECKING:
    from hwlint.facts.resolve import ClassInfo

BlockerKind = Literal[
    "newer-torch",  # the device-generic equivalent is newer than `oldest-torch`
    "no-equivalent",  # a use with no device-generic equivalent at all
    "device-string",  # a string names a device ("cpu:gloo,cuda:nccl") that no rewrite changes
    "names-device",  # code names a device (`TEST_CUDA`, `"cuda" in ...`) that no rewrite changes
    "backend-only",  # what only one collective backend has (ProcessGroupNCCL, "NCCL_DEBUG")
    "backend-assertion",  # a device's backend asserted (`pg._get_backend(torch.device("cuda"))`)
    "module-device",  # a module-level name bound to the device, used or reached
    "rewrite-refused",  # a site the tree does not let be rewritten (a static method, a second device)
    "class",  # the class itself (decorators, instantiated, subclassed, a name clash...)
    "base",  # a base hwlint resolves: it uses a device, or has tests of its own
    "other",  # anything else (a migration undone because it surfaced a finding)
]


class Blocker(NamedTuple):
    """What blocked a generalization: the code (`site`, as written; "" when
    it is the class itself), its `line` in the file as read, `why` it
    blocks, and its `kind`."""

    line: int
    site: str
    why: str
    kind: BlockerKind = "other"

    def describe(self, *, line: bool = True) -> str:
        """The blocker in words: "`torch.cuda.set_device(0)` (line 87) has no
        device-generic equivalent before torch 2.7 (oldest-torch 2.4)";
        without `line` when it is a line of a file the user never sees (a
        migration's step)."""
        if not self.site:
            return self.why
        return f"`{self.site}`{f' (line {self.line})' if line else ''} {self.why}"

    def to_dict(self) -> dict[str, object]:
        """The blocker in `--format json` (`blocked_by`)."""
        return {"line": self.line, "site": self.site, "why": self.why, "kind": self.kind}


def base_blocker(info: ClassInfo) -> Blocker | None:
    """What, in a base hwlint resolves (`class TestAbs(TestUtils)`, TestUtils
    from the tree's `testutils.py`), keeps the class from being made
    device-generic: a device the base uses (only the class's own code is
    rewritten, so the base's `torch.device("npu")` would stay), or tests of
    its own (instantiating the class would pass `device` to them, which
    they do not take). None when its bases have neither: they bind it to
    no device."""
    for path, base in info.ancestors:
        where = f"{base.name} ({path}:{base.line})"
        if base.methods:
            why = f"its base {where} has tests of its own, which do not take `device`: generalize the base first"
            return Blocker(info.facts.line, "", why, "base")
        sites = sorted(
            (*base.devices, *base.probes, *base.requires, *base.distributed), key=lambda s: (s.line, s.column)
        )
        if sites:
            why = f"its base {where} uses the device (`{sites[0].text}`, line {sites[0].line}): make the base device-generic first"
            return Blocker(info.facts.line, "", why, "base")
    return None
