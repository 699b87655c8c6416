"""The extractor: one module's source parsed once with the standard
library's `ast`, walked once, and reduced to a ModuleFacts; the tree is
dropped."""

import ast
import bisect
import gc
import re
import warnings
from typing import Iterable, Iterator, Sequence, cast

from hwlint.facts.devices import ANY_GPU_NAMES, discover, flag_of, module_of
from hwlint.facts.dynamic import dynamic_sites
from hwlint.facts.prescan import Lines, Places, accelerator_lines, is_skipped, line_numbers, noqa_comments
from hwlint.facts.reach import Statement, bound_names, is_main_guard, unreached
from hwlint.facts.read import ReadError, read_source
from hwlint.facts.records import (
    Branch,
    ClassFacts,
    Declaration,
    DeviceBinding,
    DistributedKind,
    Import,
    Instantiation,
    Method,
    ModuleFacts,
    ProbeKind,
    RequirementKind,
    Site,
    Value,
)
from hwlint.facts.vocabulary import (
    DEFAULT_ACCELERATORS,
    INSTANTIATE,
    Accelerators,
    LazyPattern,
    Vocabulary,
    dotted_name,
    vocabulary_for,
)
from hwlint.facts.walk import walk_lines

# Calls into a device module that only ask a question: probes, not hard-coded
# use. (`device_count()` is not one: distributed tests size their world with
# it, and torch.accelerator has it.)
_QUESTIONS = frozenset({"is_available", "is_built", "is_bf16_supported"})


