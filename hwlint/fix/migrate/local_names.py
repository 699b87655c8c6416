"""The local variables of a class's methods, with the device words in
their names hidden: `x_xpu = x.to("xpu")`, `model_npu`, `res_cuda`.

A local variable's name is only a name: the code does what it does
whatever it is called, so a variable named after a device does not bind a
class to that device once the device it holds comes from `device`
(PyTorch's device-generic tests keep such names: `x_cuda` compared with
`x_cpu` in test_torch.py's ported tests runs on every device type). What a
name means beyond the function is not hidden: a module-level name, an
attribute (`self.use_cuda`, `torch.cuda`, `tensor.is_cuda`; but
`self.npu_op_exec`, a helper the class defines, is a name of its own, and so
is a module-level function whose code names no device), a keyword
argument (`allow_xpu=True` is the callee's), an imported name; nor any
string (`"xpu"`, a device string, still names the device). The
generalize migration (hwlint.fix.migrate.generalize) looks for device
words in the masked bytes, which keep every line and column of the
original so that what it shows is the original's.
"""

from __future__ import annotations

import ast
import re
from typing import Iterator, Union

_Scope = Union[
    ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp
]
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, *_COMPREHENSIONS)


def masked_local_names(data: bytes, class_line: int, words: re.Pattern[str]) -> bytes:
    """`data` with the device words (`words`) in the local variables' names
    of the class defined on `class_line` replaced by underscores, byte for
    byte (the same length: lines and columns stay); `data` itself when
    there are none or it does not parse."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return data
    cls = next(
        (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.lineno == class_line),
        None,
    )
    if cls is None:
        return data
    lines = data.splitlines(keepends=True)
    changed = False
    uses = [*_local_uses(cls, lines), *_device_free_function_uses(tree, cls, words)]
    for line, column, name in uses:
        hidden = words.sub(lambda m: "_" * len(m.group(0)), name)
        if hidden == name:
            continue
        raw = lines[line - 1]
        encoded = name.encode("utf-8")
        if raw[column : column + len(encoded)] != encoded:
            continue  # not where the tree says (a line continuation): leave it
        lines[line - 1] = raw[:column] + hidden.encode("utf-8") + raw[column + len(encoded) :]
        changed = True
    return b"".join(lines) if changed else data


def _local_uses(cls: ast.ClassDef, lines: list[bytes]) -> Iterator[tuple[int, int, str]]:
    """Every use of a local variable in the class's methods (line, byte
    column, name): a name a function (or lambda, or comprehension) of the
    class binds, where it, or a function inside it, reads or writes it."""
    methods = {s.name for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for stmt in cls.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from _uses(stmt, ())
            yield from _own_method_calls(stmt, methods)
            yield from _own_keys(stmt, lines)
            for inner in ast.walk(stmt):
                # A function defined in a method is one of its locals: its `def` line too.
                if inner is not stmt and isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield from _def_name(inner, lines)
            if not stmt.name.startswith("test"):
                yield from _def_name(stmt, lines)


def _device_free_function_uses(
    tree: ast.Module, cls: ast.ClassDef, words: re.Pattern[str]
) -> Iterator[tuple[int, int, str]]:
    """Where the class names a module-level function (defined once) whose
    own code, its docstring aside, names no device: `matmul_cuda`, whose
    body adds two tensors wherever they are, is only a name too."""
    defined: dict[str, int] = {}
    free: set[str] = set()
    for stmt in tree.body:
        for target in _module_targets(stmt):
            defined[target] = defined.get(target, 0) + 1
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = stmt.body[1:] if ast.get_docstring(stmt) is not None else stmt.body
            code = "\n".join(ast.unparse(n) for n in [*stmt.decorator_list, stmt.args, *body])
            if words.search(code) is None:
                free.add(stmt.name)
    names = {name for name in free if defined.get(name) == 1 and words.search(name)}
    if not names:
        return
    for node in ast.walk(cls):
        if isinstance(node, ast.Name) and node.id in names and isinstance(node.ctx, ast.Load):
            yield node.lineno, node.col_offset, node.id


def _module_targets(stmt: ast.stmt) -> Iterator[str]:
    """The names a module-level statement binds (a def, a class, an assignment, an import)."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield stmt.name
    elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
        yield from ((a.asname or a.name).split(".", 1)[0] for a in stmt.names)
    else:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                yield node.id


