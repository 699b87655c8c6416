"""Text that names a device: the pattern of device, backend and vendor
library names, the first one a class's body names, and the module-level
names bound on a line that mentions an accelerator. A class still naming
one is a test of that device, not device-generic."""

from __future__ import annotations

import ast
import copy
import re
from typing import Iterable, Sequence

import libcst as cst

from hwlint.core.config import Config
from hwlint.facts import DEFAULT_ACCELERATORS
from hwlint.fix.edits import is_docstring


def device_words(config: Config, *, triton: bool = True, found: Iterable[str] = ()) -> re.Pattern[str]:
    """A device, backend or vendor library named in code: `"cuda"`,
    `torch.cuda`, `TEST_CUDA`, `dtypesIfCUDA`, `TestSDPACudaOnly`, `"nccl"`,
    `cudnn`... (a lower-case name stands alone: `dumps` names no MPS).
    Without `triton`, Triton is no such name: inductor's code generator for
    every GPU it has (GPU_TYPE), not one device's. `found`: the devices the
    module uses that nobody configured (ModuleFacts.devices_found), named
    as much as the configured ones (`"In openreg autocast"` in a warning a
    test expects is a test of OpenReg)."""
    names = dict.fromkeys(
        (
            *DEFAULT_ACCELERATORS.devices,
            *config.extend_devices,
            *found,
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
            *(("triton",) if triton else ()),
        )
    )
    parts = []
    for name in names:
        # `has_triton()`, `HAS_TRITON`, `@requires_triton()`,
        # `@requires_gpu_and_triton`: a question of capability, which a
        # device-generic test asks on every device (torch.utils._triton,
        # triton_utils, hwlint.fix.migrate.guards).
        asked = r"(?<!has_)(?<!HAS_)(?<!requires_)(?<!gpu_and_)(?<!GPU_AND_)" if name == "triton" else ""
        # (Upper case not inside a longer upper-case word: `USE_LARGE_INPUT` names no NPU, `CHIP` no HIP.)
        parts.append(rf"{asked}(?<![A-Z]){re.escape(name.upper())}")
        parts.append(rf"{asked}(?<![a-z]){re.escape(name[0])}(?i:{re.escape(name[1:])})(?![a-z])")
        parts.append(rf"{asked}(?<![a-z]){re.escape(name[0].upper())}{re.escape(name[1:])}(?![a-z])")
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


def device_constants(data: bytes, lines: Sequence[int], naming: re.Pattern[str] | None = None) -> set[str]:
    """Names the module binds at its top level in a statement that mentions
    an accelerator on one of `lines` (`device = torch.device("xpu")`,
    `TEST_XPU = ...`, `requires_xpu = functools.partial(` over several
    lines); with `naming`, only those whose statement's code names one of
    its words (`HAS_MULTIGPU`, whichever GPU the machine has, names no device)."""
    found = bound_at(data, lines, with_code=naming is not None)
    return {name for names, code in found.values() if naming is None or naming.search(code) for name in names}