def _strings(node: ast.expr) -> tuple[str, ...]:
    """A literal device list (`"cuda"`, `("cpu", "cuda")`) as a tuple; () when not literal."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return (node.value,)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        values = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        if len(values) == len(node.elts):
            return tuple(values)
    return ()


class _Extractor:
    def __init__(
        self,
        lines: Sequence[str],
        attribute: str,
        text: str | None = None,
        accelerators: Accelerators = DEFAULT_ACCELERATORS,
    ) -> None:
        self.lines = lines
        self.attribute = attribute
        self.vocabulary = vocabulary_for(accelerators)
        self.device_names = frozenset(accelerators.devices)
        # The module with "\n" line ends, when the caller has it at hand.
        self._text = text
        # Columns are byte offsets + 1 on every line of an ASCII module.
        self._ascii = text is not None and text.isascii()
        # Sorted numbers of the lines where the vocabulary's text matches in the
        # whole module, computed when the first class needs them.
        self._places: Places | None = None
        self._hits: list[int] | None = None
        self._devtype: list[int] | None = None
        self._distributed: list[int] | None = None
        # The current class's decorators that name one collective backend.
        self._backend_decorators: list[Site] = []
        self.module_mentions: list[int] = []
        # The module-level statements outside classes, and each class's
        # lines, for which mentions each class reaches (hwlint.facts.reach).
        self.statements: list[Statement] = []
        self.class_spans: list[tuple[int, int, str]] = []
        self.in_main = False
        self.classes: list[ClassFacts] = []
        self.instantiations: list[Instantiation] = []
        self.imports: list[Import] = []
        self.module_declarations: list[tuple[str, Declaration]] = []
        self.device_bindings: list[DeviceBinding] = []

    def column(self, line: int, col_offset: int) -> int:
        """1-based character column; ast gives UTF-8 byte offsets."""
        if self._ascii:
            return col_offset + 1
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if text.isascii():
            return col_offset + 1
        return len(text.encode("utf-8")[:col_offset].decode("utf-8", errors="ignore")) + 1

    # -- module level -----------------------------------------------------

    def places(self) -> Places:
        """Where the module's text holds the tokens looked for, found once."""
        if self._places is None:
            self._places = Places(self._text if self._text is not None else "\n".join(self.lines), self.vocabulary)
        return self._places

    def hits(self) -> list[int]:
        """Lines mentioning an accelerator, found once per module on demand."""
        if self._hits is None:
            found = self.places()
            self._hits = accelerator_lines(found.text, self.lines, self.vocabulary, found)
        return self._hits

    def devtype_lines(self) -> list[int]:
        """Lines calling get_devtype() (PyTorch's FSDP/DTensor tests take
        their device from it: the accelerator there is), found once."""
        if self._devtype is None:
            found = self.places()
            self._devtype = line_numbers(found.text, found.of("get_devtype("))
        return self._devtype

    def distributed_lines(self) -> list[int]:
        """Lines that may hold what distributed tests hard-code and the
        accelerator pattern does not see (`"nccl"`, `f"cuda:{rank}"`),
        found once per module on demand."""
        if self._distributed is None:
            found = self.places()
            self._distributed = line_numbers(found.text, _distributed_places(found, self.device_names))
        return self._distributed

    def note_module_mention(self, first: int, last: int) -> int:
        """The first line from `first` to `last` that mentions an
        accelerator, noted as a module-level mention; 0 when none does."""
        for hits in (self.hits(), self.devtype_lines()):
            index = bisect.bisect_left(hits, first)
            if index < len(hits) and hits[index] <= last:
                self.module_mentions.append(hits[index])
                return hits[index]
        return 0

    def block(self, body: Iterable[ast.stmt], branch: Branch, loops: dict[str, tuple[str, ...]]) -> None:
        for stmt in body:
            kind = type(stmt)
            line = 0
            if kind not in _NOT_MENTIONS and not _is_instantiation(stmt):
                line = self.note_module_mention(stmt.lineno, stmt.end_lineno or stmt.lineno)
                # Every one, mention or not: a class may reach a mention through it (hwlint.facts.reach).
                self.statements.append(Statement(stmt, line, self.in_main))
            elif isinstance(stmt, (ast.If, ast.While)):
                test = stmt.test
                line = self.note_module_mention(test.lineno, test.end_lineno or test.lineno)
                if line:
                    self.statements.append(Statement(stmt, line, self.in_main))
            if isinstance(stmt, ast.ClassDef):
                self.class_spans.append(
                    (
                        stmt.decorator_list[0].lineno if stmt.decorator_list else stmt.lineno,
                        stmt.end_lineno or stmt.lineno,
                        stmt.name,
                    )
                )
                self.classes.append(self.klass(stmt, branch))
            elif isinstance(stmt, ast.Expr):
                self.maybe_instantiation(stmt.value, branch, loops)
            elif isinstance(stmt, ast.Assign):
                self.assignment(stmt, branch, loops)
                if line and not self.in_main:
                    self.device_binding(stmt, line)
            elif isinstance(stmt, ast.ImportFrom):
                for alias in stmt.names:
                    self.imports.append(Import(stmt.module or "", stmt.level, alias.name, alias.asname or alias.name))
            elif isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    local = alias.asname or alias.name.split(".")[0]
                    self.imports.append(Import(alias.name if alias.asname else local, 0, None, local))
            elif isinstance(stmt, ast.If):
                key = (stmt.lineno, stmt.col_offset)
                main = not self.in_main and is_main_guard(stmt.test)
                self.in_main = self.in_main or main  # collection never runs it
                self.block(stmt.body, Branch(branch.path + (key + (0,),)), loops)
                self.in_main = self.in_main and not main
                self.block(stmt.orelse, Branch(branch.path + (key + (1,),)), loops)
            elif isinstance(stmt, ast.Try) or kind.__name__ == "TryStar":
                # ast.TryStar (`except*`, Python 3.11+) has Try's fields.
                tried = cast(ast.Try, stmt)
                key = (tried.lineno, tried.col_offset)
                self.block(tried.body, Branch(branch.path + (key + (0,),)), loops)
                for arm, handler in enumerate(tried.handlers, start=1):
                    self.block(handler.body, Branch(branch.path + (key + (arm,),)), loops)
                self.block(tried.orelse, Branch(branch.path + (key + (0,),)), loops)
                self.block(tried.finalbody, branch, loops)
            elif isinstance(stmt, (ast.For, ast.AsyncFor)):
                inner = dict(loops)
                target, it = stmt.target, stmt.iter
                if isinstance(target, ast.Name) and isinstance(it, (ast.Tuple, ast.List)):
                    names = tuple(e.id for e in it.elts if isinstance(e, ast.Name))
                    if len(names) == len(it.elts):
                        inner[target.id] = names
                self.block(stmt.body, branch, inner)
                self.block(stmt.orelse, branch, loops)
            elif isinstance(stmt, (ast.While, ast.With, ast.AsyncWith)):
                self.block(stmt.body, branch, loops)
                self.block(getattr(stmt, "orelse", ()), branch, loops)
            elif isinstance(stmt, ast.Match):
                key = (stmt.lineno, stmt.col_offset)
                for arm, case in enumerate(stmt.cases):
                    self.block(case.body, Branch(branch.path + (key + (arm,),)), loops)

    def assignment(self, stmt: ast.Assign, branch: Branch, loops: dict[str, tuple[str, ...]]) -> None:
        for target in stmt.targets:
            if (
                isinstance(target, ast.Attribute)
                and target.attr == self.attribute
                and isinstance(target.value, ast.Name)
            ):
                decl = Declaration(stmt.lineno, self.column(stmt.lineno, stmt.col_offset), _value(stmt.value), "module")
                for name in loops.get(target.value.id, (target.value.id,)):
                    self.module_declarations.append((name, decl))
        self.maybe_instantiation(stmt.value, branch, loops)

    def device_binding(self, stmt: ast.Assign, line: int) -> None:
        """`NAME = "xpu"`, `NAME = "xpu:0"`, `NAME = torch.device("xpu")`
        (`line`: where it mentions the device)."""
        if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
            return
        value = stmt.value
        if (
            isinstance(value, ast.Call)
            and value.args
            and not value.keywords
            and len(value.args) <= 2
            and dotted_name(value.func) == "torch.device"
        ):
            value = value.args[0]
        named = _device_string(value, self.vocabulary)
        device = named.split(":", 1)[0] if named is not None else None
        if device is not None and device in self.device_names:
            self.device_bindings.append(DeviceBinding(line, stmt.targets[0].id, device))

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
        self._backend_decorators = []
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
        distributed: tuple[Site, ...] = ()
        start = node.decorator_list[0].lineno if node.decorator_list else node.lineno
        hits = self.hits()
        hit_lines = hits[bisect.bisect_left(hits, start) : bisect.bisect_right(hits, end)]
        dist = self.distributed_lines()
        dist_lines = dist[bisect.bisect_left(dist, start) : bisect.bisect_right(dist, end)]
        if dist_lines:
            hit_lines = sorted(set(hit_lines).union(dist_lines))
        if hit_lines:
            probes, devices, distributed = self.accelerator_sites(node, hit_lines)
        if self._backend_decorators:
            distributed = tuple(sorted({*distributed, *self._backend_decorators}, key=_site_key))
        devtype = self.devtype_lines()
        for line in devtype[bisect.bisect_left(devtype, start) : bisect.bisect_right(devtype, end)]:
            at = self.lines[line - 1].find("get_devtype(")
            requires.append(
                Site(
                    line,
                    self.column(line, len(self.lines[line - 1][:at].encode("utf-8"))),
                    "get_devtype()",
                    "devtype",
                    "",
                )
            )
        return ClassFacts(
            name=node.name,
            line=node.lineno,
            column=self.column(node.lineno, node.col_offset),
            end_line=end,
            bases=tuple(dotted_name(b) for b in node.bases),
            methods=tuple(methods),
            declarations=tuple(declarations),
            probes=probes,
            devices=devices,
            decorators=tuple(_decorator_name(d) for d in node.decorator_list),
            branch=branch,
            body_line=first.lineno,
            has_docstring=has_doc,
            requires=tuple(sorted(requires, key=_site_key)),
            distributed=distributed,
        )

    def class_body(
        self, body: Iterable[ast.stmt], methods: list[Method], declarations: list[Declaration], requires: list[Site]
    ) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = stmt.name
                if name.startswith("test"):
                    methods.append(self.method(stmt, requires))
                elif name in ("setUp", "setUpClass"):
                    self.setup_skips(stmt.body, requires)
            elif isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    if isinstance(target, ast.Name) and target.id == self.attribute:
                        declarations.append(
                            Declaration(
                                stmt.lineno, self.column(stmt.lineno, stmt.col_offset), _value(stmt.value), "body"
                            )
                        )
            elif isinstance(stmt, ast.AnnAssign):
                annotated = stmt.target
                if isinstance(annotated, ast.Name) and annotated.id == self.attribute:
                    value = _value(stmt.value) if stmt.value is not None else Value("missing", "")
                    declarations.append(
                        Declaration(stmt.lineno, self.column(stmt.lineno, stmt.col_offset), value, "body")
                    )
            elif isinstance(stmt, ast.If):
                self.class_body(stmt.body, methods, declarations, requires)
                self.class_body(stmt.orelse, methods, declarations, requires)
            elif type(stmt) is ast.Try:  # not TryStar, as before
                for part in (stmt.body, stmt.orelse, stmt.finalbody):
                    self.class_body(part, methods, declarations, requires)
                for handler in stmt.handlers:
                    self.class_body(handler.body, methods, declarations, requires)

    def method(self, node: ast.FunctionDef | ast.AsyncFunctionDef, requires: list[Site]) -> Method:
        args = node.args
        params = [a.arg for a in (*args.posonlyargs, *args.args)]
        if params and params[0] in ("self", "cls"):
            params = params[1:]
        params += [a.arg for a in args.kwonlyargs]
        decorators = node.decorator_list
        names = tuple([_decorator_name(d) for d in decorators])
        for decorator, name in zip(decorators, names):
            self.requirement(decorator, requires, "test", name)
        return Method(node.name, node.lineno, self.column(node.lineno, node.col_offset), tuple(params), names)

    def requirement(
        self, decorator: ast.expr, requires: list[Site], kind: RequirementKind, name: str | None = None
    ) -> None:
        """A decorator that skips its test or class unless an accelerator is
        there (`name`: its _decorator_name, when the caller has it)."""
        if name is None:
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
            device = _guard_device(decorator.args[0], lowered == "skipif", self.device_names)
        else:
            device = _required_device(name, self.device_names)
        if device is not None:
            requires.append(
                Site(
                    decorator.lineno,
                    self.column(decorator.lineno, decorator.col_offset),
                    _decorator_text(decorator),
                    kind,
                    device,
                )
            )
        if _BACKEND_DECORATOR.match(name):
            self._backend_decorators.append(self.backend_decorator(decorator, name))

    def backend_decorator(self, decorator: ast.expr, name: str) -> Site:
        """`@requires_nccl()`: a hard-coded device (HWC201), named by the decorator."""
        line = decorator.lineno
        return Site(line, self.column(line, decorator.col_offset), _decorator_text(decorator), "decorator", name)

    def setup_skips(self, body: Iterable[ast.stmt], requires: list[Site]) -> None:
        """`if not torch.cuda.is_available(): self.skipTest(...)` (or `raise
        unittest.SkipTest(...)`) at the top level of setUp/setUpClass: every
        test of the class skips without the accelerator."""
        for stmt in body:
            if not isinstance(stmt, ast.If) or not any(_is_skip(s) for s in stmt.body):
                continue
            device = _guard_device(stmt.test, True, self.device_names)
            if device is not None:
                requires.append(
                    Site(
                        stmt.lineno,
                        self.column(stmt.lineno, stmt.col_offset),
                        "setUp: if " + _short(stmt.test) + ": skip",
                        "setup",
                        device,
                    )
                )

    def accelerator_sites(
        self, node: ast.ClassDef, hit_lines: list[int]
    ) -> tuple[tuple[Site, ...], tuple[Site, ...], tuple[Site, ...]]:
        # Keyed by the node's whole span: `torch.cuda.get_device_name(0).lower()`
        # is two calls into CUDA that start at the same place, and TEST_LINTER
        # counts both.
        probes: dict[tuple[int, int, int, int], Site] = {}
        devices: dict[tuple[int, int], Site] = {}
        distributed: dict[tuple[int, int], Site] = {}
        vocabulary = self.vocabulary
        flags = vocabulary.flags
        for sub in walk_lines(node, hit_lines):
            kind = type(sub)
            if kind is ast.Call:
                call = cast(ast.Call, sub)
                probe = self.accelerator_call(call)
                if probe is not None:
                    probes[(call.lineno, call.col_offset, call.end_lineno or 0, call.end_col_offset or 0)] = probe
                site = self.device_use(call)
                if site is not None:
                    (distributed if _is_distributed(site) else devices)[(site.line, site.column)] = site
            elif kind is ast.Name:
                named = cast(ast.Name, sub)
                name = named.id
                if name in flags:
                    line, col = named.lineno, named.col_offset
                    probes[(line, col, line, col)] = Site(line, self.column(line, col), name, "flag")
                elif name in ANY_GPU_NAMES:
                    # `device=GPU_TYPE`, `device = GPU_TYPE`: whichever GPU the machine has.
                    line, col = named.lineno, named.col_offset
                    devices[(line, col)] = Site(line, self.column(line, col), name, "any-gpu", name)
                elif name in _BACKEND_CLASSES:
                    feature = self.backend_feature(named, name)
                    distributed[(feature.line, feature.column)] = feature
            elif kind is ast.Attribute:
                attribute = cast(ast.Attribute, sub)
                if attribute.attr in _BACKEND_CLASSES:
                    feature = self.backend_feature(attribute, attribute.attr)
                    distributed[(feature.line, feature.column)] = feature
            elif kind is ast.Constant:
                constant = cast(ast.Constant, sub)
                value = constant.value
                if isinstance(value, str) and "CCL_" in value and _BACKEND_ENV.match(value):
                    feature = self.backend_feature(constant, value)
                    distributed[(feature.line, feature.column)] = feature
            elif kind is ast.Assign:
                # `device = "musa"` in a test: the device its tensors then go to.
                assign = cast(ast.Assign, sub)
                value = _device_string(assign.value, vocabulary)
                if value is not None and len(assign.targets) == 1 and isinstance(assign.targets[0], ast.Name):
                    line = assign.value.lineno
                    devices[(line, assign.value.col_offset)] = Site(
                        line,
                        self.column(line, assign.value.col_offset),
                        f'{assign.targets[0].id} = "{value}"',
                        "assign",
                        value,
                    )
            elif kind is ast.JoinedStr:
                site = self.device_fstring(cast(ast.JoinedStr, sub))
                if site is not None:
                    distributed[(site.line, site.column)] = site
        return (
            tuple(sorted(probes.values(), key=_site_key)),
            tuple(sorted(devices.values(), key=_site_key)),
            tuple(sorted(distributed.values(), key=_site_key)),
        )

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
        what: ProbeKind = "probe" if _is_question(func.attr) else "use"
        return Site(call.lineno, self.column(call.lineno, call.col_offset), text, what)

    def backend_feature(self, node: ast.expr, name: str) -> Site:
        """What only one collective backend has: its process group class
        (`ProcessGroupNCCL`), its environment variables (`"NCCL_DEBUG"`)."""
        line = node.lineno
        return Site(line, self.column(line, node.col_offset), name, "backend-feature", name)

    def device_fstring(self, node: ast.JoinedStr) -> Site | None:
        """`f"cuda:{rank}"`: a device string whose index is computed."""
        values = node.values
        if len(values) < 2 or not isinstance(values[1], ast.FormattedValue):
            return None
        first = values[0]
        if not isinstance(first, ast.Constant) or not isinstance(first.value, str):
            return None
        device = first.value[:-1]
        if not first.value.endswith(":") or device not in self.device_names:
            return None
        return Site(node.lineno, self.column(node.lineno, node.col_offset), f'f"{device}:{{...}}"', "fstring", device)

    def backend_use(self, call: ast.Call) -> Site | None:
        """A collective backend of one device family: `backend="nccl"`, or
        `init_process_group("nccl")`; kind "backend-options" when the call
        also passes backend-specific `pg_options`."""
        found: ast.expr | None = None
        for kw in call.keywords:
            if kw.arg == "backend":
                found = kw.value
        if found is None and call.args:
            func = call.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name == "init_process_group":
                found = call.args[0]
        if not (isinstance(found, ast.Constant) and isinstance(found.value, str) and found.value in _BACKENDS):
            return None
        kind: DistributedKind = "backend-options" if any(kw.arg == "pg_options" for kw in call.keywords) else "backend"
        return Site(
            found.lineno, self.column(found.lineno, found.col_offset), f'backend "{found.value}"', kind, found.value
        )

    def device_use(self, call: ast.Call) -> Site | None:
        func = call.func
        vocabulary = self.vocabulary
        where = (call.lineno, self.column(call.lineno, call.col_offset))
        for kw in call.keywords:
            value = _device_string(kw.value, vocabulary) if kw.arg == "device" else None
            if value is not None:
                return Site(
                    kw.value.lineno,
                    self.column(kw.value.lineno, kw.value.col_offset),
                    f'device="{value}"',
                    "keyword",
                    value,
                )
        backend = self.backend_use(call)
        if backend is not None:
            return backend
        if isinstance(func, ast.Attribute):
            if func.end_lineno is not None and func.end_col_offset is not None:
                # Point at the method name, not at the start of a long chain.
                attr_at = func.end_col_offset - len(func.attr)
                method_at = (func.end_lineno, self.column(func.end_lineno, attr_at))
            else:
                method_at = where
            dotted = dotted_name(func)
            in_module = any(dotted.startswith(m + ".") for m in vocabulary.device_modules)
            if func.attr in vocabulary.methods and not in_module and not dotted.startswith("torch."):
                return Site(*method_at, f".{func.attr}()", "method", func.attr)
            if dotted in ("torch.device",) or func.attr == "to":
                value = _device_string(call.args[0], vocabulary) if call.args else None
                if value is not None:
                    if dotted == "torch.device":
                        return Site(*where, f'torch.device("{value}")', "torch.device", value)
                    return Site(*method_at, f'.to("{value}")', "to", value)
            if in_module and func.attr not in _QUESTIONS:
                return Site(*where, f"{dotted}()", "module", dotted)
        return None


