"""HWC201's device-agnostic rewrites, with libcst.

HWC201 finds hard-coded devices in GENERIC and ACCELERATOR test classes; for
those in ACCELERATOR classes its diagnostics plan a rewrite (always unsafe:
it changes what the test runs on). This module makes the rewrite at each
planned place, and only there:

- `device="cuda"` -> `device=device`, `torch.device("cuda")` ->
  `torch.device(device)`, `.to("cuda")` -> `.to(device)`, `.cuda()` ->
  `.to(device)`, inside a function that takes `device` (a test method, or a
  function nested in one); in another method of an instantiated class (a
  helper, `setUp`), `self.device_type` stands for the device;
- `torch.cuda.synchronize()` -> `torch.accelerator.synchronize()` and the
  other one-device calls that hwlint.rules.torch_api maps, anywhere in the class;
- in distributed tests, `"nccl"` (a backend) ->
  `dist.get_default_backend_for_device(device)` (the test's device, else
  `torch.accelerator.current_accelerator()`; always that one where a
  `backend_str` hook returns it), `@requires_nccl()` ->
  `@requires_accelerator_dist_backend()` (hwlint.fix.transform adds the import),
  `f"cuda:{rank}"` -> `f"{self.device_type}:{rank}"` and
  `torch.device("cuda", rank)` -> `torch.device(self.device_type, rank)`
  (the test's `device` names an index already: only its type can take
  another).

What the facts cannot know is decided here, from the tree: which function
encloses the site, whether it takes `device`, whether the call's arguments
fit the replacement. A site that cannot be rewritten keeps its code, and
the reason says why. The rewritten file is verified like every fix
(hwlint.fix.verify.verify_rewrites): it parses, and its facts show the
rewritten sites gone and nothing else changed.
"""

from __future__ import annotations

from functools import partial
from typing import Callable, Literal, NamedTuple, Sequence, TypeVar

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from hwlint.fix.plan_records import SiteRewrite


class RewriteError(Exception):
    """The file cannot be rewritten at all; it is left as it is."""


class _Refused(Exception):
    """One site the tree does not let be rewritten: it keeps its code, and
    the reason says why (raised where a rewrite refuses, caught by
    _Rewriter._attempt)."""


_Node = TypeVar("_Node", bound=cst.CSTNode)


class Outcome(NamedTuple):
    """What rewrite_source made of a module: its bytes, the sites rewritten
    and those kept."""

    fixed: bytes
    done: tuple[SiteRewrite, ...]
    # The sites left as they were, each with why.
    skipped: tuple[tuple[SiteRewrite, str], ...]


def _is_default_index(node: cst.BaseExpression) -> bool:
    """`0`, or a device string naming index 0 or none (`"cuda"`, `"cuda:0"`)."""
    if isinstance(node, cst.Integer):
        return node.evaluated_value == 0
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return isinstance(value, str) and (":" not in value or value.endswith(":0"))
    return False


