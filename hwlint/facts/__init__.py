"""Facts: what a test module contains, reduced to small plain records.

The module is parsed once with the standard library's `ast`, walked once, and
the tree is dropped: rules never see syntax, only these records. They are
small and picklable, so worker processes send them back cheaply and a cache
can keep them.
"""

# No `from __future__ import annotations` here: typing.NamedTuple compiles each
# string annotation into a ForwardRef, a third of this module's import time.

import ast
import bisect
import gc
import marshal
import re
import warnings
import zlib
from typing import Any, Iterable, Iterator, NamedTuple, Sequence

from hwlint.facts.read import ReadError, read_source

INSTANTIATE = "instantiate_device_type_tests"


class _LazyPattern:
    """re.compile on first use: compiling these costs ~5 ms, a tenth of
    `hwlint check` on one file, and most files need none of them."""

    __slots__ = ("_args", "_compiled")

    def __init__(self, *args: Any) -> None:
        self._args = args
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(*self._args)
        return getattr(compiled, name)


# Lines end where Python's tokenizer says they do (str.splitlines would also
# split on form feeds and other characters Python treats as whitespace).
_NEWLINE = _LazyPattern(r"\r\n|\r|\n")
_NOQA = _LazyPattern(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]*(?:[\s,]+[A-Z]+[0-9]*)*))?", re.IGNORECASE)
_SKIP_FILE = _LazyPattern(r"#\s*hwlint:\s*skip-file\b")


class Accelerators(NamedTuple):
    """What counts as using an accelerator. The defaults are PyTorch's own;
    an out-of-tree backend adds its module, flags and device name through
    the `extend-accelerator-modules`, `extend-accelerator-flags` and
    `extend-devices` settings (hwlint.core.config)."""

    # A call whose callee starts with `torch` and has one of these segments
    # (`torch.cuda.is_available()`, `torch.empty(4).cuda()`,
    # `torch.backends.mps.is_available()`, `torch.ops.xla.add()`) is
    # accelerator use: TEST_LINTER's [accelerator_availability] test, kept
    # exactly so that hwlint reports at least what it reports.
    segments: tuple[str, ...] = ("accelerator", "cuda", "hpu", "ipu", "mps", "mtia", "xla", "xpu")
    # Calls into these are accelerator use too (PrivateUse1 backends, which
    # TEST_LINTER does not know); calls into them other than a question
    # (`is_available()`) are also device-specific use (HWC201).
    device_modules: tuple[str, ...] = ("torch.cuda", "torch.xpu", "torch.mps", "torch.npu")
    flags: tuple[str, ...] = ("TEST_CUDA", "TEST_XPU", "TEST_MPS", "TEST_MULTIGPU", "TEST_CUDNN", "TEST_PRIVATEUSE1",
                              "TEST_NPU")
    # Device names: `device="cuda"`, `.to("cuda:1")`, `torch.device("cuda")`.
    devices: tuple[str, ...] = ("cuda", "xpu", "mps", "npu", "hpu")
    # Tensor methods that move to a device: `.cuda()`.
    methods: tuple[str, ...] = ("cuda", "xpu", "npu")

    def extended(self, modules: Sequence[str] = (), flags: Sequence[str] = (),
                 devices: Sequence[str] = ()) -> "Accelerators":
        """These, plus a backend's own (a backend's device name is also a
        tensor method: `generate_methods_for_privateuse1_backend`)."""
        def add(old: tuple[str, ...], new: Sequence[str]) -> tuple[str, ...]:
            return old + tuple(x for x in dict.fromkeys(new) if x not in old)

        return Accelerators(self.segments, add(self.device_modules, modules), add(self.flags, flags),
                            add(self.devices, devices), add(self.methods, devices))


DEFAULT_ACCELERATORS = Accelerators()


class _Vocabulary:
    """An Accelerators compiled for matching: sets, and the regexes (on first use)."""

    def __init__(self, acc: Accelerators) -> None:
        self.device_modules = acc.device_modules
        self.segments = frozenset(acc.segments)
        self.flags = frozenset(acc.flags)
        self.methods = frozenset(acc.methods)
        names = "|".join(re.escape(d) for d in acc.devices)
        self.device_string = _LazyPattern(rf"^(?:{names})(?::\d+)?$")
        # Cheap text test run before walking a class body for probes and
        # devices: most classes mention no accelerator at all, and a regex
        # over the text costs far less than a walk of the tree. A call into
        # an accelerator has one of its lines holding `.cuda` (a segment
        # after a dot) or a configured module.
        self.text = _LazyPattern(
            rf"(?:{'|'.join(re.escape(m) for m in self.device_modules)})\b"
            rf"|\.\s*(?:{'|'.join(re.escape(s) for s in acc.segments)})\b"
            rf"|\b(?:{'|'.join(re.escape(f) for f in acc.flags)})\b"
            rf"|\.(?:{'|'.join(re.escape(m) for m in acc.methods)})\("
            rf"|[\"'](?:{names})(?::\d+)?[\"']"
        )
        # Every match of `text` contains one of these substrings, and no
        # match spans lines: `str.find` for them (fast C) picks the candidate
        # lines, and the regex confirms each one. Scanning whole class texts
        # with the regex itself cost more than half as much as parsing them.
        # PyTorch's own are picked by hand ("npu" alone would hit every
        # "input"); a backend's are added whole.
        tokens = [*acc.segments, "TEST_", "torch.npu", ".npu(", '"npu', "'npu"]
        default = DEFAULT_ACCELERATORS
        tokens += [m for m in acc.device_modules if m not in default.device_modules]
        tokens += [f for f in acc.flags if f not in default.flags]
        for device in acc.devices:
            if device not in default.devices:
                tokens += [f'"{device}', f"'{device}", f".{device}("]
        # A token that contains another finds nothing more (lines are what count).
        self.tokens = tuple(t for t in dict.fromkeys(tokens)
                            if not any(o != t and o in t for o in tokens))


_VOCABULARIES: dict[Accelerators, _Vocabulary] = {}


def _vocabulary(acc: Accelerators) -> _Vocabulary:
    vocabulary = _VOCABULARIES.get(acc)
    if vocabulary is None:
        vocabulary = _VOCABULARIES[acc] = _Vocabulary(acc)
    return vocabulary


# Calls into a device module that only ask a question: probes, not hard-coded use.
_QUESTIONS = frozenset({"is_available", "device_count", "is_built", "is_bf16_supported"})


class Value(NamedTuple):
    """The right-hand side of a classification declaration."""

    kind: str  # "member" (Enum.X), "string", "missing" (annotation only), "other"
    text: str  # the member name, the string, or the expression's source


class Declaration(NamedTuple):
    line: int
    column: int
    value: Value
    where: str  # "body" (in the class) or "module" (TestFoo.attr = ... after it)


class Method(NamedTuple):
    name: str
    line: int
    column: int
    params: tuple[str, ...]
    decorators: tuple[str, ...]  # last component of each decorator's name