def _own_method_calls(
    method: ast.FunctionDef | ast.AsyncFunctionDef, methods: set[str]
) -> Iterator[tuple[int, int, str]]:
    """`self.npu_op_exec` where the class defines `npu_op_exec` itself: a
    helper's name is only a name too (its `def` line is not searched, and
    a class that is subclassed is never instantiated by the migration)."""
    for node in ast.walk(method):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in methods
            and isinstance(node.value, ast.Name)
            and node.value.id in ("self", "cls")
            and node.end_lineno == node.lineno
            and node.end_col_offset is not None
        ):
            yield node.lineno, node.end_col_offset - len(node.attr.encode("utf-8")), node.attr


def _own_keys(method: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[bytes]) -> Iterator[tuple[int, int, str]]:
    """The keys a method puts in a dict literal it keeps that are names
    rather than devices (`"cuda_tensor"`, not `"cuda"` or `"cuda:0"`), and
    the same strings where it reads them back (`assertIn("cuda_tensor",
    staged)`): a key is the test's own name for a value, as a local
    variable's is."""
    # A dict the test keeps as its data (`staged = {"cuda_tensor": ...}`),
    # not one it hands on as options (`profile(**{"use_cuda": True})`).
    keys = {
        key.value
        for node in ast.walk(method)
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Dict)
        for key in node.value.keys
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and _NAME_KEY.fullmatch(key.value)
    }
    if not keys:
        return
    for node in ast.walk(method):
        if isinstance(node, ast.Constant) and node.value in keys and node.lineno == node.end_lineno:
            raw = lines[node.lineno - 1] if 0 < node.lineno <= len(lines) else b""
            if raw[node.col_offset : node.col_offset + 1] in (b'"', b"'"):
                yield node.lineno, node.col_offset + 1, node.value


# A key that is a snake_case name of several words, not a device string.
_NAME_KEY = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")


def _def_name(method: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[bytes]) -> Iterator[tuple[int, int, str]]:
    """The helper's own name on its `def` line."""
    raw = lines[method.lineno - 1] if 0 < method.lineno <= len(lines) else b""
    found = re.search(rb"\bdef\s+(" + re.escape(method.name.encode("utf-8")) + rb")\b", raw)
    if found is not None:
        yield method.lineno, found.start(1), method.name


def _uses(scope: _Scope, enclosing: tuple[frozenset[str], ...]) -> Iterator[tuple[int, int, str]]:
    local = _bound(scope)
    chain = (*enclosing, local)
    visible = frozenset().union(*chain)
    # Its parameters (a method's own, on the lines of a `def` written over several).
    for arg in _arguments(scope):
        if arg.arg in local:
            yield arg.lineno, arg.col_offset, arg.arg
    for node in _own_nodes(scope):
        if isinstance(node, _SCOPES):
            yield from _uses(node, chain)
        elif isinstance(node, ast.Name) and node.id in visible:
            yield node.lineno, node.col_offset, node.id


def _arguments(scope: _Scope) -> list[ast.arg]:
    """A function's or lambda's parameters (a comprehension has none)."""
    if isinstance(scope, _COMPREHENSIONS):
        return []
    args = scope.args
    return [
        *args.posonlyargs,
        *args.args,
        *([args.vararg] if args.vararg else []),
        *args.kwonlyargs,
        *([args.kwarg] if args.kwarg else []),
    ]


def _own_nodes(scope: _Scope) -> Iterator[ast.AST]:
    """The nodes of `scope` outside its inner scopes, and those inner scopes
    (not their insides); a nested class's body is left out (its names are
    attributes), its methods' too."""
    if isinstance(scope, _COMPREHENSIONS):
        roots: list[ast.AST] = [
            *scope.generators,
            *([scope.key, scope.value] if isinstance(scope, ast.DictComp) else [scope.elt]),
        ]
    elif isinstance(scope, ast.Lambda):
        roots = [scope.body]
    else:
        roots = list(scope.body)
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (*_SCOPES, ast.ClassDef)):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _bound(scope: _Scope) -> frozenset[str]:
    """The names `scope` binds as its own locals: its parameters, what it
    assigns (a for, with or except target, a walrus, a del, a match
    capture), an inner function's or class's name; not what it imports
    (an imported module is an API, `torch_npu`), nor what it declares
    global or nonlocal."""
    names: set[str] = set()
    imported: set[str] = set()
    declared: set[str] = set()
    names.update(a.arg for a in _arguments(scope))
    for node in _own_nodes(scope):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            imported.update((a.asname or a.name).split(".", 1)[0] for a in node.names)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
    return frozenset(names - imported - declared)
