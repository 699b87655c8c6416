"""A device test's flags of Triton on one device, in the form a
device-generic test asks them: inductor_utils' `HAS_CUDA_AND_TRITON`
(`torch.cuda.is_available() and HAS_TRITON`) and `HAS_XPU_AND_TRITON`
become `HAS_TRITON` in a class made ACCELERATOR. Its tests are then given
an accelerator, and instantiated with `except_for="cpu"`: on each device
Triton runs on, the test asks what it asked on CUDA, whether Triton is
there. PyTorch's contributors write it so (`if not (HAS_CUDA_AND_TRITON
and ...): return` -> `@skipIf(not HAS_TRITON, "requires triton")`).

The decorators that say the same (`@requires_cuda_and_triton`) are
hwlint.fix.migrate.guards'.
"""

from __future__ import annotations

from typing import cast

import libcst as cst

from hwlint.fix.edits import dotted, ensure_import
from hwlint.fix.migrate.guards import INDUCTOR_UTILS
from hwlint.fix.migrate.outcome import MigrateError
from hwlint.fix.migrate.tree import find_class
from hwlint.fix.migrate.unused_imports import drop_unused_name
from hwlint.fix.rewrite import parse_module

# The flags, by their name in inductor_utils: the device each names.
_FLAGS = {"HAS_CUDA_AND_TRITON": "cuda", "HAS_XPU_AND_TRITON": "xpu"}
_HAS_TRITON = "HAS_TRITON"


def triton_flags_applied(data: bytes, class_name: str, occurrence: int) -> tuple[bytes, int]:
    """`data` with the class's flags of Triton on one device read as
    `HAS_TRITON` (imported from inductor_utils, as they were), and how
    many; `data` itself when it names none."""
    if not any(flag.encode() in data for flag in _FLAGS):
        return data, 0  # without reading the module with libcst
    module = parse_module(data, MigrateError)
    imported = _imported(module)
    if not imported:
        return data, 0
    where = find_class(module.body, class_name, occurrence)
    cls = module.body[where]
    counter = _Renamed(imported, "")
    cls.visit(counter)
    if not counter.count:
        return data, 0
    module, local = ensure_import(module, INDUCTOR_UTILS, _HAS_TRITON)
    body = list(module.body)
    where = find_class(body, class_name, occurrence)
    renamed = _Renamed(imported, local)
    cls = body[where]
    assert isinstance(cls, cst.ClassDef)
    # (A ClassDef stays one: only names change.)
    body[where] = cast(cst.ClassDef, cls.visit(renamed))
    module = module.with_changes(body=body)
    for name in sorted(imported):
        module = drop_unused_name(module, name)
    return module.bytes, renamed.count


def _imported(module: cst.Module) -> set[str]:
    """The names the module imports the flags as, from inductor_utils."""
    found = set()
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if not isinstance(small, cst.ImportFrom) or small.module is None or isinstance(small.names, cst.ImportStar):
                continue
            if dotted(small.module) != INDUCTOR_UTILS:
                continue
            for alias in small.names:
                if dotted(alias.name) in _FLAGS:
                    found.add(dotted(alias.asname.name if alias.asname is not None else alias.name))
    return found


class _Renamed(cst.CSTTransformer):
    """Each name of `names` read as `local` (counted; with `local` "", only counted)."""

    def __init__(self, names: set[str], local: str) -> None:
        super().__init__()
        self.names = names
        self.local = local
        self.count = 0

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        if original_node.value not in self.names:
            return updated_node
        self.count += 1
        return updated_node.with_changes(value=self.local) if self.local else updated_node

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.Attribute:
        # `x.HAS_CUDA_AND_TRITON` is another object's attribute: as it was.
        if original_node.attr.value in self.names:
            self.count -= 1
            return updated_node.with_changes(attr=original_node.attr)
        return updated_node