class Site(NamedTuple):
    """A place in the source: an accelerator probe or a hard-coded device."""

    line: int
    column: int
    text: str
    # What is there. For probes, what the code does: "probe" (asks about
    # the accelerator: `torch.cuda.is_available()`), "use" (runs on it:
    # `torch.empty(4).cuda()`, `torch.cuda.synchronize()`), "flag"
    # (`TEST_CUDA`). For hard-coded devices (HWC201's rewrites): "keyword"
    # (`device="cuda"`), "method" (`.cuda()`), "torch.device", "to"
    # (`.to("cuda")`) or "module" (`torch.cuda.synchronize()`), and `name` is
    # the device string, the method, or the module function's dotted name.
    kind: str = ""
    name: str = ""


class Branch(NamedTuple):
    """Where a statement sits among if/try/match arms, to tell apart
    definitions that can both run from alternatives of which one runs."""

    path: tuple[tuple[int, int, int], ...] = ()  # (line, column, arm) per enclosing statement

    def excludes(self, other: "Branch") -> bool:
        for mine, theirs in zip(self.path, other.path):
            if mine[:2] != theirs[:2]:
                return False
            if mine[2] != theirs[2]:
                return True
        return False


class ClassFacts(NamedTuple):
    name: str
    line: int
    column: int
    end_line: int
    bases: tuple[str, ...]  # dotted source of each base; "" when not a plain name
    methods: tuple[Method, ...]  # its own test methods
    declarations: tuple[Declaration, ...]
    probes: tuple[Site, ...]
    devices: tuple[Site, ...]  # hard-coded device uses
    decorators: tuple[str, ...]
    branch: Branch = Branch()
    body_line: int = 0  # first statement of the body (after the docstring), for fixes
    has_docstring: bool = False
    # Where the class's tests need an accelerator to run at all (hwlint.rules.infer:
    # such a class is no GENERIC): a decorator on the class or a test
    # (`@skip_if_lt_x_gpu(2)`, `@requires_nccl()`, `@skipIf(not TEST_CUDA, ...)`),
    # a skip in setUp/setUpClass when there is none, a device from
    # `get_devtype()`. kind: where it is: "class" (a decorator on the class),
    # "test" (on a test method: the next method in `methods`), "setup" or
    # "devtype"; name: the device needed ("cuda", "npu", ...) or "" for any
    # accelerator.
    requires: tuple[Site, ...] = ()


class Instantiation(NamedTuple):
    line: int
    column: int
    class_name: str | None
    only_for: tuple[str, ...] | None  # None: not given; () : given but not literal
    except_for: tuple[str, ...] | None
    allow_mps: bool
    allow_xpu: bool
    branch: Branch = Branch()


class Import(NamedTuple):
    module: str  # the module named, without leading dots
    level: int  # leading dots of a relative import
    name: str | None  # the imported name, None for `import module`
    asname: str  # the local name it is bound to


class Dynamic(NamedTuple):
    """A statement that may make, publish or change test classes at run
    time, where hwlint cannot see the result (hwlint.rules.uncertain judges it)."""

    line: int
    column: int
    # "call": `[Name =] f(...)` at module level, bound to a name or published
    #   (target "globals()"); "publish": classes put in the module's
    #   namespace by globals()/setattr on the module; "setattr": an attribute
    #   set on a class (`setattr(C, name, f)`, `C.test_x = f`), args[0] the
    #   attribute's name when literal; "classification": the attribute set on
    #   a name that is not a class of the module (a loop variable).
    kind: str
    func: str  # the called function's last name; "" when none
    target: str  # the name bound or the class named; "" when not a plain name
    args: tuple  # positional arguments: a plain name or a string's value; None otherwise


class ModuleFacts(NamedTuple):
    path: str
    error: ReadError | None = None
    skip_file: bool = False
    # None: every code. Never mutated: the default {} is shared.
    noqa: dict[int, frozenset[str] | None] = {}
    classes: tuple[ClassFacts, ...] = ()
    instantiations: tuple[Instantiation, ...] = ()
    imports: tuple[Import, ...] = ()
    lines: int = 0
    # Lines outside classes and imports that mention an accelerator (a
    # module-level `device = torch.device("xpu")` a class may use): weaker
    # evidence for `hwlint fix` that a class without its own is GENERIC.
    accelerator_lines: tuple[int, ...] = ()
    dynamic: tuple[Dynamic, ...] = ()

    def suppressed(self, line: int, code: str) -> bool:
        if line not in self.noqa:
            return False
        codes = self.noqa[line]
        return codes is None or any(code.startswith(c) for c in codes)