# One device family's collective backends (HWC201 in distributed tests).
_BACKENDS = frozenset({"nccl", "xccl", "hccl"})
# What only one collective backend has.
_BACKEND_CLASSES = frozenset({"ProcessGroupNCCL", "ProcessGroupXCCL", "ProcessGroupHCCL"})
_BACKEND_ENV = LazyPattern(r"^(?:TORCH_)?(?:NCCL|XCCL|HCCL)_[A-Z0-9_]+$")
# `@requires_nccl()`, `@skip_if_no_nccl`, `@requires_nccl_version(...)`.
_BACKEND_DECORATOR = LazyPattern(r"^(?:requires_|skip_if_no_)(?:nccl|xccl|hccl)(?:_version)?$")


def _is_distributed(site: Site) -> bool:
    """A hard-coded device that ClassFacts keeps apart, in `distributed`."""
    return site.kind in ("backend", "backend-options") or (
        site.kind == "module" and site.name.endswith(".device_count")
    )


def _distributed_places(found: Places, devices: frozenset[str]) -> list[int]:
    """Where the text holds a collective backend's name in quotes (`nccl"`,
    `ccl'`), its upper-case name (`NCCL`, `ProcessGroupXCCL`) or a device
    with a computed index (`cuda:{`), in order: from the places of "ccl",
    "CCL" and ":{" (each rare), the character around checked, instead of a
    pass over the text per token and device."""
    text = found.text
    result = [at for at in found.of("ccl") if text.startswith(('"', "'"), at + 3)]
    result += found.of("CCL")
    for at in found.of(":{"):
        for device in devices:
            if at >= len(device) and text.startswith(device, at - len(device)):
                result.append(at - len(device))
    result.sort()
    return result


