"""The accelerator sites of a class: probes (calls that ask about an
accelerator or run on it, and flags), hard-coded devices (`device="cuda"`,
`.cuda()`, `torch.cuda.synchronize()`, `GPU_TYPE`) and what distributed
tests hard-code (collective backends, `f"cuda:{rank}"`), found on the lines
the module's text says may hold them."""

import ast
from typing import Iterator, cast

from hwlint.facts.backends import BACKEND_CLASSES, BACKEND_ENV, BACKENDS, is_distributed
from hwlint.facts.devices import ANY_GPU_NAMES
from hwlint.facts.module_text import ModuleText
from hwlint.facts.records import DistributedKind, ProbeKind, Site
from hwlint.facts.vocabulary import Vocabulary, dotted_name
from hwlint.facts.walk import walk_lines

# Calls into a device module that only ask a question: probes, not hard-coded
# use. (`device_count()` is not one: distributed tests size their world with
# it, and torch.accelerator has it.)
_QUESTIONS = frozenset({"is_available", "is_built", "is_bf16_supported"})


class SiteFinder:
    """Finds the sites on a class's lines, in one module."""

    def __init__(self, text: ModuleText) -> None:
        self.column = text.column
        self.vocabulary = text.vocabulary
        self.device_names = text.device_names

    def accelerator_sites(
        self, node: ast.ClassDef, hit_lines: list[int]
    ) -> tuple[tuple[Site, ...], tuple[Site, ...], tuple[Site, ...]]:
        """The probes, hard-coded devices and distributed sites on the
        `hit_lines` of the class `node`, each in source order."""
        # Keyed by the node's whole span: `torch.cuda.get_device_name(0).lower()`
        # is two calls into CUDA that start at the same place, and TEST_LINTER
        # counts both.
        probes: dict[tuple[int, int, int, int], Site] = {}
        devices: dict[tuple[int, int], Site] = {}
        distributed: dict[tuple[int, int], Site] = {}
        vocabulary = self.vocabulary
        flags = vocabulary.flags
        # The probes whose answer leaves a test running on a CPU-only runner
        # (see `_questions`): a parent is walked before its children, so it
        # names them here before they are met.
        questions: set[int] = set()
        for sub in walk_lines(node, hit_lines):
            kind = type(sub)
            if kind is ast.Call:
                call = cast(ast.Call, sub)
                if call.args or call.keywords:
                    questions.update(self._questions(call))
                probe = self.accelerator_call(call) if id(call) not in questions else None
                if probe is not None:
                    probes[(call.lineno, call.col_offset, call.end_lineno or 0, call.end_col_offset or 0)] = probe
                site = self.device_use(call)
                if site is not None:
                    (distributed if is_distributed(site) else devices)[(site.line, site.column)] = site
            elif kind is ast.Name:
                named = cast(ast.Name, sub)
                name = named.id
                if name in flags and id(named) not in questions:
                    line, col = named.lineno, named.col_offset
                    probes[(line, col, line, col)] = Site(line, self.column(line, col), name, "flag")
                elif name in ANY_GPU_NAMES:
                    # `device=GPU_TYPE`, `device = GPU_TYPE`: whichever GPU the machine has.
                    line, col = named.lineno, named.col_offset
                    devices[(line, col)] = Site(line, self.column(line, col), name, "any-gpu", name)
                elif name in BACKEND_CLASSES:
                    feature = self.backend_feature(named, name)
                    distributed[(feature.line, feature.column)] = feature
            elif kind is ast.Attribute:
                attribute = cast(ast.Attribute, sub)
                if attribute.attr in BACKEND_CLASSES:
                    feature = self.backend_feature(attribute, attribute.attr)
                    distributed[(feature.line, feature.column)] = feature
            elif kind is ast.Constant:
                constant = cast(ast.Constant, sub)
                value = constant.value
                if isinstance(value, str) and "CCL_" in value and BACKEND_ENV.match(value):
                    feature = self.backend_feature(constant, value)
                    distributed[(feature.line, feature.column)] = feature
            elif kind is ast.If or kind is ast.IfExp:
                questions.update(self._guarded(cast("ast.If | ast.IfExp", sub)))
            elif kind is ast.Assign:
                # `device = "musa"` in a test: the device its tensors then go to.
                assign = cast(ast.Assign, sub)
                value = device_string(assign.value, vocabulary)
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
            tuple(sorted(probes.values(), key=site_key)),
            tuple(sorted(devices.values(), key=site_key)),
            tuple(sorted(distributed.values(), key=site_key)),
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

    def _is_answer(self, node: ast.expr) -> bool:
        """Whether `node` is a yes/no answer about an accelerator that needs
        none to be given: `torch.cuda.is_available()`, `TEST_CUDA`."""
        if isinstance(node, ast.Name):
            return node.id in self.vocabulary.flags
        if not isinstance(node, ast.Call) or node.args or node.keywords:
            return False
        func = node.func
        if not isinstance(func, ast.Attribute) or func.attr not in _ANSWERS:
            return False
        probe = self.accelerator_call(node)
        return probe is not None and probe.kind == "probe"

    def _guarded(self, branch: "ast.If | ast.IfExp") -> Iterator[int]:
        """What a branch on an accelerator's presence keeps off a CPU-only
        runner (by `id`): its condition, and every call in the arm taken only
        where there is one (`if torch.cuda.is_available(): torch.cuda.device(0)`;
        `not ...`: the `else` arm; `... and torch.cuda.device_count() > 1`: the
        rest of the condition too). `if torch.cuda.is_available():
        self.skipTest(...)` skips where there is one: the test runs without.
        `if not ...: self.skipTest(...)` makes the test need one: a probe."""
        answer = branch.test
        negated = isinstance(answer, ast.UnaryOp) and isinstance(answer.op, ast.Not)
        rest: list[ast.expr] = []
        if isinstance(answer, ast.UnaryOp) and negated:
            answer = answer.operand
        elif isinstance(answer, ast.BoolOp) and isinstance(answer.op, ast.And):
            rest = answer.values[1:]
            answer = answer.values[0]
        if not self._is_answer(answer):
            return
        body = branch.body if isinstance(branch, ast.If) else [branch.body]
        if isinstance(branch, ast.If) and _skips(branch.body[0]):
            if not negated and not rest:
                yield id(answer)
            return
        yield id(answer)
        arm = branch.orelse if negated else body
        for part in (*rest, *(arm if isinstance(arm, list) else [arm])):
            for sub in ast.walk(part):
                if type(sub) is ast.Call or type(sub) is ast.Name:
                    yield id(sub)

    def _questions(self, call: ast.Call) -> Iterator[int]:
        """The probes among `call`'s arguments that do not make the test
        need an accelerator (by `id`): the condition of a skip *when* there
        is one (`@skipIf(torch.accelerator.is_available(), ...)`,
        `@skipUnless(not TEST_CUDA, ...)`), and an answer handed on to the
        code under test (`Config(pinned=torch.accelerator.is_available())`).
        A skip *unless* there is one, an assertion, or a requirement does
        make it need one: those stay probes (HWC105)."""
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name in ("skipIf", "skipif"):
            condition = call.args[0] if call.args else None
            if condition is not None and self._is_answer(condition):
                yield id(condition)
            return
        if name == "skipUnless":
            condition = call.args[0] if call.args else None
            if isinstance(condition, ast.UnaryOp) and isinstance(condition.op, ast.Not):
                if self._is_answer(condition.operand):
                    yield id(condition.operand)
            return
        if name.startswith(_GATES):
            return
        for argument in call.args:
            if self._is_answer(argument):
                yield id(argument)
        for keyword in call.keywords:
            if self._is_answer(keyword.value):
                yield id(keyword.value)

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
        if not (isinstance(found, ast.Constant) and isinstance(found.value, str) and found.value in BACKENDS):
            return None
        kind: DistributedKind = "backend-options" if any(kw.arg == "pg_options" for kw in call.keywords) else "backend"
        return Site(
            found.lineno, self.column(found.lineno, found.col_offset), f'backend "{found.value}"', kind, found.value
        )

    def device_use(self, call: ast.Call) -> Site | None:
        """A hard-coded device the call names or runs on (`device="cuda"`,
        a collective backend, `.cuda()`, `torch.device("cuda")`,
        `.to("cuda")`, `torch.cuda.synchronize()`), or None."""
        func = call.func
        vocabulary = self.vocabulary
        where = (call.lineno, self.column(call.lineno, call.col_offset))
        for kw in call.keywords:
            value = device_string(kw.value, vocabulary) if kw.arg == "device" else None
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
                value = device_string(call.args[0], vocabulary) if call.args else None
                if value is not None:
                    if dotted == "torch.device":
                        return Site(*where, f'torch.device("{value}")', "torch.device", value)
                    return Site(*method_at, f'.to("{value}")', "to", value)
            if in_module and func.attr not in _QUESTIONS:
                return Site(*where, f"{dotted}()", "module", dotted)
        return None


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


# The questions a CPU-only runner answers "no" to without raising.
_ANSWERS = frozenset({"is_available", "is_built"})

# Callables whose argument decides whether a test runs or passes: an answer
# given to them makes the test need (or refuse) an accelerator.
_GATES = ("skip", "Skip", "require", "assert", "only", "expected", "xfail", "unless")


def _skips(statement: ast.stmt) -> bool:
    """Whether `statement` ends the test: `self.skipTest(...)`, `raise
    unittest.SkipTest(...)`, `return`."""
    if isinstance(statement, ast.Return):
        return True
    if isinstance(statement, ast.Raise) and statement.exc is not None:
        raised = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
        return dotted_name(raised).endswith("SkipTest")
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        func = statement.value.func
        return isinstance(func, ast.Attribute) and func.attr == "skipTest"
    return False


def _is_question(name: str) -> bool:
    return name in _ASKING or name.startswith(("is_", "has_"))


def site_key(site: Site) -> tuple[int, int]:
    """Sites in source order."""
    return (site.line, site.column)


def device_string(node: ast.expr, vocabulary: Vocabulary) -> str | None:
    """The device a literal names (`"cuda"`, `"cuda:1"`), or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and vocabulary.device_string.match(node.value):
        return node.value
    return None
