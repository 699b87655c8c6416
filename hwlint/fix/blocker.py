"""What stood in the way of making a one-device class device-generic (the
"generalize" migration): the site, its line and why, with a kind to count
by. A refused generalization carries one (hwlint.fix.migrate.outcome:
Refusal, Refused; hwlint.fix.plan: Unfixed), so that the summary says what
blocked a class and `--format json` gives it as a field (`blocked_by`)
that scripts read without parsing the reason's words.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

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

    def describe(self) -> str:
        """The blocker in words: "`torch.cuda.set_device(0)` (line 87) has no
        device-generic equivalent before torch 2.7 (oldest-torch 2.4)"."""
        if not self.site:
            return self.why
        return f"`{self.site}` (line {self.line}) {self.why}"

    def to_dict(self) -> dict[str, object]:
        """The blocker in `--format json` (`blocked_by`)."""
        return {"line": self.line, "site": self.site, "why": self.why, "kind": self.kind}