# Statements whose accelerator mentions are not module-level uses: classes
# (their own facts), imports, and compound statements (their bodies are
# looked at statement by statement; an if/while test separately).
_NOT_MENTIONS = frozenset(
    {
        ast.ClassDef,
        ast.Import,
        ast.ImportFrom,
        ast.If,
        ast.Try,
        ast.For,
        ast.AsyncFor,
        ast.While,
        ast.With,
        ast.AsyncWith,
        ast.Match,
        *([ast.TryStar] if hasattr(ast, "TryStar") else []),
    }
)


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
_ASKING = frozenset(
    {
        "device_count",
        "current_accelerator",
        "current_device",
        "get_device_name",
        "get_device_capability",
        "get_device_properties",
        "get_arch_list",
    }
)


def _is_question(name: str) -> bool:
    return name in _ASKING or name.startswith(("is_", "has_"))


# Names of decorators that skip unless an accelerator is there (PyTorch's
# common_distributed, common_utils and inductor helpers, torch_npu's and
# torch-xpu-ops' own): what in the name says which one.
_REQUIRES = LazyPattern(
    r"^(?:requires_|skip_?if_?no_?|skip_?unless_?(?:torch_)?|skip_?if_?unsupport_?(?:multi_?)?)"
    r"(cuda|gpu|npu|xpu|mps|accelerator|multi_?gpu|multi_?npu|nccl|xccl|hccl)(?:_and_\w+)?$",
    re.IGNORECASE,
)
_REQUIRED = {
    "cuda": "cuda",
    "nccl": "cuda",
    "npu": "npu",
    "multinpu": "npu",
    "hccl": "npu",
    "xpu": "xpu",
    "xccl": "xpu",
    "mps": "mps",
    "gpu": "",
    "accelerator": "",
    "multigpu": "",
}
# `skip_if_lt_x_gpu(n)` counts the accelerators there are, whichever they are.
_REQUIRES_ANY = frozenset({"skip_if_lt_x_gpu", "skip_if_no_gpu", "skip_but_pass_in_sandcastle_if_lt_x_gpu"})
# Flags that say an accelerator is there (`TEST_CUDA`, `TEST_MULTIGPU`,
# inductor's `HAS_GPU`), and which. TEST_MULTIGPU is CUDA's in common_cuda,
# but the out-of-tree copies of PyTorch's tests redefine it for their own
# device: any accelerator.
_FLAG = LazyPattern(r"^(?:TEST|HAS)_(?:MULTI_?)?(CUDA|CUDNN|GPU|XPU|MPS|NPU|PRIVATEUSE1|ACCELERATOR)(?:_\w+)?$")
_FLAG_DEVICE = {
    "CUDA": "cuda",
    "CUDNN": "cuda",
    "GPU": "",
    "XPU": "xpu",
    "MPS": "mps",
    "NPU": "npu",
    "PRIVATEUSE1": "privateuse1",
    "ACCELERATOR": "",
}