def _is_computed_index(node: cst.BaseExpression) -> bool:
    """A device index computed at run time (`rank`, `self.rank % n`), not
    a literal (`1`, `"cuda:1"`: a second device) nor a device (`device`)."""
    if isinstance(node, (cst.Integer, cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
        return False
    name = node.value if isinstance(node, cst.Name) else node.attr.value if isinstance(node, cst.Attribute) else ""
    if name in ("device", "devices") or name.endswith("_device"):
        return False  # a device, not its index
    return isinstance(node, (cst.Name, cst.Attribute, cst.BinaryOperation, cst.Subscript))


def dotted_expr(dotted: str) -> cst.BaseExpression:
    """`a.b.c` as a libcst expression (Names and Attributes)."""
    head, *rest = dotted.split(".")
    node: cst.BaseExpression = cst.Name(head)
    for part in rest:
        node = cst.Attribute(node, cst.Name(part))
    return node


def _with_commas(args: Sequence[cst.Arg], last_comma: cst.Comma | cst.MaybeSentinel) -> list[cst.Arg]:
    """Arguments separated by `, `, the last one keeping `last_comma`."""
    out = []
    for index, arg in enumerate(args):
        comma: cst.Comma | cst.MaybeSentinel
        if index < len(args) - 1:
            comma = (
                arg.comma if isinstance(arg.comma, cst.Comma) else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            )
        else:
            comma = last_comma
        out.append(arg.with_changes(comma=comma))
    return out


class _Scope(NamedTuple):
    """A class or function the rewriter is in, with what its parameters and
    decorators say of the device."""

    kind: Literal["class", "function"]
    name: str
    params: frozenset[str]
    first: str | None  # the first positional parameter (self, cls)
    decorators: frozenset[str]


def _function_scope(node: cst.FunctionDef | cst.Lambda) -> _Scope:
    params = node.params
    positional = [*params.posonly_params, *params.params]
    names = {p.name.value for p in (*positional, *params.kwonly_params)}
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            names.add(star.name.value)
    decorators: set[str] = set()
    if isinstance(node, cst.FunctionDef):
        for d in node.decorators:
            expr = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
            if isinstance(expr, cst.Name):
                decorators.add(expr.value)
            elif isinstance(expr, cst.Attribute):
                decorators.add(expr.attr.value)
    name = node.name.value if isinstance(node, cst.FunctionDef) else "<lambda>"
    first = positional[0].name.value if positional else None
    return _Scope("function", name, frozenset(names), first, frozenset(decorators))


def _is_dotted(expr: cst.BaseExpression) -> bool:
    """`torch.cuda.synchronize`: names and attributes, no call in between."""
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    return isinstance(expr, cst.Name)


class _Rewriter(cst.CSTTransformer):
    """Rewrites each planned site it meets (found by the facts' position)
    where the tree lets it; the scopes it is in say what stands for the
    device. Each site ends up in `done` or in `skipped`, with why."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, sites: Sequence[SiteRewrite]) -> None:
        super().__init__()
        self.sites = {(s.line, s.column): s for s in sites}
        self.scopes: list[_Scope] = []
        self.done: list[SiteRewrite] = []
        self.skipped: list[tuple[SiteRewrite, str]] = []

    # -- where we are -------------------------------------------------------

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scopes.append(_Scope("class", node.name.value, frozenset(), None, frozenset()))

    def leave_ClassDef(self, original_node: cst.ClassDef, updated_node: cst.ClassDef) -> cst.ClassDef:
        self.scopes.pop()
        return updated_node

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scopes.append(_function_scope(node))

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        self.scopes.pop()
        return updated_node

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.scopes.append(_function_scope(node))

    def leave_Lambda(self, original_node: cst.Lambda, updated_node: cst.Lambda) -> cst.BaseExpression:
        self.scopes.pop()
        return updated_node

    def _site(self, node: cst.CSTNode) -> SiteRewrite | None:
        start = self.get_metadata(PositionProvider, node).start
        return self.sites.get((start.line, start.column + 1))

    def device(self, site: SiteRewrite) -> cst.BaseExpression:
        """What stands for the test's device here; _Refused saying why nothing does."""
        for scope in reversed(self.scopes):
            if scope.kind == "class":
                break
            if "device" in scope.params:
                return cst.Name("device")
            if "devices" in scope.params:
                raise _Refused(f"{scope.name} takes `devices` (several devices): choose one by hand")
        method = self._method_scope(site)
        if "staticmethod" in method.decorators or method.first is None:
            raise _Refused(f"{method.name} is a static method: it has no `device` and no `self.device_type`")
        if not site.instantiated:
            raise _Refused(
                f"{method.name} takes no `device`, and {site.class_name} is not passed to "
                "instantiate_device_type_tests, so it has no `device_type`"
            )
        return cst.Attribute(cst.Name(method.first), cst.Name("device_type"))

    def takes_device(self) -> bool:
        """Whether a function around here takes `device`: what device() gives is `device`."""
        for scope in reversed(self.scopes):
            if scope.kind == "class" or "device" in scope.params or "devices" in scope.params:
                return "device" in scope.params and scope.kind != "class"
        return False

    def _method_scope(self, site: SiteRewrite) -> _Scope:
        """The method here (the outermost function in the class); _Refused in the class's body."""
        method: _Scope | None = None
        for scope in reversed(self.scopes):
            if scope.kind == "class":
                break
            method = scope
        if method is None:
            raise _Refused(f"in the body of class {site.class_name}, which runs before a device is chosen")
        return method

    def device_type(self, site: SiteRewrite) -> cst.BaseExpression:
        """The class's device type (`self.device_type`) here; else, with
        `torch` imported, the type of the accelerator there is (a helper of
        a class not instantiated per device, a static method); else
        _Refused saying why there is none."""
        try:
            return self._device_type(site)
        except _Refused:
            if not site.imports_torch:
                raise
            return cst.Attribute(cst.Call(dotted_expr("torch.accelerator.current_accelerator")), cst.Name("type"))

    def _device_type(self, site: SiteRewrite) -> cst.BaseExpression:
        method = self._method_scope(site)
        if "staticmethod" in method.decorators or method.first is None:
            raise _Refused(f"{method.name} is a static method: it has no `self.device_type`")
        if not site.instantiated:
            raise _Refused(
                f"{site.class_name} is not passed to instantiate_device_type_tests, so it has no `device_type`"
            )
        return cst.Attribute(cst.Name(method.first), cst.Name("device_type"))

    def _attempt(self, site: SiteRewrite, unchanged: _Node, rewrite: Callable[[], _Node]) -> _Node:
        """The node `rewrite` makes of the site; or, where it refuses, the
        node `unchanged`, the site kept with why (the one place a refusal is caught)."""
        try:
            node = rewrite()
        except _Refused as refusal:
            self.skipped.append((site, str(refusal)))
            return unchanged
        self.done.append(site)
        return node

    # -- the rewrites -------------------------------------------------------

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        call = updated_node
        for index, arg in enumerate(original_node.args):
            typed = self._site(arg.value) if index == 0 or arg.keyword is not None else None
            if typed is not None and typed.kind == "device-type":
                # `device_type="cuda"`, `torch.autocast("cuda")`: a type, never `device` ("cuda:0").
                call = self._attempt(typed, call, partial(self._device_type_argument, typed, call, index))
                continue
            if arg.keyword is not None and arg.keyword.value == "device":
                site = self._site(arg.value)
                func = original_node.func
                if (
                    site is not None
                    and site.kind == "keyword"
                    and isinstance(func, cst.Attribute)
                    and func.attr.value == site.name.partition(":")[0]
                ):
                    # `.cuda(device="cuda:0")`: the method goes too, or it
                    # would name the device once the string is gone.
                    return self._attempt(site, call, partial(self._method, site, call))
                if site is not None and site.kind == "keyword":
                    call = self._attempt(site, call, partial(self._keyword, site, call, index))
            elif (arg.keyword is None and index == 0) or (arg.keyword is not None and arg.keyword.value == "backend"):
                site = self._site(arg.value)
                if site is not None and site.kind == "backend":
                    call = self._attempt(site, call, partial(self._backend, site, call, index))
                elif site is not None and site.kind == "argument":
                    call = self._attempt(site, call, partial(self._keyword, site, call, index))
            elif arg.keyword is None:
                site = self._site(arg.value)
                if site is not None and site.kind == "argument":
                    call = self._attempt(site, call, partial(self._keyword, site, call, index))
        func = original_node.func
        if isinstance(func, cst.Attribute):
            site = self._site(func.attr)
            if site is not None and site.kind in ("method", "to"):
                return self._attempt(
                    site, call, partial(self._method if site.kind == "method" else self._to, site, call)
                )
        # `torch.cuda.current_stream().wait_stream(s)` starts where its inner
        # call does: only a call of the dotted name itself is the site.
        site = self._site(func) if _is_dotted(func) else None
        if site is not None and site.kind == "torch.device":
            return self._attempt(site, call, partial(self._torch_device, site, call))
        if site is not None and site.kind == "module":
            return self._attempt(site, call, partial(self._module, site, call))
        return call

    def _backend(self, site: SiteRewrite, call: cst.Call, index: int) -> cst.Call:
        """`"nccl"` -> `dist.get_default_backend_for_device(device)`."""
        if site.equivalent is None:
            raise _Refused(f'backend "{site.name}" has no device-generic equivalent')
        try:
            device = self.device(site)
        except _Refused as refusal:
            if not site.imports_torch:
                raise _Refused(f"{refusal}, and the file does not `import torch`") from None
            # Outside a test of an instantiated class: the accelerator there is.
            device = cst.Call(dotted_expr("torch.accelerator.current_accelerator"))
        args = list(call.args)
        replacement = cst.Call(dotted_expr(site.equivalent.target), args=[cst.Arg(device)])
        args[index] = args[index].with_changes(value=replacement)
        return call.with_changes(args=args)

    def leave_Return(self, original_node: cst.Return, updated_node: cst.Return) -> cst.Return:
        site = self._site(original_node.value) if original_node.value is not None else None
        if site is None or site.kind != "backend":
            return updated_node
        return self._attempt(site, updated_node, partial(self._returned_backend, site, updated_node))

    def _returned_backend(self, site: SiteRewrite, node: cst.Return) -> cst.Return:
        """`return "nccl"` in a `backend_str` hook -> `return
        dist.get_default_backend_for_device(torch.accelerator.current_accelerator())`:
        the test bases ask the class, not a test, so the accelerator there is
        stands for the device (a class's own `device_type` may be a method)."""
        if site.equivalent is None:
            raise _Refused(f'backend "{site.name}" has no device-generic equivalent')
        if not site.imports_torch:
            raise _Refused("the file does not `import torch`")
        device = cst.Call(dotted_expr("torch.accelerator.current_accelerator"))
        return node.with_changes(value=cst.Call(dotted_expr(site.equivalent.target), args=[cst.Arg(device)]))

    def leave_Decorator(self, original_node: cst.Decorator, updated_node: cst.Decorator) -> cst.Decorator:
        site = self._site(original_node.decorator)
        if site is None or site.kind != "decorator":
            return updated_node
        return self._attempt(site, updated_node, partial(self._decorator, site, updated_node))

    def _decorator(self, site: SiteRewrite, node: cst.Decorator) -> cst.Decorator:
        """`@requires_nccl()` -> `@requires_accelerator_dist_backend()`."""
        if isinstance(node.decorator, cst.Call) and node.decorator.args:
            raise _Refused(f"@{site.name}(...) with arguments: rewrite by hand")
        if site.equivalent is None:
            raise _Refused(f"@{site.name} has no device-generic equivalent")
        return node.with_changes(decorator=cst.Call(cst.Name(site.equivalent.target)))

    def leave_FormattedString(
        self, original_node: cst.FormattedString, updated_node: cst.FormattedString
    ) -> cst.BaseExpression:
        site = self._site(original_node)
        if site is None or site.kind != "fstring":
            return updated_node
        return self._attempt(site, updated_node, partial(self._fstring, site, updated_node))

    def _fstring(self, site: SiteRewrite, node: cst.FormattedString) -> cst.FormattedString:
        """`f"cuda:{rank}"` -> `f"{self.device_type}:{rank}"`."""
        parts = list(node.parts)
        first = parts[0] if parts else None
        if not isinstance(first, cst.FormattedStringText) or first.value != site.name + ":":
            raise _Refused(f'the f-string does not start with "{site.name}:"')
        parts[:1] = [cst.FormattedStringExpression(self.device_type(site)), cst.FormattedStringText(":")]
        return node.with_changes(parts=parts)

    def _device_type_argument(self, site: SiteRewrite, call: cst.Call, index: int) -> cst.Call:
        # The class's own type only: the fallback (the accelerator there is)
        # would be a probe the string was not.
        args = list(call.args)
        args[index] = args[index].with_changes(value=self._device_type(site))
        return call.with_changes(args=args)

    def _keyword(self, site: SiteRewrite, call: cst.Call, index: int) -> cst.Call:
        args = list(call.args)
        args[index] = args[index].with_changes(value=self.device(site))
        return call.with_changes(args=args)

    def _method(self, site: SiteRewrite, call: cst.Call) -> cst.Call:
        """`.cuda(...)` -> `.to(device, ...)`: the device index goes (when it
        is the default one, or the test's `device` already), `non_blocking`
        and `memory_format` stay."""
        kept: list[cst.Arg] = []
        takes_device = self.takes_device()
        indexed: cst.BaseExpression | None = None  # the device with an index computed here (`.cuda(rank)`)
        for arg in call.args:
            keyword = arg.keyword.value if arg.keyword is not None else None
            if arg.star:
                raise _Refused(f".{site.name}() with unpacked arguments: rewrite by hand")
            if keyword in (None, "device") and (
                _is_default_index(arg.value)
                or (indexed is None and takes_device and arg.value.deep_equals(cst.Name("device")))
            ):
                continue
            if keyword in ("non_blocking", "memory_format"):
                kept.append(arg)
                continue
            if keyword in (None, "device") and _is_computed_index(arg.value) and site.imports_torch:
                # `.cuda(rank)` (distributed tests: a device per process):
                # the class's device type with that index.
                device_type = self.device_type(site)
                indexed = cst.Call(
                    dotted_expr("torch.device"),
                    args=[
                        cst.Arg(device_type, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                        cst.Arg(arg.value),
                    ],
                )
                continue
            raise _Refused(
                f".{site.name}() names a device other than the default one, or an argument .to() does not take"
            )
        device = indexed if indexed is not None else self.device(site)
        func = call.func
        assert isinstance(func, cst.Attribute)
        last = call.args[-1].comma if call.args else cst.MaybeSentinel.DEFAULT
        args = _with_commas([cst.Arg(device), *kept], last)
        if call.args:
            # A call split over lines keeps its last line break (rewrites
            # change columns, never lines).
            args[-1] = args[-1].with_changes(whitespace_after_arg=call.args[-1].whitespace_after_arg)
        return call.with_changes(func=func.with_changes(attr=cst.Name("to")), args=args)

    def _to(self, site: SiteRewrite, call: cst.Call) -> cst.Call:
        args = list(call.args)
        args[0] = args[0].with_changes(value=self.device(site))
        return call.with_changes(args=args)

    def _torch_device(self, site: SiteRewrite, call: cst.Call) -> cst.Call:
        args = list(call.args)
        if len(args) > 2 or any(a.keyword is not None or a.star for a in args):
            raise _Refused("torch.device() with arguments other than a device and its index: rewrite by hand")
        if len(args) == 2:
            index = args[1].value
            if isinstance(index, (cst.Integer, cst.SimpleString)) and not _is_default_index(index):
                raise _Refused("torch.device() names a device other than the default one")
            if not _is_default_index(index):
                # A computed index (`torch.device("cuda", rank)`): the test's
                # `device` has one already; the class's device type takes it.
                args[0] = args[0].with_changes(value=self.device_type(site))
                return call.with_changes(args=args)
            args = _with_commas(args[:1], args[1].comma)
        args[0] = args[0].with_changes(value=self.device(site))
        return call.with_changes(args=args)

    def _module(self, site: SiteRewrite, call: cst.Call) -> cst.Call:
        equivalent = site.equivalent
        if equivalent is None:
            raise _Refused(f"{site.name} has no device-generic equivalent")
        positional = [a for a in call.args if a.keyword is None]
        keywords = {a.keyword.value for a in call.args if a.keyword is not None}
        if any(a.star for a in call.args):
            raise _Refused(f"{site.name}() with unpacked arguments: rewrite by hand")
        if (
            keywords == {"device"}
            and "device" not in equivalent.keywords
            and not positional
            and equivalent.max_positional >= 1
        ):
            # `torch.cuda.synchronize(device=d)`: torch.accelerator takes
            # its device positionally only (`device=None, /`).
            (arg,) = call.args
            call = call.with_changes(args=[arg.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)])
            positional, keywords = list(call.args), set()
        if len(positional) > equivalent.max_positional or not keywords <= set(equivalent.keywords):
            raise _Refused(f"{equivalent.target} does not take the arguments {site.name}() is given here")
        return call.with_changes(func=dotted_expr(equivalent.target))


def parse_module(data: bytes, error: type[Exception], *, round_trip: bool = True) -> cst.Module:
    """libcst's tree of a module, or `error` saying in one line why not.

    With `round_trip`, also `error` when libcst does not give the file back
    byte for byte; without it the caller checks what it writes instead
    (`reproduces`, or hwlint.fix.edits.only_inserted)."""
    try:
        module = cst.parse_module(data)
    except cst.ParserSyntaxError as exc:
        raise error(f"libcst cannot parse the file: {str(exc).splitlines()[0]}") from None
    except (RecursionError, MemoryError):
        raise error("libcst cannot parse the file: too deeply nested") from None
    except Exception as exc:  # libcst has no contract for odd input; the file must stay as it is
        raise error(f"libcst cannot parse the file: {type(exc).__name__}: {exc}") from None
    if round_trip:
        reproduces(module, data, error)
    return module


def generate(module: cst.Module, error: type[Exception]) -> bytes:
    """libcst's code for `module`, or `error` saying in one line why not."""
    try:
        return module.bytes
    except (RecursionError, MemoryError):
        raise error("libcst cannot parse the file: too deeply nested") from None
    except Exception as exc:  # as above: no contract for odd input
        raise error(f"libcst cannot parse the file: {type(exc).__name__}: {exc}") from None


def reproduces(module: cst.Module, data: bytes, error: type[Exception]) -> None:
    """`error` unless libcst's code for `module` (parsed from `data`) is `data`."""
    written = generate(module, error)
    if written != data:
        # A rewrite keeps everything else byte for byte only if libcst does:
        # it drops a form feed before a statement and turns bare `\r` line
        # ends into `\n`, for two.
        raise error(
            f"libcst cannot reproduce the file byte for byte ({_first_difference(data, written)}): it is left as it is"
        )


def _first_difference(data: bytes, written: bytes) -> str:
    """Where libcst's output first departs from the file, and what is there."""
    at = next((i for i, (a, b) in enumerate(zip(data, written)) if a != b), min(len(data), len(written)))
    line = data.count(b"\n", 0, at) + data[:at].replace(b"\r\n", b"").count(b"\r") + 1
    near = data[max(0, at - 1) : at + 1]
    what = (
        "a form feed before a statement"
        if b"\f" in near
        else "a bare `\\r` line end"
        if b"\r" in near
        else "a construct it does not keep"
    )
    return f"line {line}: {what}"


def rewrite_source(data: bytes, sites: Sequence[SiteRewrite]) -> Outcome:
    """The module with each site rewritten where the tree allows it; the
    others stay, with the reason. RewriteError when libcst cannot parse it."""
    module = parse_module(data, RewriteError)
    rewriter = _Rewriter(sites)
    try:
        # A freshly parsed module shares no nodes: no need for the copy.
        fixed = MetadataWrapper(module, unsafe_skip_copy=True).visit(rewriter)
    except (RecursionError, MemoryError):
        raise RewriteError("the file is too deeply nested to rewrite") from None
    seen = {(s.line, s.column) for s in rewriter.done} | {(s.line, s.column) for s, _ in rewriter.skipped}
    skipped = list(rewriter.skipped)
    skipped += [(s, "not found where the facts put it") for s in sites if (s.line, s.column) not in seen]
    return Outcome(fixed.bytes if rewriter.done else data, tuple(rewriter.done), tuple(skipped))
