"""A misspelt device respelt (HWC003's "did you mean"): `device="privatuse1"`
-> `device="privateuse1"`, with `--unsafe`.

torch.device() refuses a misspelt device, so whatever reached it never ran
as written: the respelling changes what the test runs, and a human reviews
it. HWC003 reports a device once per file, at its first use; the
respelling is of every string of the file that names it as a device
(`"privatuse1"`, `"privatuse1:0"`, `f"privatuse1:{rank}"`), found by their
text rather than by the position of the finding, so that it can come last,
after the edits that move lines and columns.
"""

from __future__ import annotations

import re
from typing import Sequence

import libcst as cst

from hwlint.fix.migrate.outcome import MigrateError
from hwlint.fix.plan_records import Respelling
from hwlint.fix.rewrite import parse_module


def respelt(data: bytes, respellings: Sequence[Respelling]) -> tuple[bytes, tuple[Respelling, ...]]:
    """`data` with each misspelt device's strings respelt, and the
    respellings that changed something; `data` itself when none did."""
    wanted = [r for r in respellings if r.wrong.encode() in data]
    if not wanted:
        return data, ()
    module = parse_module(data, MigrateError)
    done: list[Respelling] = []
    for respelling in wanted:
        transformer = _Respell(respelling.wrong, respelling.right)
        module = module.visit(transformer)
        if transformer.count:
            done.append(respelling)
    return module.bytes, tuple(done)


class _Respell(cst.CSTTransformer):
    """Strings that are the device `wrong`, or start with it and a colon,
    with `right` in its place (counted). A string that merely contains the
    word (a message) is left as it is."""

    def __init__(self, wrong: str, right: str) -> None:
        super().__init__()
        self.wrong = wrong
        self.right = right
        # After the string's prefix and quote: the whole device, or the device and an index.
        self.pattern = re.compile(rf"^([rRbBuUfF]*)('''|\"\"\"|'|\")({re.escape(wrong)})(?=:|\2|$)")
        self.count = 0

    def _respelt(self, text: str) -> str:
        return self.pattern.sub(lambda m: m.group(1) + m.group(2) + self.right, text, count=1)

    def leave_SimpleString(self, original_node: cst.SimpleString, updated_node: cst.SimpleString) -> cst.SimpleString:
        value = self._respelt(updated_node.value)
        if value == updated_node.value:
            return updated_node
        self.count += 1
        return updated_node.with_changes(value=value)

    def leave_FormattedString(
        self, original_node: cst.FormattedString, updated_node: cst.FormattedString
    ) -> cst.FormattedString:
        parts = updated_node.parts
        if not parts or not isinstance(parts[0], cst.FormattedStringText):
            return updated_node
        first = parts[0]
        if len(parts) > 1 and not first.value.startswith(self.wrong + ":"):
            return updated_node  # `f"privatuse1{x}"`: the device is not the word alone
        # The first text part has no quote of its own: give it the string's.
        value = self._respelt(updated_node.start + first.value)[len(updated_node.start) :]
        if value == first.value:
            return updated_node
        self.count += 1
        return updated_node.with_changes(parts=[first.with_changes(value=value), *parts[1:]])