# The same decorators for a device hwlint was not told of (`@skipIfNoMLU`,
# `@requires_musa`): the name is kept when it is a device of the module.
_REQUIRES_OTHER = LazyPattern(
    r"^(?:requires_|skip_?if_?no_?|skip_?unless_?(?:torch_)?|skip_?if_?unsupport_?(?:multi_?)?)(?:multi_?)?"
    r"([a-z][a-z0-9]*)(?:_and_\w+)?$",
    re.IGNORECASE,
)


def _required_device(name: str, names: frozenset[str]) -> str | None:
    """The device a skip-unless decorator needs ("" for any accelerator), or None."""
    if name in _REQUIRES_ANY:
        return ""
    match = _REQUIRES.match(name)
    if match is None:
        other = _REQUIRES_OTHER.match(name)
        device = other.group(1).lower() if other is not None else ""
        return device if device in names else None
    return _REQUIRED[match.group(1).lower().replace("_", "")]


def _present(node: ast.expr, names: frozenset[str]) -> str | None:
    """The accelerator whose presence `node` asserts (`TEST_CUDA`,
    `torch.cuda.is_available()`, `torch.cuda.device_count() >= 2`), "" for
    any, None when it asserts none."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, op = node.left, node.ops[0]
        if isinstance(op, (ast.Gt, ast.GtE)) and _counts(left, names) is not None:
            return _counts(left, names)
        return None
    if isinstance(node, ast.Call) and not node.args:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "is_available":
            return _module_device(dotted_name(func.value), names)
        return None
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    match = _FLAG.match(name) if name else None
    if match is None:
        # `TEST_MLU`: the flag of a device of the module's.
        device = name.partition("_")[2].lower() if name.startswith(("TEST_", "HAS_")) else ""
        return device if device in names else None
    return _FLAG_DEVICE[match.group(1)]


def _absent(node: ast.expr, names: frozenset[str]) -> str | None:
    """The accelerator whose absence `node` asserts (`not TEST_CUDA`,
    `torch.cuda.device_count() < 2`), "" for any, None when it asserts none."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _present(node.operand, names)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        op = node.ops[0]
        if isinstance(op, (ast.Lt, ast.LtE, ast.Eq)):
            return _counts(node.left, names)
    return None