def users_of(data: bytes, names: set[str]) -> set[str]:
    """The module-level functions and values whose definition uses one of
    `names`, through one another too (`def T(*size, device=DEVICE)` with
    `DEVICE = "cuda"`: a test calling `T(2)` places on CUDA). A class is
    left out: a test class using the name is the one being sorted."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    defs: dict[str, list[ast.AST]] = {}
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs.setdefault(stmt.name, []).append(stmt)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    defs.setdefault(target.id, []).append(stmt.value)
    uses = {
        name: {n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name)}
        for name, nodes in defs.items()
    }
    found = set(names)
    grew = True
    while grew:
        grew = False
        for name, used in uses.items():
            if name not in found and used & found:
                found.add(name)
                grew = True
    return found - names


def accelerator_type_names(data: bytes) -> frozenset[str]:
    """Names the module binds once, at its top level, to the type of the
    machine's accelerator (`device_type = acc.type if (acc :=
    torch.accelerator.current_accelerator()) else "cpu"`,
    `DEVICE = torch.accelerator.current_accelerator().type`): what
    `self.device_type` is in a device-generic class, as GPU_TYPE is."""
    if b"current_accelerator" not in data:
        return frozenset()
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    bound: dict[str, int] = {}
    typed: set[str] = set()
    for stmt in tree.body:
        for node in ast.walk(stmt) if not isinstance(stmt, (ast.FunctionDef, ast.ClassDef)) else ():
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                bound[node.id] = bound.get(node.id, 0) + 1
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            code = ast.unparse(stmt.value)
            if "current_accelerator(" in code and ".type" in code:
                typed.add(stmt.targets[0].id)
    return frozenset(name for name in typed if bound.get(name) == 1)


def bound_at(data: bytes, lines: Sequence[int], *, with_code: bool = False) -> dict[int, tuple[tuple[str, ...], str]]:
    """Each of `lines` -> the names bound by the module-level assignment
    whose statement spans it (inside a module-level `if`/`try`/`with` too),
    () for a line in any other statement (a function's body, a call run at
    import) or in none; and, `with_code`, that statement's code (its
    strings aside), else ""."""
    statements = _statements_at(data, lines)
    if statements is None:
        return {n: ((), "") for n in lines}
    found: dict[int, tuple[tuple[str, ...], str]] = {}
    for n, stmt in statements.items():
        targets: list[ast.expr] = []
        if isinstance(stmt, ast.Assign):
            targets = list(stmt.targets)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets = [stmt.target]
        names = tuple(t.id for t in targets if isinstance(t, ast.Name))
        code = _code_without_strings(stmt) if with_code and stmt is not None else ""
        found[n] = (names if len(names) == len(targets) else (), code)
    return found


def mentioning_functions(data: bytes, lines: Sequence[int]) -> dict[int, str]:
    """Each of `lines` that lies in a module-level function's body -> that
    function's name (`def _h(w): return w.cuda() if F else w.xpu()`: a
    test calling `_h` may run on a device, though no one device binds it)."""
    statements = _statements_at(data, lines) or {}
    return {n: s.name for n, s in statements.items() if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _statements_at(data: bytes, lines: Sequence[int]) -> dict[int, ast.stmt | None] | None:
    """Each of `lines` -> the module-level statement spanning it (`_innermost`);
    None when the module does not parse."""
    try:
        tree = ast.parse(data.decode("utf-8"))
    except (SyntaxError, ValueError):
        return None
    return {n: _innermost(tree.body, n) for n in lines}


def _code_without_strings(stmt: ast.stmt) -> str:
    """The statement's code with its strings (a skip's reason) emptied,
    but the string an assignment binds (`DEVICE = "cuda"`: the device itself)."""
    copied = copy.deepcopy(stmt)
    value = copied.value if isinstance(copied, (ast.Assign, ast.AnnAssign)) else None

    class _Empty(ast.NodeTransformer):
        def visit_Constant(self, node: ast.Constant) -> ast.AST:
            return ast.Constant("") if isinstance(node.value, str) and node is not value else node

    return ast.unparse(_Empty().visit(copied))


def _innermost(body: Sequence[ast.stmt], line: int) -> ast.stmt | None:
    """The statement of `body` spanning `line`, or the one inside it when it
    is a block that runs at import (`if`, `try`, `with`)."""
    for stmt in body:
        if not stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno):
            continue
        if isinstance(stmt, (ast.If, ast.Try, ast.With)):
            blocks = [stmt.body, getattr(stmt, "orelse", []), getattr(stmt, "finalbody", [])]
            blocks += [h.body for h in getattr(stmt, "handlers", [])]
            for block in blocks:
                inner = _innermost(block, line)
                if inner is not None:
                    return inner
        return stmt
    return None


# Calls whose arguments from this position on are a message, by their last name.
_MESSAGES_FROM = {"skipIf": 1, "skipUnless": 1, "skip": 0, "skipTest": 0}
_MESSAGE_KEYWORDS = frozenset({"msg", "reason", "message"})


def masked_messages(data: bytes, class_line: int) -> bytes:
    """`data` with the messages of the skips and assertions in the class
    defined on `class_line` (`skipIf(cond, "needs CUDA")`,
    `self.skipTest(...)`, `msg=...`: prose, that runs on no device) blanked
    inside their quotes, byte for byte (lines and columns stay); `data`
    itself when there are none or it does not parse."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return data
    cls = next((n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.lineno == class_line), None)
    if cls is None:
        return data
    spans = []
    for node in ast.walk(cls):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        first = _MESSAGES_FROM.get(name)
        messages = node.args[first:] if first is not None else []
        messages += [k.value for k in node.keywords if k.arg in _MESSAGE_KEYWORDS]
        spans += [m for m in messages if isinstance(m, (ast.Constant, ast.JoinedStr)) and _is_text(m)]
    if not spans:
        return data
    starts = [0]
    for line in data.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    out = bytearray(data)
    for m in spans:
        begin = starts[m.lineno - 1] + m.col_offset
        end = starts[(m.end_lineno or m.lineno) - 1] + (m.end_col_offset or 0)
        for i in range(begin + 1, end - 1):
            if out[i] not in b"\r\n\"'":
                out[i] = ord(" ")
    return bytes(out)


def _is_text(node: ast.expr) -> bool:
    return isinstance(node, ast.JoinedStr) or isinstance(getattr(node, "value", None), str)
