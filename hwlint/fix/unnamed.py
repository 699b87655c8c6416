"""The devices a run found in the code that the configuration does not
name (HWC003: `openreg`, from `import torch_openreg` and `device="openreg"`),
seen from the whole project: a class whose module alone says nothing of
such a device may still name it. OpenReg's `test_misc.py` registers the
backend itself (`rename_privateuse1_backend("openreg")`), which, in one
module, is a test of the mechanism (PyTorch's own tests register a "foo"
that runs on the CPU); the project's other modules say it is their device.
`fix` then declares no GENERIC on a class that names it."""

from __future__ import annotations

from hwlint.engine.api import CheckResult
from hwlint.facts import ModuleFacts
from hwlint.facts.devices import device_writes


class UnnamedDevices:
    """The names (`openreg`), and the project root to read a class's lines
    from (each file once)."""

    def __init__(self, names: tuple[str, ...], root: str) -> None:
        self.names = names
        self.root = root
        # Where a device goes: a device string, a tensor method, a device module.
        self.pattern = device_writes(names, modules=True)
        self._lines: dict[str, list[str]] = {}

    @classmethod
    def of(cls, result: CheckResult) -> UnnamedDevices:
        names = tuple(sorted({f.name for ctx in result.contexts for f in ctx.facts.devices_found}))
        return cls(names, str(result.config.root))

    def named_by(self, facts: ModuleFacts, class_name: str, line: int) -> str:
        """The first of the names the class (`class_name` at `line`) writes
        where a device goes, "" when none (or none was found anywhere)."""
        if not self.names:
            return ""
        cls = next((c for c in facts.classes if c.name == class_name and c.line == line), None)
        if cls is None:
            return ""
        lines = self._lines.get(facts.path)
        if lines is None:
            try:
                with open(f"{self.root}/{facts.path}", encoding="utf-8", errors="replace") as handle:
                    lines = handle.read().splitlines()
            except OSError:
                lines = []
            self._lines[facts.path] = lines
        for text in lines[cls.line - 1 : cls.end_line]:
            found = self.pattern.search(text.split("#", 1)[0])
            if found is not None:
                return next(g for g in found.groups() if g)
        return ""
