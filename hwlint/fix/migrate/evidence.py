"""Text that names a device: the pattern of device, backend and vendor
library names, the first one a class's body names, and the module-level
names bound on a line that mentions an accelerator. A class still naming
one is a test of that device, not device-generic."""

from __future__ import annotations

import re
from typing import Sequence

import libcst as cst

from hwlint.core.config import Config
from hwlint.facts import DEFAULT_ACCELERATORS
from hwlint.fix.edits import is_docstring


def device_words(config: Config) -> re.Pattern[str]:
    """A device, backend or vendor library named in code: `"cuda"`,
    `torch.cuda`, `TEST_CUDA`, `dtypesIfCUDA`, `TestSDPACudaOnly`, `"nccl"`,
    `cudnn`... (a lower-case name stands alone: `dumps` names no MPS)."""
    names = dict.fromkeys(
        (
            *DEFAULT_ACCELERATORS.devices,
            *config.extend_devices,
            "privateuse1",
            "nccl",
            "xccl",
            "hccl",
            "cudnn",
            "rocm",
            "hip",
            "cublas",
            "mkldnn",
            "onednn",
            "triton",
        )
    )
    parts = []
    for name in names:
        parts.append(re.escape(name.upper()))
        parts.append(rf"(?<![a-z]){re.escape(name[0])}(?i:{re.escape(name[1:])})(?![a-z])")
        parts.append(rf"(?<![a-z]){re.escape(name[0].upper())}{re.escape(name[1:])}(?![a-z])")
    return re.compile("|".join(parts))


def names_a_device(cls: cst.ClassDef, words: re.Pattern[str], attribute: str, *, docstrings: bool = True) -> str:
    """The first device the class's body names (a test's name aside), or "";
    without `docstrings`, the class's and its methods' docstrings aside (prose)."""
    if not isinstance(cls.body, cst.IndentedBlock):
        return ""
    empty = cst.Module(body=[])
    for index, stmt in enumerate(cls.body.body):
        if not docstrings and index == 0 and is_docstring(stmt):
            continue
        if isinstance(stmt, cst.FunctionDef):
            parts = [empty.code_for_node(d) for d in stmt.decorators]
            parts.append(empty.code_for_node(stmt.params))
            body = stmt.body
            if not docstrings and isinstance(body, cst.IndentedBlock) and body.body and is_docstring(body.body[0]):
                body = body.with_changes(body=body.body[1:])
            parts.append(empty.code_for_node(body))
            text = "\n".join(parts)
        else:
            text = empty.code_for_node(stmt)
            if text.lstrip().startswith(attribute):
                continue
        found = words.search(text)
        if found is not None:
            return repr(found.group(0))
    return ""


def device_constants(data: bytes, lines: Sequence[int]) -> set[str]:
    """Names the module binds at its top level on a line that mentions an
    accelerator (`device = torch.device("xpu")`, `TEST_XPU = ...`)."""
    text = data.decode("utf-8", "replace").splitlines()
    names = set()
    for n in lines:
        if 0 < n <= len(text):
            found = re.match(r"([A-Za-z_]\w*)\s*(?::[^=]*)?=[^=]", text[n - 1])
            if found:
                names.add(found.group(1))
    return names
