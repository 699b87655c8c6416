"""A class's facts: its bases, its test methods with their parameters and
decorators, its classification declarations, what its tests require to run
(decorators, setUp skips, `get_devtype()`) and its accelerator sites."""

import ast
import bisect
from typing import Iterable

from hwlint.facts.backends import BACKEND_DECORATOR
from hwlint.facts.device_sites import SiteFinder, site_key
from hwlint.facts.module_text import ModuleText
from hwlint.facts.records import Branch, ClassFacts, Declaration, Method, RequirementKind, Site, Value
from hwlint.facts.requirements import PINNED, guard_device, is_skip, required_device
from hwlint.facts.vocabulary import dotted_name


class ClassReader:
    """Reads the classes of one module into ClassFacts."""

    def __init__(self, text: ModuleText, attribute: str) -> None:
        self.text = text
        self.lines = text.lines
        self.column = text.column
        self.device_names = text.device_names
        self.attribute = attribute
        self.sites = SiteFinder(text)
        # The current class's decorators that name one collective backend.
        self._backend_decorators: list[Site] = []
        # The module's classes read so far, by name: a base whose helpers a class calls.
        self._seen: dict[str, ast.ClassDef] = {}
        # Whether the module pins memory anywhere (most do not: no line is searched).
        self._pins = any("pin_memory" in line for line in self.lines)

    def read(self, node: ast.ClassDef, branch: Branch) -> ClassFacts:
        """The facts of the class `node`, which sits at `branch`."""
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
        questions: tuple[Site, ...] = ()
        start = node.decorator_list[0].lineno if node.decorator_list else node.lineno
        hits = self.text.hits()
        hit_lines = hits[bisect.bisect_left(hits, start) : bisect.bisect_right(hits, end)]
        dist = self.text.distributed_lines()
        dist_lines = dist[bisect.bisect_left(dist, start) : bisect.bisect_right(dist, end)]
        if dist_lines:
            hit_lines = sorted(set(hit_lines).union(dist_lines))
        if hit_lines:
            probes, devices, distributed, questions = self.sites.accelerator_sites(node, hit_lines, self._seen)
        if self._backend_decorators:
            distributed = tuple(sorted({*distributed, *self._backend_decorators}, key=site_key))
        devtype = self.text.devtype_lines()
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
        self._seen.setdefault(node.name, node)
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
            requires=tuple(sorted(requires, key=site_key)),
            distributed=distributed,
            questions=questions,
        )

    def class_body(
        self, body: Iterable[ast.stmt], methods: list[Method], declarations: list[Declaration], requires: list[Site]
    ) -> None:
        """A class body's test methods, classification declarations and
        setUp skips, added to the lists given; if/try bodies included."""
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = stmt.name
                if name.startswith("test"):
                    methods.append(self.method(stmt, requires))
                    self.pinned(stmt, requires, "body")
                elif name in ("setUp", "setUpClass"):
                    self.setup_skips(stmt.body, requires)
                    self.pinned(stmt, requires, "setup")
            elif isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    if isinstance(target, ast.Name) and target.id == self.attribute:
                        declarations.append(
                            Declaration(
                                stmt.lineno,
                                self.column(stmt.lineno, stmt.col_offset),
                                declared_value(stmt.value),
                                "body",
                            )
                        )
            elif isinstance(stmt, ast.AnnAssign):
                annotated = stmt.target
                if isinstance(annotated, ast.Name) and annotated.id == self.attribute:
                    value = declared_value(stmt.value) if stmt.value is not None else Value("missing", "")
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
        """A test method, its decorators' requirements added to `requires`."""
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
            device = guard_device(decorator.args[0], lowered == "skipif", self.device_names)
        else:
            device = required_device(name, self.device_names)
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
        if BACKEND_DECORATOR.match(name):
            self._backend_decorators.append(self.backend_decorator(decorator, name))

    def backend_decorator(self, decorator: ast.expr, name: str) -> Site:
        """`@requires_nccl()`: a hard-coded device (HWC201), named by the decorator."""
        line = decorator.lineno
        return Site(line, self.column(line, decorator.col_offset), _decorator_text(decorator), "decorator", name)

    def pinned(self, node: ast.FunctionDef | ast.AsyncFunctionDef, requires: list[Site], kind: RequirementKind) -> None:
        """The first line of a test (or setUp) that pins memory, which needs
        an accelerator whichever it is (requirements.PINNED): the test
        needs one ("body"), or every test of the class does ("setup")."""
        if not self._pins:
            return
        for line in range(node.body[0].lineno, (node.end_lineno or node.lineno) + 1):
            text = self.lines[line - 1]
            if "pin_memory" not in text:
                continue
            found = PINNED.search(text.split("#", 1)[0])
            if found is not None:
                at = len(text[: found.start()].encode("utf-8"))
                written = ".pin_memory()" if found.group(0).startswith(".") else "pin_memory=True"
                requires.append(Site(line, self.column(line, at), written, kind, ""))
                return

    def setup_skips(self, body: Iterable[ast.stmt], requires: list[Site]) -> None:
        """`if not torch.cuda.is_available(): self.skipTest(...)` (or `raise
        unittest.SkipTest(...)`) at the top level of setUp/setUpClass: every
        test of the class skips without the accelerator."""
        for stmt in body:
            if not isinstance(stmt, ast.If) or not any(is_skip(s) for s in stmt.body):
                continue
            device = guard_device(stmt.test, True, self.device_names)
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


def _decorator_name(node: ast.expr) -> str:
    """`onlyCUDA` for `@onlyCUDA`, `@common_device_type.onlyCUDA`,
    `@onlyOn("cuda")` and `@self.x[0].onlyCUDA` (as TEST_LINTER names them)."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def declared_value(node: ast.expr) -> Value:
    """The value a classification declaration assigns, as a Value."""
    if isinstance(node, ast.Attribute):
        dotted = dotted_name(node)
        if dotted:
            return Value("dotted", dotted)  # resolved against the imports (hwlint.facts.extract)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return Value("string", node.value)
    try:
        text = ast.unparse(node)
    except Exception:  # unparse has no contract for odd trees; the text is only for messages
        text = "<expression>"
    return Value("other", text[:80])
