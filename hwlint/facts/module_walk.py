"""The walk of a module's top level: its classes (read by
hwlint.facts.classes), the instantiations of device-type tests, the
imports, the classification declarations made after a class
(`TestFoo.attr = ...`), the names bound to one accelerator's device, and
the statements that mention an accelerator outside classes."""

import ast
import bisect
import re
from typing import Iterable, cast

from hwlint.facts.classes import ClassReader, declared_value
from hwlint.facts.device_sites import device_string
from hwlint.facts.devices import ANY_GPU_NAMES, asked_spans, device_writes, without_spans, written
from hwlint.facts.module_text import ModuleText
from hwlint.facts.reach import Statement, is_main_guard
from hwlint.facts.records import Branch, ClassFacts, Declaration, DeviceBinding, Import, Instantiation
from hwlint.facts.vocabulary import INSTANTIATE, dotted_name


def _strings(node: ast.expr) -> tuple[str, ...]:
    """A literal device list (`"cuda"`, `("cpu", "cuda")`) as a tuple; () when not literal."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return (node.value,)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        values = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        if len(values) == len(node.elts):
            return tuple(values)
    return ()


class ModuleWalk:
    """Walks one module's top level once, collecting its records."""

    def __init__(self, text: ModuleText, attribute: str) -> None:
        self.text = text
        self.column = text.column
        self.vocabulary = text.vocabulary
        self.device_names = text.device_names
        # A device written where a device goes, or its module called (`torch.cuda.synchronize()`).
        self.writes = device_writes(tuple(sorted(self.device_names)), calls=True)
        self.attribute = attribute
        self.reader = ClassReader(text, attribute)
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
        self.gpu_bindings: list[DeviceBinding] = []

    def note_module_mention(self, first: int, last: int, node: ast.AST | None = None) -> int:
        """The first line from `first` to `last` that mentions an
        accelerator, noted as a module-level mention; 0 when none does. In
        `node`, a line whose mentions only ask which device something is on
        (`_is_device("xpu", w.device)`) mentions none."""
        asked: dict[int, list[tuple[int, int]]] | None = None
        # (`get_devtype()` lines ask nothing of a string.)
        for hits, askable in ((self.text.hits(), node), (self.text.devtype_lines(), None)):
            for at in hits[bisect.bisect_left(hits, first) : bisect.bisect_right(hits, last)]:
                if askable is not None:
                    asked = asked_spans(askable) if asked is None else asked
                    if at in asked and not self.vocabulary.text.search(
                        without_spans(self.text.lines[at - 1], asked[at])
                    ):
                        continue
                self.module_mentions.append(at)
                return at
        return 0

    def block(self, body: Iterable[ast.stmt], branch: Branch, loops: dict[str, tuple[str, ...]]) -> None:
        """The statements of `body`, at `branch`, with `loops` (a loop
        variable -> the class names a literal loop gives it)."""
        for stmt in body:
            kind = type(stmt)
            line = 0
            if kind not in _NOT_MENTIONS and not _is_instantiation(stmt):
                line = self.note_module_mention(stmt.lineno, stmt.end_lineno or stmt.lineno, stmt)
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
                self.classes.append(self.reader.read(stmt, branch))
            elif isinstance(stmt, ast.Expr):
                self.maybe_instantiation(stmt.value, branch, loops)
            elif isinstance(stmt, ast.Assign):
                self.assignment(stmt, branch, loops)
                if line and not self.in_main:
                    self.device_binding(stmt, line)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and line and not self.in_main:
                self.function_binding(stmt, line)
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
        """`TestFoo.attr = ...` (a declaration after the class), and an
        instantiation whose result is assigned."""
        for target in stmt.targets:
            if (
                isinstance(target, ast.Attribute)
                and target.attr == self.attribute
                and isinstance(target.value, ast.Name)
            ):
                decl = Declaration(
                    stmt.lineno, self.column(stmt.lineno, stmt.col_offset), declared_value(stmt.value), "module"
                )
                for name in loops.get(target.value.id, (target.value.id,)):
                    self.module_declarations.append((name, decl))
        self.maybe_instantiation(stmt.value, branch, loops)

    def device_binding(self, stmt: ast.Assign, line: int) -> None:
        """`NAME = "xpu"`, `NAME = "xpu:0"`, `NAME = torch.device("xpu")`
        (`line`: where it mentions the device)."""
        if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
            return
        value = stmt.value
        if isinstance(value, ast.Name) and value.id in ANY_GPU_NAMES:
            # `TRITON_DEVICE_TYPE = GPU_TYPE`, in any branch: whichever GPU
            # the machine has, never one device's; bound once or not.
            self.gpu_bindings.append(DeviceBinding(line, stmt.targets[0].id, value.id))
            return
        if (
            isinstance(value, ast.Call)
            and value.args
            and not value.keywords
            and len(value.args) <= 2
            and dotted_name(value.func) == "torch.device"
        ):
            value = value.args[0]
        named = device_string(value, self.vocabulary)
        device = named.split(":", 1)[0] if named is not None else None
        if device is not None and device in self.device_names:
            self.device_bindings.append(DeviceBinding(line, stmt.targets[0].id, device))

    def function_binding(self, stmt: ast.FunctionDef | ast.AsyncFunctionDef, line: int) -> None:
        """`def _producer(queue): t = torch.arange(4, device="openreg:0")`: a
        module-level function each of whose lines that mention an
        accelerator writes one device where a device goes (a device string,
        `.cuda()`) or calls its module (`torch.cuda.synchronize()`), the
        same one: calling it runs on that device as surely as using
        `DEVICE = "openreg"` does. A line that only asks
        (`torch.cuda.is_available()`), or a CPU it falls back to, binds it to none. (`line`: where it first
        mentions the device.)"""
        hits = self.text.hits()
        end = stmt.end_lineno or stmt.lineno
        if any(_FALLS_BACK.search(text) for text in self.text.lines[stmt.lineno - 1 : end]):
            return  # `return "cuda" if ... else "cpu"`: the device there is, or the CPU
        named: set[str] = set()
        asked = asked_spans(stmt)  # (`_is_device("xpu", w.device)` asks: it writes no device)
        for at in hits[bisect.bisect_left(hits, stmt.lineno) : bisect.bisect_right(hits, end)]:
            text = without_spans(self.text.lines[at - 1], asked.get(at, ())).split("#", 1)[0]
            found = written(self.writes, text)
            if not found and at in asked and not self.vocabulary.text.search(text):
                continue  # (`assert t.device.type == "openreg"`: it only asks)
            if not found:
                return
            named |= found
        if len(named) == 1:
            self.device_bindings.append(DeviceBinding(line, stmt.name, named.pop()))

    def maybe_instantiation(self, node: ast.expr, branch: Branch, loops: dict[str, tuple[str, ...]]) -> None:
        """`instantiate_device_type_tests(...)`, one Instantiation per class it names."""
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


# The CPU chosen as the device (`return "cpu"`, `... else "cpu"`, `device = "cpu"`),
# not a tensor copied back to it (`.to("cpu")`, `.cpu()`).
_FALLS_BACK = re.compile(r"""(?:\breturn\s+|\belse\s+|^\s*\w+\s*=\s*)["']cpu["']""")