def _counts(node: ast.expr, names: frozenset[str]) -> str | None:
    """`torch.cuda.device_count()`: the accelerator counted, or None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "device_count":
        return _module_device(dotted_name(node.func.value), names)
    return None


def _module_device(dotted: str, names: frozenset[str]) -> str | None:
    """`torch.cuda` -> "cuda", `torch.accelerator` -> "", `torch_npu.npu` -> "npu"."""
    parts = dotted.split(".")
    if len(parts) < 2 or not parts[0].startswith("torch"):
        return None
    last = parts[-1]
    if last == "accelerator":
        return ""
    if last in names:
        return last
    return None


def _guard_device(cond: ast.expr, skip_if: bool, names: frozenset[str]) -> str | None:
    """The accelerator a skip condition needs: `skipIf(cond)` (skip_if) skips
    when cond holds, `skipUnless(cond)` when it does not. "" for any
    accelerator; None when the condition needs none (it skips for other
    reasons, or only on some accelerator)."""
    if isinstance(cond, ast.BoolOp):
        # skipIf(a or b) skips whenever a does; skipUnless(a and b) unless a.
        # skipIf(a and b) needs every one of them to skip: without CUDA and
        # without XPU, some accelerator at least.
        one = isinstance(cond.op, ast.Or) == skip_if
        found = [_guard_device(v, skip_if, names) for v in cond.values]
        if one:
            named = [d for d in found if d is not None]
            return named[0] if named else None
        if any(d is None for d in found):
            return None
        return found[0] if len(set(found)) == 1 else ""
    return _absent(cond, names) if skip_if else _present(cond, names)


def _is_skip(stmt: ast.stmt) -> bool:
    """`self.skipTest(...)`, `raise unittest.SkipTest(...)`."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        return isinstance(func, ast.Attribute) and func.attr == "skipTest"
    if isinstance(stmt, ast.Raise) and stmt.exc is not None:
        exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
        return dotted_name(exc).rsplit(".", 1)[-1] == "SkipTest"
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