def _dotted(node: ast.expr) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _strings(node: ast.expr) -> tuple[str, ...]:
    """A literal device list (`"cuda"`, `("cpu", "cuda")`) as a tuple; () when not literal."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return (node.value,)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts
    ):
        return tuple(e.value for e in node.elts)  # type: ignore[attr-defined]
    return ()


class _Extractor:
    def __init__(self, lines: Sequence[str], attribute: str, text: str | None = None,
                 accelerators: Accelerators = DEFAULT_ACCELERATORS) -> None:
        self.lines = lines
        self.attribute = attribute
        self.vocabulary = _vocabulary(accelerators)
        # The module with "\n" line ends, when the caller has it at hand.
        self._text = text
        # Sorted numbers of the lines where the vocabulary's text matches in the
        # whole module, computed when the first class needs them.
        self._hits: list[int] | None = None
        self._devtype: list[int] | None = None
        self.module_mentions: list[int] = []
        self.classes: list[ClassFacts] = []
        self.instantiations: list[Instantiation] = []
        self.imports: list[Import] = []
        self.module_declarations: list[tuple[str, Declaration]] = []

    def column(self, line: int, col_offset: int) -> int:
        """1-based character column; ast gives UTF-8 byte offsets."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if text.isascii():
            return col_offset + 1
        return len(text.encode("utf-8")[:col_offset].decode("utf-8", errors="ignore")) + 1

    # -- module level -----------------------------------------------------

    def hits(self) -> list[int]:
        """Lines mentioning an accelerator, found once per module on demand."""
        if self._hits is None:
            text = self._text if self._text is not None else "\n".join(self.lines)
            self._hits = accelerator_lines(text, self.lines, self.vocabulary)
        return self._hits

    def devtype_lines(self) -> list[int]:
        """Lines calling get_devtype() (PyTorch's FSDP/DTensor tests take
        their device from it: the accelerator there is), found once."""
        if self._devtype is None:
            text = self._text if self._text is not None else "\n".join(self.lines)
            found: list[int] = []
            at = text.find("get_devtype(")
            while at != -1:
                line = text.count("\n", 0, at) + 1
                if not found or found[-1] != line:
                    found.append(line)
                at = text.find("get_devtype(", at + 1)
            self._devtype = found
        return self._devtype

    def note_module_mention(self, first: int, last: int) -> None:
        for hits in (self.hits(), self.devtype_lines()):
            index = bisect.bisect_left(hits, first)
            if index < len(hits) and hits[index] <= last:
                self.module_mentions.append(hits[index])
                return

    def block(self, body: Iterable[ast.stmt], branch: Branch, loops: dict[str, tuple[str, ...]]) -> None:
        for stmt in body:
            kind = type(stmt)
            if kind not in _NOT_MENTIONS and not _is_instantiation(stmt):
                self.note_module_mention(stmt.lineno, stmt.end_lineno or stmt.lineno)
            elif kind is ast.If or kind is ast.While:
                test = stmt.test  # type: ignore[attr-defined]
                self.note_module_mention(test.lineno, test.end_lineno or test.lineno)
            if kind is ast.ClassDef:
                self.classes.append(self.klass(stmt, branch))  # type: ignore[arg-type]
            elif kind is ast.Expr:
                self.maybe_instantiation(stmt.value, branch, loops)  # type: ignore[attr-defined]
            elif kind is ast.Assign:
                self.assignment(stmt, branch, loops)  # type: ignore[arg-type]
            elif kind is ast.ImportFrom:
                for alias in stmt.names:  # type: ignore[attr-defined]
                    self.imports.append(
                        Import(stmt.module or "", stmt.level, alias.name, alias.asname or alias.name)  # type: ignore[attr-defined]
                    )
            elif kind is ast.Import:
                for alias in stmt.names:  # type: ignore[attr-defined]
                    local = alias.asname or alias.name.split(".")[0]
                    self.imports.append(Import(alias.name if alias.asname else local, 0, None, local))
            elif kind is ast.If:
                key = (stmt.lineno, stmt.col_offset)
                self.block(stmt.body, Branch(branch.path + (key + (0,),)), loops)  # type: ignore[attr-defined]
                self.block(stmt.orelse, Branch(branch.path + (key + (1,),)), loops)  # type: ignore[attr-defined]
            elif kind is ast.Try or kind.__name__ == "TryStar":
                key = (stmt.lineno, stmt.col_offset)
                self.block(stmt.body, Branch(branch.path + (key + (0,),)), loops)  # type: ignore[attr-defined]
                for arm, handler in enumerate(stmt.handlers, start=1):  # type: ignore[attr-defined]
                    self.block(handler.body, Branch(branch.path + (key + (arm,),)), loops)
                self.block(stmt.orelse, Branch(branch.path + (key + (0,),)), loops)  # type: ignore[attr-defined]
                self.block(stmt.finalbody, branch, loops)  # type: ignore[attr-defined]
            elif kind in (ast.For, ast.AsyncFor):
                inner = dict(loops)
                target, it = stmt.target, stmt.iter  # type: ignore[attr-defined]
                if isinstance(target, ast.Name) and isinstance(it, (ast.Tuple, ast.List)):
                    names = tuple(e.id for e in it.elts if isinstance(e, ast.Name))
                    if len(names) == len(it.elts):
                        inner[target.id] = names
                self.block(stmt.body, branch, inner)  # type: ignore[attr-defined]
                self.block(stmt.orelse, branch, loops)  # type: ignore[attr-defined]
            elif kind in (ast.While, ast.With, ast.AsyncWith):
                self.block(stmt.body, branch, loops)  # type: ignore[attr-defined]
                self.block(getattr(stmt, "orelse", ()), branch, loops)
            elif kind is ast.Match:
                key = (stmt.lineno, stmt.col_offset)
                for arm, case in enumerate(stmt.cases):  # type: ignore[attr-defined]
                    self.block(case.body, Branch(branch.path + (key + (arm,),)), loops)

    def assignment(self, stmt: ast.Assign, branch: Branch, loops: dict[str, tuple[str, ...]]) -> None:
        for target in stmt.targets:
            if (
                isinstance(target, ast.Attribute)
                and target.attr == self.attribute
                and isinstance(target.value, ast.Name)
            ):
                decl = Declaration(
                    stmt.lineno, self.column(stmt.lineno, stmt.col_offset), _value(stmt.value), "module"
                )
                for name in loops.get(target.value.id, (target.value.id,)):
                    self.module_declarations.append((name, decl))
        self.maybe_instantiation(stmt.value, branch, loops)

    def maybe_instantiation(self, node: ast.expr, branch: Branch, loops: dict[str, tuple[str, ...]]) -> None:
        if not isinstance(node, ast.Call):
            return
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name != INSTANTIATE:
            return
        target: ast.expr | None = node.args[0] if node.args else None
        only_for = except_for = None
        allow_mps = allow_xpu = False
        for kw in node.keywords:
            if kw.arg == "generic_test_class":
                target = kw.value
            elif kw.arg == "only_for":
                only_for = _strings(kw.value)
            elif kw.arg == "except_for":
                except_for = _strings(kw.value)
            elif kw.arg in ("allow_mps", "allow_xpu"):
                # Anything but a literal False may allow it at run time.
                allowed = not (isinstance(kw.value, ast.Constant) and not kw.value.value)
                if kw.arg == "allow_mps":
                    allow_mps = allowed
                else:
                    allow_xpu = allowed
        names: tuple[str | None, ...] = (None,)
        if isinstance(target, ast.Name):
            names = loops.get(target.id, (target.id,))
        for class_name in names:
            self.instantiations.append(
                Instantiation(
                    node.lineno,
                    self.column(node.lineno, node.col_offset),
                    class_name,
                    only_for,
                    except_for,
                    allow_mps,
                    allow_xpu,
                    branch,
                )
            )

    # -- classes ----------------------------------------------------------

    def klass(self, node: ast.ClassDef, branch: Branch) -> ClassFacts:
        methods: list[Method] = []
        declarations: list[Declaration] = []
        requires: list[Site] = []
        for decorator in node.decorator_list:
            self.requirement(decorator, requires, "class")
        self.class_body(node.body, methods, declarations, requires)
        body = node.body
        has_doc = bool(
            body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        )
        first = body[1] if has_doc and len(body) > 1 else body[0]
        end = node.end_lineno or node.lineno
        probes: tuple[Site, ...] = ()
        devices: tuple[Site, ...] = ()
        start = node.decorator_list[0].lineno if node.decorator_list else node.lineno
        hits = self.hits()
        hit_lines = hits[bisect.bisect_left(hits, start) : bisect.bisect_right(hits, end)]
        if hit_lines:
            probes, devices = self.accelerator_sites(node, hit_lines)
        devtype = self.devtype_lines()
        for line in devtype[bisect.bisect_left(devtype, start) : bisect.bisect_right(devtype, end)]:
            at = self.lines[line - 1].find("get_devtype(")
            requires.append(Site(line, self.column(line, len(self.lines[line - 1][:at].encode("utf-8"))),
                                 "get_devtype()", "devtype", ""))
        return ClassFacts(
            name=node.name,
            line=node.lineno,
            column=self.column(node.lineno, node.col_offset),
            end_line=end,
            bases=tuple(_dotted(b) for b in node.bases),
            methods=tuple(methods),
            declarations=tuple(declarations),
            probes=probes,
            devices=devices,
            decorators=tuple(_decorator_name(d) for d in node.decorator_list),
            branch=branch,
            body_line=first.lineno,
            has_docstring=has_doc,
            requires=tuple(sorted(requires, key=_site_key)),
        )

    def class_body(self, body: Iterable[ast.stmt], methods: list[Method], declarations: list[Declaration],
                   requires: list[Site]) -> None:
        for stmt in body:
            kind = type(stmt)
            if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                name = stmt.name  # type: ignore[attr-defined]
                if name.startswith("test"):
                    methods.append(self.method(stmt, requires))  # type: ignore[arg-type]
                elif name in ("setUp", "setUpClass"):
                    self.setup_skips(stmt.body, requires)  # type: ignore[attr-defined]
            elif kind is ast.Assign:
                for target in stmt.targets:  # type: ignore[attr-defined]
                    if isinstance(target, ast.Name) and target.id == self.attribute:
                        declarations.append(
                            Declaration(stmt.lineno, self.column(stmt.lineno, stmt.col_offset), _value(stmt.value), "body")  # type: ignore[attr-defined]
                        )
            elif kind is ast.AnnAssign:
                target = stmt.target  # type: ignore[attr-defined]
                if isinstance(target, ast.Name) and target.id == self.attribute:
                    value = _value(stmt.value) if stmt.value is not None else Value("missing", "")  # type: ignore[attr-defined]
                    declarations.append(Declaration(stmt.lineno, self.column(stmt.lineno, stmt.col_offset), value, "body"))
            elif kind is ast.If:
                self.class_body(stmt.body, methods, declarations, requires)  # type: ignore[attr-defined]
                self.class_body(stmt.orelse, methods, declarations, requires)  # type: ignore[attr-defined]
            elif kind is ast.Try:
                for part in (stmt.body, stmt.orelse, stmt.finalbody):  # type: ignore[attr-defined]
                    self.class_body(part, methods, declarations, requires)
                for handler in stmt.handlers:  # type: ignore[attr-defined]
                    self.class_body(handler.body, methods, declarations, requires)

    def method(self, node: ast.FunctionDef | ast.AsyncFunctionDef, requires: list[Site]) -> Method:
        args = node.args
        params = [a.arg for a in (*args.posonlyargs, *args.args)]
        if params and params[0] in ("self", "cls"):
            params = params[1:]
        params += [a.arg for a in args.kwonlyargs]
        for decorator in node.decorator_list:
            self.requirement(decorator, requires, "test")
        return Method(
            node.name,
            node.lineno,
            self.column(node.lineno, node.col_offset),
            tuple(params),
            tuple(_decorator_name(d) for d in node.decorator_list),
        )

    def requirement(self, decorator: ast.expr, requires: list[Site], kind: str) -> None:
        """A decorator that skips its test or class unless an accelerator is there."""
        name = _decorator_name(decorator)
        if not name:
            return
        device: str | None
        lowered = name.lower()
        if "skip" not in lowered and "requires" not in lowered:
            return  # most decorators (@dtypes, @parametrize, @slowTest): no regex
        if lowered in ("skipif", "skipunless"):
            if not isinstance(decorator, ast.Call) or not decorator.args:
                return
            device = _guard_device(decorator.args[0], lowered == "skipif")
        else:
            device = _required_device(name)
        if device is not None:
            requires.append(Site(decorator.lineno, self.column(decorator.lineno, decorator.col_offset),
                                 _decorator_text(decorator), kind, device))

    def setup_skips(self, body: Iterable[ast.stmt], requires: list[Site]) -> None:
        """`if not torch.cuda.is_available(): self.skipTest(...)` (or `raise
        unittest.SkipTest(...)`) at the top level of setUp/setUpClass: every
        test of the class skips without the accelerator."""
        for stmt in body:
            if not isinstance(stmt, ast.If) or not any(_is_skip(s) for s in stmt.body):
                continue
            device = _guard_device(stmt.test, True)
            if device is not None:
                requires.append(Site(stmt.lineno, self.column(stmt.lineno, stmt.col_offset),
                                     "setUp: if " + _short(stmt.test) + ": skip", "setup", device))

    def accelerator_sites(self, node: ast.ClassDef, hit_lines: list[int]) -> tuple[tuple[Site, ...], tuple[Site, ...]]:
        # Keyed by the node's whole span: `torch.cuda.get_device_name(0).lower()`
        # is two calls into CUDA that start at the same place, and TEST_LINTER
        # counts both.
        probes: dict[tuple[int, int, int, int], Site] = {}
        devices: dict[tuple[int, int], Site] = {}
        vocabulary = self.vocabulary
        for sub in _walk_lines(node, hit_lines):
            kind = type(sub)
            if kind is ast.Name:
                if sub.id in vocabulary.flags:  # type: ignore[attr-defined]
                    line, col = sub.lineno, sub.col_offset  # type: ignore[attr-defined]
                    probes[(line, col, line, col)] = Site(line, self.column(line, col), sub.id, "flag")  # type: ignore[attr-defined]
            elif kind is ast.Call:
                probe = self.accelerator_call(sub)  # type: ignore[arg-type]
                if probe is not None:
                    probes[(sub.lineno, sub.col_offset, sub.end_lineno or 0, sub.end_col_offset or 0)] = probe  # type: ignore[attr-defined]
                site = self.device_use(sub)  # type: ignore[arg-type]
                if site is not None:
                    devices[(site.line, site.column)] = site
        return tuple(sorted(probes.values(), key=_site_key)), tuple(sorted(devices.values(), key=_site_key))

    def accelerator_call(self, call: ast.Call) -> Site | None:
        """A call into an accelerator, as TEST_LINTER sees one (a callee
        rooted at `torch` with a segment such as `cuda`), or into one of the
        configured modules. A module only named, not called (a patch target,
        an annotation, an isinstance type), is not one."""
        func = call.func
        if not isinstance(func, ast.Attribute):
            return None
        chain = _callee(func)
        if chain is None:
            return None
        prefix, text, plain = chain
        vocabulary = self.vocabulary
        found = any(prefix.startswith(m + ".") for m in vocabulary.device_modules)
        if not found and prefix.split(".", 1)[0] == "torch":
            if plain:
                found = not vocabulary.segments.isdisjoint(prefix.split("."))
            else:
                # TEST_LINTER splits the callee's source on dots, arguments
                # included (`torch.randn(2, device=torch.cuda.current_device()).sum()`
                # counts): the same test, on the same text.
                parts = ast.unparse(func).split(".")
                found = parts[0] == "torch" and not vocabulary.segments.isdisjoint(parts)
                if found and vocabulary.segments.isdisjoint(_attributes(func)):
                    # The accelerator is in an argument: show it.
                    text = ast.unparse(call)
                    text = text if len(text) <= 80 else text[:77] + "..."
        if not found:
            return None
        what = "probe" if _is_question(func.attr) else "use"
        return Site(call.lineno, self.column(call.lineno, call.col_offset), text, what)

    def device_use(self, call: ast.Call) -> Site | None:
        func = call.func
        vocabulary = self.vocabulary
        where = (call.lineno, self.column(call.lineno, call.col_offset))
        for kw in call.keywords:
            if kw.arg == "device" and _is_device_string(kw.value, vocabulary):
                value = kw.value.value  # type: ignore[attr-defined]
                return Site(kw.value.lineno, self.column(kw.value.lineno, kw.value.col_offset), f'device="{value}"', "keyword", value)
        if isinstance(func, ast.Attribute):
            if func.end_lineno is not None and func.end_col_offset is not None:
                # Point at the method name, not at the start of a long chain.
                attr_at = func.end_col_offset - len(func.attr)
                method_at = (func.end_lineno, self.column(func.end_lineno, attr_at))
            else:
                method_at = where
            dotted = _dotted(func)
            in_module = any(dotted.startswith(m + ".") for m in vocabulary.device_modules)
            if func.attr in vocabulary.methods and not in_module and not dotted.startswith("torch."):
                return Site(*method_at, f".{func.attr}()", "method", func.attr)
            if dotted in ("torch.device",) or func.attr == "to":
                if call.args and _is_device_string(call.args[0], vocabulary):
                    value = call.args[0].value  # type: ignore[attr-defined]
                    if dotted == "torch.device":
                        return Site(*where, f'torch.device("{value}")', "torch.device", value)
                    return Site(*method_at, f'.to("{value}")', "to", value)
            if in_module and func.attr not in _QUESTIONS:
                return Site(*where, f"{dotted}()", "module", dotted)
        return None


# -- dynamic test classes ----------------------------------------------------
#
# What the runtime may collect that the class statements do not show:
# classes made by calls and published into the module, test methods added
# after the class statement, the attribute set through a variable. Only
# module-level statements are looked at (plus setattr anywhere): what a test
# module does at import time.

def _namespace(node: ast.expr) -> bool:
    """`globals()`, `vars()`, `locals()` at module level, `sys.modules[__name__]`."""
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id in ("globals", "vars", "locals") and not node.args
    return (isinstance(node, ast.Subscript) and _dotted(node.value) == "sys.modules"
            and isinstance(node.slice, ast.Name) and node.slice.id == "__name__")


def _static(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


class _DynamicFinder:
    def __init__(self, extractor: _Extractor, classes: set[str]) -> None:
        self.column = extractor.column
        self.attribute = extractor.attribute
        self.classes = classes
        self.found: list[Dynamic] = []

    def add(self, node: ast.AST, kind: str, func: str = "", target: str = "", args: tuple = ()) -> None:  # type: ignore[type-arg]
        line = node.lineno  # type: ignore[attr-defined]
        self.found.append(Dynamic(line, self.column(line, node.col_offset), kind, func, target, args))  # type: ignore[attr-defined]

    def call(self, node: ast.Call, target: str) -> None:
        func = _dotted(node.func).rsplit(".", 1)[-1]
        if func == INSTANTIATE:
            return
        args = node.args
        if func == "setattr" and len(args) >= 2:
            if _namespace(args[0]):
                self.add(node, "publish", func)
                return
            name = _static(args[1]) if isinstance(args[1], ast.Constant) else None
            owner = args[0].id if isinstance(args[0], ast.Name) else ""
            if name == self.attribute:
                self.add(node, "classification", func, owner)
            elif name is None or name.startswith("test"):
                self.add(node, "setattr", func, owner, (name,))
            return
        if isinstance(node.func, ast.Attribute) and node.func.attr == "update" and _namespace(node.func.value):
            inner = args[0] if args else None
            if isinstance(inner, ast.Call):
                self.call(inner, "globals()")
            else:
                self.add(node, "publish", "update")
            return
        if any(_namespace(a) for a in (*args, *(k.value for k in node.keywords))):
            self.add(node, "publish", func)  # f(..., globals()): it may put classes there
            return
        positional = tuple(_static(a) for a in args)
        # `device = torch.device("cpu")` makes no class; `TestFooDyn = f(...)`,
        # `type(...)` and calls given a class may.
        if (target and ("Test" in target or target == "globals()")) or func == "type" or any(
                isinstance(a, ast.Name) for a in args):
            self.add(node, "call", func, target, positional)

    def assign(self, stmt: ast.Assign | ast.AnnAssign, targets: list[ast.expr], loops: dict[str, tuple[str, ...]]) -> None:
        value = stmt.value
        for target in targets:
            if isinstance(target, ast.Subscript) and _namespace(target.value):
                if isinstance(value, ast.Call):
                    self.call(value, "globals()")
                else:
                    self.add(stmt, "publish", "")
            elif isinstance(target, ast.Attribute):
                owner = target.value
                if _namespace(owner):
                    self.add(stmt, "publish", "")
                elif isinstance(owner, ast.Name):
                    names = loops.get(owner.id, (owner.id,))
                    if target.attr == self.attribute:
                        # TestFoo.attr = ... on a class of the module is a Declaration.
                        for name in names:
                            if name not in self.classes:
                                self.add(stmt, "classification", "", name)
                    elif target.attr.startswith("test"):
                        for name in names:
                            self.add(stmt, "setattr", "", name, (target.attr,))
            elif isinstance(target, ast.Name) and isinstance(value, ast.Call):
                self.call(value, target.id)

    def block(self, body: Iterable[ast.stmt], loops: dict[str, tuple[str, ...]]) -> None:
        for stmt in body:
            if isinstance(stmt, ast.Expr):
                if isinstance(stmt.value, ast.Call):
                    self.call(stmt.value, "")
            elif isinstance(stmt, ast.Assign):
                self.assign(stmt, stmt.targets, loops)
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                self.assign(stmt, [stmt.target], loops)
            elif isinstance(stmt, (ast.For, ast.AsyncFor)):
                inner = dict(loops)
                target, it = stmt.target, stmt.iter
                if isinstance(target, ast.Name):
                    inner.pop(target.id, None)
                    if isinstance(it, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in it.elts):
                        inner[target.id] = tuple(e.id for e in it.elts)  # type: ignore[attr-defined]
                    else:
                        inner[target.id] = ("",)  # a variable: not a class name
                self.block(stmt.body, inner)
                self.block(stmt.orelse, loops)
            elif isinstance(stmt, (ast.If, ast.While, ast.With, ast.AsyncWith, ast.Try)) or type(stmt).__name__ == "TryStar":
                for part in ("body", "orelse", "finalbody"):
                    self.block(getattr(stmt, part, ()), loops)
                for handler in getattr(stmt, "handlers", ()):
                    self.block(handler.body, loops)
            elif isinstance(stmt, ast.Match):
                for case in stmt.cases:
                    self.block(case.body, loops)

    def setattrs_in_functions(self, tree: ast.Module) -> None:
        """setattr(cls, name, fn) in a function the module calls at import
        (PyTorch's generate_tests(cls) helpers)."""
        for stmt in tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for node in ast.walk(stmt):
                    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr":
                        self.call(node, "")


def dynamic_sites(tree: ast.Module, source: str, extractor: _Extractor) -> tuple[Dynamic, ...]:
    finder = _DynamicFinder(extractor, {c.name for c in extractor.classes})
    finder.block(tree.body, {})
    if "setattr" in source:
        finder.setattrs_in_functions(tree)
    return tuple(sorted(dict.fromkeys(finder.found), key=lambda d: (d.line, d.column)))


def accelerator_lines(text: str, lines: Sequence[str], vocabulary: _Vocabulary | None = None) -> list[int]:
    """Sorted 1-based numbers of the lines that mention an accelerator.

    `text` is the module with `\n` line ends (the source itself when it has
    no `\r`), `lines` its lines."""
    vocabulary = vocabulary or _vocabulary(DEFAULT_ACCELERATORS)
    pattern = vocabulary.text
    positions: list[int] = []
    for token in vocabulary.tokens:
        at = text.find(token)
        while at != -1:
            positions.append(at)
            at = text.find(token, at + 1)
    if not positions:
        return []
    positions.sort()
    found: list[int] = []
    line, previous = 1, 0
    for at in positions:
        line += text.count("\n", previous, at)
        previous = at
        if (not found or found[-1] != line) and pattern.search(lines[line - 1]):
            found.append(line)
    return found


def _walk_lines(node: ast.AST, lines: list[int]) -> Iterator[ast.AST]:
    """Like ast.walk, but only into nodes spanning one of `lines`: a big
    class mentions CUDA on a few lines, and walking all of it would cost more
    than parsing it did."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for child in ast.iter_child_nodes(current):
            low = getattr(child, "lineno", None)
            if low is not None:
                # A decorated function or class starts at its first decorator
                # (ast's lineno is the `def` line).
                decorators = getattr(child, "decorator_list", None)
                if decorators:
                    low = decorators[0].lineno
                high = getattr(child, "end_lineno", None) or low
                index = bisect.bisect_left(lines, low)
                if index == len(lines) or lines[index] > high:
                    continue
            stack.append(child)


# Statements whose accelerator mentions are not module-level uses: classes
# (their own facts), imports, and compound statements (their bodies are
# looked at statement by statement; an if/while test separately).
_NOT_MENTIONS = frozenset({
    ast.ClassDef, ast.Import, ast.ImportFrom, ast.If, ast.Try, ast.For, ast.AsyncFor,
    ast.While, ast.With, ast.AsyncWith, ast.Match, *([ast.TryStar] if hasattr(ast, "TryStar") else []),
})


def _is_instantiation(stmt: ast.stmt) -> bool:
    """`instantiate_device_type_tests(..., only_for="cuda")`: naming devices
    there is how device classes are made, not a use of one."""
    value = getattr(stmt, "value", None)
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    return (func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")) == INSTANTIATE


def _callee(func: ast.Attribute) -> tuple[str, str, bool] | None:
    """A callee chain rooted at a name: its dotted prefix up to the first call
    or subscript, its text for messages (`torch.empty(...).cuda()`), and
    whether it is a plain dotted name. None for other callees (`f().x`)."""
    parts: list[str] = []
    node: ast.expr = func
    plain = True
    while True:
        if isinstance(node, ast.Attribute):
            parts.append("." + node.attr)
            node = node.value
        elif isinstance(node, ast.Call):
            parts.append("(...)")
            node = node.func
            plain = False
        elif isinstance(node, ast.Subscript):
            parts.append("[...]")
            node = node.value
            plain = False
        elif isinstance(node, ast.Name):
            parts.append(node.id)
            break
        else:
            return None
    parts.reverse()
    prefix = parts[0]
    for part in parts[1:]:
        if not part.startswith("."):
            break
        prefix += part
    return prefix, "".join(parts) + "()", plain


def _attributes(node: ast.expr) -> Iterator[str]:
    """The attribute names along a callee chain (`torch.empty(4).cuda`: empty, cuda)."""
    while True:
        if isinstance(node, ast.Attribute):
            yield node.attr
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Subscript):
            node = node.value
        else:
            return


# Calls that ask about an accelerator rather than run on it.
_ASKING = frozenset({"device_count", "current_accelerator", "current_device", "get_device_name",
                     "get_device_capability", "get_device_properties", "get_arch_list"})


def _is_question(name: str) -> bool:
    return name in _ASKING or name.startswith(("is_", "has_"))


# Names of decorators that skip unless an accelerator is there (PyTorch's
# common_distributed, common_utils and inductor helpers, torch_npu's and
# torch-xpu-ops' own): what in the name says which one.
_REQUIRES = _LazyPattern(
    r"^(?:requires_|skip_?if_?no_?|skip_?unless_?(?:torch_)?|skip_?if_?unsupport_?(?:multi_?)?)"
    r"(cuda|gpu|npu|xpu|mps|accelerator|multi_?gpu|multi_?npu|nccl|xccl|hccl)(?:_and_\w+)?$",
    re.IGNORECASE,
)
_REQUIRED = {"cuda": "cuda", "nccl": "cuda", "npu": "npu", "multinpu": "npu", "hccl": "npu", "xpu": "xpu",
             "xccl": "xpu", "mps": "mps", "gpu": "", "accelerator": "", "multigpu": ""}
# `skip_if_lt_x_gpu(n)` counts the accelerators there are, whichever they are.
_REQUIRES_ANY = frozenset({"skip_if_lt_x_gpu", "skip_if_no_gpu", "skip_but_pass_in_sandcastle_if_lt_x_gpu"})
# Flags that say an accelerator is there (`TEST_CUDA`, `TEST_MULTIGPU`,
# inductor's `HAS_GPU`), and which. TEST_MULTIGPU is CUDA's in common_cuda,
# but the out-of-tree copies of PyTorch's tests redefine it for their own
# device: any accelerator.
_FLAG = _LazyPattern(r"^(?:TEST|HAS)_(?:MULTI_?)?(CUDA|CUDNN|GPU|XPU|MPS|NPU|PRIVATEUSE1|ACCELERATOR)(?:_\w+)?$")
_FLAG_DEVICE = {"CUDA": "cuda", "CUDNN": "cuda", "GPU": "", "XPU": "xpu", "MPS": "mps", "NPU": "npu",
                "PRIVATEUSE1": "privateuse1", "ACCELERATOR": ""}


def _required_device(name: str) -> str | None:
    """The device a skip-unless decorator needs ("" for any accelerator), or None."""
    if name in _REQUIRES_ANY:
        return ""
    match = _REQUIRES.match(name)
    if match is None:
        return None
    return _REQUIRED[match.group(1).lower().replace("_", "")]


def _present(node: ast.expr) -> str | None:
    """The accelerator whose presence `node` asserts (`TEST_CUDA`,
    `torch.cuda.is_available()`, `torch.cuda.device_count() >= 2`), "" for
    any, None when it asserts none."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, op = node.left, node.ops[0]
        if isinstance(op, (ast.Gt, ast.GtE)) and _counts(left) is not None:
            return _counts(left)
        return None
    if isinstance(node, ast.Call) and not node.args:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "is_available":
            return _module_device(_dotted(func.value))
        return None
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    match = _FLAG.match(name) if name else None
    return _FLAG_DEVICE[match.group(1)] if match else None


def _absent(node: ast.expr) -> str | None:
    """The accelerator whose absence `node` asserts (`not TEST_CUDA`,
    `torch.cuda.device_count() < 2`), "" for any, None when it asserts none."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _present(node.operand)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        op = node.ops[0]
        if isinstance(op, (ast.Lt, ast.LtE, ast.Eq)):
            return _counts(node.left)
    return None


def _counts(node: ast.expr) -> str | None:
    """`torch.cuda.device_count()`: the accelerator counted, or None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "device_count":
        return _module_device(_dotted(node.func.value))
    return None


def _module_device(dotted: str) -> str | None:
    """`torch.cuda` -> "cuda", `torch.accelerator` -> "", `torch_npu.npu` -> "npu"."""
    parts = dotted.split(".")
    if len(parts) < 2 or not parts[0].startswith("torch"):
        return None
    last = parts[-1]
    if last == "accelerator":
        return ""
    if last in ("cuda", "xpu", "mps", "npu", "hpu"):
        return last
    return None


def _guard_device(cond: ast.expr, skip_if: bool) -> str | None:
    """The accelerator a skip condition needs: `skipIf(cond)` (skip_if) skips
    when cond holds, `skipUnless(cond)` when it does not. "" for any
    accelerator; None when the condition needs none (it skips for other
    reasons, or only on some accelerator)."""
    if isinstance(cond, ast.BoolOp):
        # skipIf(a or b) skips whenever a does; skipUnless(a and b) unless a.
        # skipIf(a and b) needs every one of them to skip: without CUDA and
        # without XPU, some accelerator at least.
        one = isinstance(cond.op, ast.Or) == skip_if
        found = [_guard_device(v, skip_if) for v in cond.values]
        if one:
            named = [d for d in found if d is not None]
            return named[0] if named else None
        if any(d is None for d in found):
            return None
        return found[0] if len(set(found)) == 1 else ""
    return _absent(cond) if skip_if else _present(cond)


def _is_skip(stmt: ast.stmt) -> bool:
    """`self.skipTest(...)`, `raise unittest.SkipTest(...)`."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        return isinstance(func, ast.Attribute) and func.attr == "skipTest"
    if isinstance(stmt, ast.Raise) and stmt.exc is not None:
        exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
        return _dotted(exc).rsplit(".", 1)[-1] == "SkipTest"
    return False


def _decorator_text(node: ast.expr) -> str:
    """`@skipIf(not TEST_CUDA, ...)`: the decorator, its reason left out."""
    if not isinstance(node, ast.Call):
        return "@" + _short(node)
    args = node.args[:1]
    rest = len(node.args) > 1 or bool(node.keywords)
    inner = ", ".join(_short(a) for a in args) + (", ..." if rest and args else "..." if rest else "")
    return f"@{_short(node.func)}({inner})"


def _short(node: ast.expr) -> str:
    try:
        text = ast.unparse(node)
    except Exception:  # unparse has no contract for odd trees; the text is only for messages
        return "<expression>"
    return text if len(text) <= 60 else text[:57] + "..."


def _site_key(site: Site) -> tuple[int, int]:
    return (site.line, site.column)


def _is_device_string(node: ast.expr, vocabulary: _Vocabulary) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and bool(vocabulary.device_string.match(node.value))


def _decorator_name(node: ast.expr) -> str:
    """`onlyCUDA` for `@onlyCUDA`, `@common_device_type.onlyCUDA`,
    `@onlyOn("cuda")` and `@self.x[0].onlyCUDA` (as TEST_LINTER names them)."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _value(node: ast.expr) -> Value:
    if isinstance(node, ast.Attribute):
        dotted = _dotted(node)
        if dotted:
            return Value("dotted", dotted)  # resolved against the imports in _finish
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return Value("string", node.value)
    try:
        text = ast.unparse(node)
    except Exception:  # unparse has no contract for odd trees; the text is only for messages
        text = "<expression>"
    return Value("other", text[:80])


def _noqa(source: str, lines: Sequence[str]) -> dict[int, frozenset[str] | None]:
    found: dict[int, frozenset[str] | None] = {}
    if "noqa" not in source.lower():
        return found
    for number, line in enumerate(lines, start=1):
        if "noqa" not in line.lower():
            continue
        match = _NOQA.search(line)
        if match:
            codes = match.group("codes")
            found[number] = frozenset(c.upper() for c in re.split(r"[\s,]+", codes) if c) if codes else None
    return found


def _finish(extractor: _Extractor, enum: str) -> tuple[ClassFacts, ...]:
    """Resolve `Enum.MEMBER` values against the module's imports, and attach
    module-level `TestFoo.attr = ...` assignments to their classes."""
    enum_names = {enum} | {i.asname for i in extractor.imports if i.name == enum}

    def member(value: Value) -> Value:
        if value.kind != "dotted":
            return value
        prefix, _, attr = value.text.rpartition(".")
        if prefix and (prefix in enum_names or prefix.rsplit(".", 1)[-1] == enum):
            return Value("member", attr)
        return Value("other", value.text)

    extra: dict[str, list[Declaration]] = {}
    for name, decl in extractor.module_declarations:
        extra.setdefault(name, []).append(decl)
    classes = []
    for cls in extractor.classes:
        decls = [d._replace(value=member(d.value)) for d in (*cls.declarations, *extra.get(cls.name, ()))]
        classes.append(cls._replace(declarations=tuple(decls)) if decls or cls.declarations else cls)
    return tuple(classes)


def split_lines(source: str) -> list[str]:
    if "\r" not in source:
        return source.split("\n")  # the same lines, several times faster
    return _NEWLINE.split(source)


def extract_source(path: str, source: str, *, enum: str = "HardwareClassification", attribute: str = "hw_classification",
                   accelerators: Accelerators = DEFAULT_ACCELERATORS) -> ModuleFacts:
    """Reduce one module's source to facts. Never raises on bad source: a
    module Python would refuse is a ModuleFacts with `error` set."""
    lines = split_lines(source)
    if is_skipped(source):
        return ModuleFacts(path, skip_file=True, lines=len(lines))
    noqa = _noqa(source, lines)
    gc_was_enabled = gc.isenabled()
    # Parsing allocates millions of nodes and no cycles: the collector would
    # only spend time scanning them.
    gc.disable()
    try:
        with warnings.catch_warnings():
            # Invalid escape sequences and the like are the file owner's
            # business (SyntaxWarning); they must not reach the terminal.
            warnings.simplefilter("ignore")
            try:
                # Not the real path: for some errors CPython re-reads the line
                # from the named file as raw UTF-8, which shifts columns after
                # a BOM or a coding cookie and depends on the working folder.
                tree = ast.parse(source, filename="<hwlint>")
            except SyntaxError as exc:
                line = exc.lineno or 1
                column = exc.offset or 1
                return ModuleFacts(path, error=ReadError(line, max(column, 1), f"syntax error: {exc.msg}"), noqa=noqa, lines=len(lines))
            except (ValueError, TypeError) as exc:  # e.g. NUL bytes on Python < 3.12
                return ModuleFacts(path, error=ReadError(1, 1, f"cannot parse: {exc}"), noqa=noqa, lines=len(lines))
            except (RecursionError, MemoryError):
                return ModuleFacts(path, error=ReadError(1, 1, "cannot parse: too deeply nested for Python's parser"), noqa=noqa, lines=len(lines))
        facts = facts_from_tree(path, source, tree, lines=lines, enum=enum, attribute=attribute,
                                accelerators=accelerators)
        del tree
        return facts._replace(noqa=noqa) if noqa else facts
    finally:
        if gc_was_enabled:
            gc.enable()


def is_skipped(source: str) -> bool:
    """Whether the module says `# hwlint: skip-file`."""
    return "skip-file" in source and _SKIP_FILE.search(source) is not None


def facts_from_tree(
    path: str,
    source: str,
    tree: ast.Module,
    *,
    lines: list[str] | None = None,
    enum: str = "HardwareClassification",
    attribute: str = "hw_classification",
    accelerators: Accelerators = DEFAULT_ACCELERATORS,
) -> ModuleFacts:
    """Facts from an already parsed module (the flake8 plugin gets the tree
    from flake8). `noqa` is left empty: the caller reads comments its way."""
    lines = lines if lines is not None else split_lines(source)
    extractor = _Extractor(lines, attribute, source if "\r" not in source else None, accelerators)
    try:
        extractor.block(tree.body, Branch(), {})
    except RecursionError:
        return ModuleFacts(path, error=ReadError(1, 1, "cannot analyse: too deeply nested"), lines=len(lines))
    return ModuleFacts(
        path,
        classes=_finish(extractor, enum),
        instantiations=tuple(extractor.instantiations),
        imports=tuple(extractor.imports),
        lines=len(lines),
        accelerator_lines=tuple(sorted(set(extractor.module_mentions))),
        dynamic=dynamic_sites(tree, source, extractor),
    )


def extract_file(path: str, abspath: str, *, enum: str = "HardwareClassification", attribute: str = "hw_classification",
                 accelerators: Accelerators = DEFAULT_ACCELERATORS) -> ModuleFacts:
    source = read_source(abspath)
    if isinstance(source, ReadError):
        return ModuleFacts(path, error=source)
    return extract_source(path, source, enum=enum, attribute=attribute, accelerators=accelerators)


# -- compact form ---------------------------------------------------------
#
# Facts travel from worker processes and live in the cache as nested plain
# tuples of str/int/bool/None (marshal-able: marshal refuses tuple
# subclasses, and it loads several times faster than pickle). `from_tuple(
# to_tuple(m)) == m` for every ModuleFacts; a test checks it, and SCHEMA (the
# records' fields) is part of the cache key, so adding a field cannot meet
# entries written without it.

# What the records mean can change while their fields do not (which
# decorators count as `requires`): FACTS_VERSION, part of SCHEMA, says so.
FACTS_VERSION = 2
SCHEMA = (("facts", FACTS_VERSION),) + tuple(
    (cls.__name__, cls._fields)
    for cls in (ModuleFacts, ClassFacts, Method, Declaration, Value, Site, Branch, Instantiation, Import, ReadError, Dynamic)
)


def _sites(sites: tuple[Site, ...]) -> tuple[tuple[int, int, str, str, str], ...]:
    return tuple([(s.line, s.column, s.text, s.kind, s.name) for s in sites])


def to_tuple(m: ModuleFacts) -> tuple:  # type: ignore[type-arg]
    error = m.error
    return (
        m.path,
        None if error is None else (error.line, error.column, error.message),
        m.skip_file,
        tuple([(line, None if codes is None else tuple(sorted(codes))) for line, codes in m.noqa.items()]),
        tuple([
            (
                c.name, c.line, c.column, c.end_line, c.bases,
                tuple([(x.name, x.line, x.column, x.params, x.decorators) for x in c.methods]),
                tuple([(d.line, d.column, d.value.kind, d.value.text, d.where) for d in c.declarations]),
                _sites(c.probes), _sites(c.devices), c.decorators, c.branch.path, c.body_line, c.has_docstring,
                _sites(c.requires),
            )
            for c in m.classes
        ]),
        tuple([
            (i.line, i.column, i.class_name, i.only_for, i.except_for, i.allow_mps, i.allow_xpu, i.branch.path)
            for i in m.instantiations
        ]),
        tuple([(i.module, i.level, i.name, i.asname) for i in m.imports]),
        m.lines,
        m.accelerator_lines,
        tuple([tuple(d) for d in m.dynamic]),
    )


def from_tuple(t: tuple) -> ModuleFacts:  # type: ignore[type-arg]
    """The ModuleFacts `to_tuple` was given. Raises (TypeError, ValueError)
    on a malformed tuple: callers treat that as a cache miss."""
    # _make is tuple.__new__ plus a length check: no per-field work.
    make_method, make_site, make_import = Method._make, Site._make, Import._make
    path, error, skip_file, noqa, classes, instantiations, imports, lines, accelerator_lines, dynamic = t
    return ModuleFacts(
        path,
        None if error is None else ReadError._make(error),
        skip_file,
        {line: None if codes is None else frozenset(codes) for line, codes in noqa},
        tuple([
            ClassFacts(
                name, line, column, end_line, bases,
                tuple([make_method(x) for x in methods]),
                tuple([Declaration(dl, dc, Value(kind, text), where) for dl, dc, kind, text, where in declarations]),
                tuple([make_site(s) for s in probes]),
                tuple([make_site(s) for s in devices]),
                decorators, Branch(branch), body_line, has_docstring,
                tuple([make_site(s) for s in requires]),
            )
            for (name, line, column, end_line, bases, methods, declarations, probes, devices, decorators,
                 branch, body_line, has_docstring, requires) in classes
        ]),
        tuple([
            Instantiation(il, ic, cn, of, ef, am, ax, Branch(br))
            for il, ic, cn, of, ef, am, ax, br in instantiations
        ]),
        tuple([make_import(i) for i in imports]),
        lines,
        accelerator_lines,
        tuple([Dynamic._make(d) for d in dynamic]),
    )


def to_blob(m: ModuleFacts) -> bytes:
    """ModuleFacts as bytes (to_tuple, marshal, zlib: ~0.6 KB per file)."""
    return zlib.compress(marshal.dumps(to_tuple(m)), 1)


def from_blob(blob: bytes) -> ModuleFacts:
    """The ModuleFacts `to_blob` was given; raises on damaged bytes."""
    return from_tuple(marshal.loads(zlib.decompress(blob)))