def _device_string(node: ast.expr, vocabulary: Vocabulary) -> str | None:
    """The device a literal names (`"cuda"`, `"cuda:1"`), or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and vocabulary.device_string.match(node.value):
        return node.value
    return None


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
        dotted = dotted_name(node)
        if dotted:
            return Value("dotted", dotted)  # resolved against the imports in _finish
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return Value("string", node.value)
    try:
        text = ast.unparse(node)
    except Exception:  # unparse has no contract for odd trees; the text is only for messages
        text = "<expression>"
    return Value("other", text[:80])


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


def extract_source(
    path: str,
    source: str,
    *,
    enum: str = "HardwareClassification",
    attribute: str = "hw_classification",
    accelerators: Accelerators = DEFAULT_ACCELERATORS,
) -> ModuleFacts:
    """Reduce one module's source to facts. Never raises on bad source: a
    module Python would refuse is a ModuleFacts with `error` set."""
    lines = Lines(source)  # split only if something reads them all
    if is_skipped(source):
        return ModuleFacts(path, skip_file=True, lines=len(lines))
    noqa = noqa_comments(source, lines)
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
                return ModuleFacts(
                    path, error=ReadError(line, max(column, 1), f"syntax error: {exc.msg}"), noqa=noqa, lines=len(lines)
                )
            except (ValueError, TypeError) as exc:  # e.g. NUL bytes on Python < 3.12
                return ModuleFacts(path, error=ReadError(1, 1, f"cannot parse: {exc}"), noqa=noqa, lines=len(lines))
            except (RecursionError, MemoryError):
                return ModuleFacts(
                    path,
                    error=ReadError(1, 1, "cannot parse: too deeply nested for Python's parser"),
                    noqa=noqa,
                    lines=len(lines),
                )
        facts = facts_from_tree(
            path, source, tree, lines=lines, enum=enum, attribute=attribute, accelerators=accelerators
        )
        del tree
        return facts._replace(noqa=noqa) if noqa else facts
    finally:
        if gc_was_enabled:
            gc.enable()


def facts_from_tree(
    path: str,
    source: str,
    tree: ast.Module,
    *,
    lines: Sequence[str] | None = None,
    enum: str = "HardwareClassification",
    attribute: str = "hw_classification",
    accelerators: Accelerators = DEFAULT_ACCELERATORS,
) -> ModuleFacts:
    """Facts from an already parsed module (the flake8 plugin gets the tree
    from flake8). `noqa` is left empty: the caller reads comments its way."""
    lines = lines if lines is not None else Lines(source)
    # A device the configuration does not name is still a device: the
    # module's facts match the names it uses as it uses them.
    found = discover(source, accelerators.devices)
    if found:
        names = [f.name for f in found]
        # As the settings that cover them would (hwlint.facts.devices.coverage).
        accelerators = accelerators.extended([module_of(n) for n in names], [flag_of(n) for n in names], names)
    extractor = _Extractor(lines, attribute, source if "\r" not in source else None, accelerators)
    try:
        extractor.block(tree.body, Branch(), {})
    except RecursionError:
        return ModuleFacts(path, error=ReadError(1, 1, "cannot analyse: too deeply nested"), lines=len(lines))
    classes = _finish(extractor, enum)
    if extractor.module_mentions and classes:
        text = source if "\r" not in source else "\n".join(lines)
        far = unreached(extractor.statements, extractor.class_spans, text)
        classes = tuple(cls._replace(unreached=lines_) if lines_ else cls for cls, lines_ in zip(classes, far))
    return ModuleFacts(
        path,
        classes=classes,
        instantiations=tuple(extractor.instantiations),
        imports=tuple(extractor.imports),
        lines=len(lines),
        accelerator_lines=tuple(sorted(set(extractor.module_mentions))),
        dynamic=dynamic_sites(tree, source, extractor.column, attribute, {c.name for c in extractor.classes}),
        device_bindings=_bound_once(extractor.device_bindings, extractor.statements, extractor.imports, source),
        devices_found=found,
    )


_GLOBAL_NAMES = LazyPattern(r"\bglobal\s+(\w+(?:\s*,\s*\w+)*)")


def _bound_once(
    bindings: list[DeviceBinding], statements: list[Statement], imports: list[Import], text: str
) -> tuple[DeviceBinding, ...]:
    """The bindings of names that nothing else at module level binds (`try:
    device = "xpu"` / `except: device = "cpu"` names no one device), no
    import, nor a function's `global` statement."""
    if not bindings:
        return ()
    names = {b.name for b in bindings}
    counts = dict.fromkeys(names, 0)
    for statement in statements:
        if statement.in_main:
            continue  # collection never runs it
        for name in (bound_names(statement.node) or set()) & names:
            counts[name] += 1
    for imported in imports:
        if imported.asname in counts:
            counts[imported.asname] += 1
    if "global" in text:
        for match in _GLOBAL_NAMES.compiled().finditer(text):
            for name in re.split(r"\s*,\s*", match.group(1)):
                if name in counts:
                    counts[name] += 1
    return tuple(b for b in bindings if counts[b.name] == 1)


def extract_file(
    path: str,
    abspath: str,
    *,
    enum: str = "HardwareClassification",
    attribute: str = "hw_classification",
    accelerators: Accelerators = DEFAULT_ACCELERATORS,
) -> ModuleFacts:
    """Facts of the file at `abspath`, reported as `path`; a file that cannot
    be read is a ModuleFacts with `error` set."""
    source = read_source(abspath)
    if isinstance(source, ReadError):
        return ModuleFacts(path, error=source)
    return extract_source(path, source, enum=enum, attribute=attribute, accelerators=accelerators)
