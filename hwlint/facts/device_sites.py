"""The accelerator sites of a class: probes (calls that ask about an
accelerator or run on it, and flags), hard-coded devices (`device="cuda"`,
`.cuda()`, `torch.cuda.synchronize()`, `GPU_TYPE`) and what distributed
tests hard-code (collective backends, `f"cuda:{rank}"`), found on the lines
the module's text says may hold them."""

import ast
from typing import Any, Callable, Iterator

from hwlint.facts.backends import BACKEND_CLASSES, BACKEND_ENV, BACKENDS, is_distributed, returned_backends
from hwlint.facts.devices import ANY_GPU_NAMES, TAKES_DEVICE_TYPE, asked_device_strings, compared_device_types
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
        self, node: ast.ClassDef, hit_lines: list[int], classes: dict[str, ast.ClassDef] | None = None
    ) -> tuple[tuple[Site, ...], tuple[Site, ...], tuple[Site, ...], tuple[Site, ...]]:
        """The probes, hard-coded devices, distributed sites and questions
        (probes whose answer leaves a test running without an accelerator)
        on the `hit_lines` of the class `node`, each in source order;
        `classes`: the module's classes before it, by name (its bases'
        helpers are its own)."""
        walk = _ClassWalk(self, node, classes or {})
        visits = walk.visits
        for sub in walk_lines(node, hit_lines):
            visit = visits.get(type(sub))
            if visit is not None:
                visit(sub)
        return walk.sites()

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
        if not found and func.attr == _PRIVATEUSE1_NAME:
            # `torch._C._get_privateuse1_backend_name()`: which device the
            # out-of-tree backend is (Ascend's tests build theirs from it).
            found = True
        if not found:
            return None
        text = vocabulary.qualified(prefix, text)
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
            # `options.use_async and torch.accelerator.is_available()`: the
            # answer may be any of the terms; those after it run only where
            # there is an accelerator.
            at = next((k for k, value in enumerate(answer.values) if self._is_answer(value)), 0)
            rest = answer.values[at + 1 :]
            answer = answer.values[at]
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

    def helper_argument(self, call: ast.Call, helpers: dict[str, list[str]]) -> Site | None:
        """`self._check("cuda", ...)` where the class's own `_check(self,
        device, ...)` takes the device there: a device string handed to a
        helper that is already device-generic."""
        assert isinstance(call.func, ast.Attribute)
        name = call.func.attr
        params = helpers.get(name)
        if params is None:
            return None
        for position, argument in enumerate(call.args):
            if isinstance(argument, ast.Starred):
                return None
            value = device_string(argument, self.vocabulary)
            if value is not None and position + 1 < len(params) and params[position + 1] == "device":
                line = argument.lineno
                return Site(
                    line,
                    self.column(line, argument.col_offset),
                    f'"{value}" (to {name}\'s `device`)',
                    "argument",
                    value,
                )
        return None

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
            value = device_string(kw.value, vocabulary) if kw.arg in ("device", "device_type", "use_device") else None
            if value is not None:
                return Site(
                    kw.value.lineno,
                    self.column(kw.value.lineno, kw.value.col_offset),
                    f'{kw.arg}="{value}"',
                    "keyword" if kw.arg == "device" else "device-type",  # use_device="cuda": a type
                    value,
                )
        backend = self.backend_use(call)
        if backend is not None:
            return backend
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name == "set_default_device" and call.args:
            value = device_string(call.args[0], vocabulary)
            if value is not None:
                first = call.args[0]
                line = first.lineno
                return Site(line, self.column(line, first.col_offset), f'{name}("{value}")', "argument", value)
        if name in TAKES_DEVICE_TYPE and call.args:
            value = device_string(call.args[0], vocabulary)
            if value is not None and ":" not in value:
                first = call.args[0]
                return Site(
                    first.lineno,
                    self.column(first.lineno, first.col_offset),
                    f'{name}("{value}")',
                    "device-type",
                    value,
                )
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


_PRIVATEUSE1_NAME = "_get_privateuse1_backend_name"

# Calls that ask about an accelerator rather than run on it.
_ASKING = frozenset(
    {
        _PRIVATEUSE1_NAME,
        "device_count",
        "current_accelerator",
        "current_device",
        "get_device_name",
        "get_device_capability",
        "get_device_properties",
        "get_arch_list",
    }
)


class _ClassWalk:
    """What one walk of a class's lines finds (SiteFinder.accelerator_sites),
    a method per kind of node. A parent is walked before its children, so it
    marks them (`questions`, `plain`) before they are met."""

    def __init__(self, finder: SiteFinder, node: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> None:
        self.finder = finder
        self.node = node
        self.classes = classes
        self.column = finder.column
        self.vocabulary = finder.vocabulary
        # Keyed by the node's whole span: `torch.cuda.get_device_name(0).lower()`
        # is two calls into CUDA that start at the same place, and TEST_LINTER
        # counts both.
        self.probes: dict[tuple[int, int, int, int], Site] = {}
        self.asked: dict[tuple[int, int, int, int], Site] = {}  # the probes that are questions
        self.devices: dict[tuple[int, int], Site] = {}
        self.distributed: dict[tuple[int, int], Site] = {}
        # Device strings no other site accounts for (`test(x, "xpu")`).
        self.strings: dict[tuple[int, int], Site] = {}
        # The nodes (by `id`) of the probes whose answer leaves a test running
        # on a CPU-only runner (SiteFinder._questions, _guarded), and of the
        # strings that are keys, messages or docstrings, not devices.
        self.question_ids: set[int] = set()
        self.plain_ids: set[int] = set()
        self.helpers: dict[str, list[str]] | None = None  # the class's own methods' parameters, when asked
        self.visits: dict[type, Callable[[Any], None]] = {
            ast.Call: self.call,
            ast.Name: self.name,
            ast.Attribute: self.attribute,
            ast.Constant: self.constant,
            ast.Subscript: self.subscript,
            ast.Dict: self.dict,
            ast.Expr: self.expr,
            ast.arguments: self.arguments,
            ast.If: self.branch,
            ast.IfExp: self.branch,
            ast.Assign: self.assign,
            ast.JoinedStr: self.fstring,
            ast.FunctionDef: self.function,
            ast.Compare: self.compare,
        }

    def sites(self) -> tuple[tuple[Site, ...], tuple[Site, ...], tuple[Site, ...], tuple[Site, ...]]:
        devices = self.devices
        if self.strings:
            taken = {s.line for s in (*self.probes.values(), *devices.values(), *self.distributed.values())}
            devices.update((where, s) for where, s in self.strings.items() if s.line not in taken)
        return (
            tuple(sorted(self.probes.values(), key=site_key)),
            tuple(sorted(devices.values(), key=site_key)),
            tuple(sorted(self.distributed.values(), key=site_key)),
            tuple(sorted(self.asked.values(), key=site_key)),
        )

    def _feature(self, site: Site) -> None:
        """What only one collective backend has: a distributed site, always."""
        self.distributed[(site.line, site.column)] = site

    def _place(self, site: Site) -> None:
        (self.distributed if is_distributed(site) else self.devices)[(site.line, site.column)] = site

    def call(self, call: ast.Call) -> None:
        finder = self.finder
        if call.args or call.keywords:
            self.question_ids.update(finder._questions(call))
            self.plain_ids.update(_not_devices(call))
        probe = finder.accelerator_call(call)
        if probe is not None:
            where = (call.lineno, call.col_offset, call.end_lineno or 0, call.end_col_offset or 0)
            (self.asked if id(call) in self.question_ids else self.probes)[where] = probe
        site = finder.device_use(call)
        if site is None and call.args and _on_self(call.func):
            if self.helpers is None:
                self.helpers = _parameters(self.node, self.classes)
            site = finder.helper_argument(call, self.helpers)
        if site is not None:
            self._place(site)

    def name(self, named: ast.Name) -> None:
        name = named.id
        line, col = named.lineno, named.col_offset
        if name in self.vocabulary.flags:
            flag = Site(line, self.column(line, col), name, "flag")
            (self.asked if id(named) in self.question_ids else self.probes)[(line, col, line, col)] = flag
        elif name in ANY_GPU_NAMES:
            # `device=GPU_TYPE`, `device = GPU_TYPE`: whichever GPU the machine has.
            self.devices[(line, col)] = Site(line, self.column(line, col), name, "any-gpu", name)
        elif name in BACKEND_CLASSES:
            self._feature(self.finder.backend_feature(named, name))

    def attribute(self, attribute: ast.Attribute) -> None:
        if attribute.attr in BACKEND_CLASSES:
            self._feature(self.finder.backend_feature(attribute, attribute.attr))
        elif attribute.attr in self.vocabulary.backends:
            parent = attribute.value
            if (
                isinstance(parent, ast.Attribute)
                and parent.attr == "backends"
                and isinstance(parent.value, ast.Name)
                and parent.value.id == "torch"
            ):
                # `torch.backends.mlu.matmul.allow_tf32 = True`: an out-of-tree
                # backend's settings, which only its package makes.
                line = attribute.lineno
                where = (line, attribute.col_offset, attribute.end_lineno or 0, attribute.end_col_offset or 0)
                text = f"torch.backends.{attribute.attr}"
                self.probes[where] = Site(line, self.column(line, attribute.col_offset), text, "use", text)

    def constant(self, constant: ast.Constant) -> None:
        value = constant.value
        if type(value) is not str:
            return
        if "CCL_" in value and BACKEND_ENV.match(value):
            self._feature(self.finder.backend_feature(constant, value))
        elif id(constant) not in self.plain_ids and self.vocabulary.device_string.match(value):
            line = constant.lineno
            self.strings[(line, constant.col_offset)] = Site(
                line, self.column(line, constant.col_offset), f'"{value}"', "string", value
            )

    def compare(self, node: ast.Compare) -> None:
        self.plain_ids.update(id(c) for c in compared_device_types(node))  # which device: asked, not placed

    def subscript(self, node: ast.Subscript) -> None:
        self.plain_ids.add(id(node.slice))  # `results["xla"]`: a key, not a device

    def dict(self, node: ast.Dict) -> None:
        self.plain_ids.update(id(key) for key in node.keys if key is not None)

    def expr(self, node: ast.Expr) -> None:
        self.plain_ids.add(id(node.value))  # a docstring

    def arguments(self, node: ast.arguments) -> None:
        # A parameter's default (`device="cuda"`): the device the test would
        # take, which HWC102 and the migrations weigh apart.
        self.plain_ids.update(id(d) for d in (*node.defaults, *node.kw_defaults) if d is not None)

    def branch(self, node: "ast.If | ast.IfExp") -> None:
        self.question_ids.update(self.finder._guarded(node))

    def assign(self, assign: ast.Assign) -> None:
        # `device = "musa"` in a test: the device its tensors then go to.
        value = device_string(assign.value, self.vocabulary)
        if value is not None and len(assign.targets) == 1 and isinstance(assign.targets[0], ast.Name):
            line = assign.value.lineno
            self.devices[(line, assign.value.col_offset)] = Site(
                line,
                self.column(line, assign.value.col_offset),
                f'{assign.targets[0].id} = "{value}"',
                "assign",
                value,
            )

    def function(self, node: ast.FunctionDef) -> None:
        for value, name in returned_backends(node):
            self.plain_ids.add(id(value))
            line = value.lineno
            self._place(Site(line, self.column(line, value.col_offset), f'backend "{name}"', "backend", name))

    def fstring(self, node: ast.JoinedStr) -> None:
        site = self.finder.device_fstring(node)
        if site is not None:
            self.distributed[(site.line, site.column)] = site


def _not_devices(call: ast.Call) -> Iterator[int]:
    """The strings among `call`'s arguments that name no device to run on
    (by `id`): an attribute's name (`getattr(torch, "cuda")`), a skip's
    reason (`@skipUnless(HAS_XPU, "xpu")`), a message (`msg="cuda"`)."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if name in ("getattr", "hasattr", "setattr", "delattr") and len(call.args) > 1:
        yield id(call.args[1])
    elif name in ("skipIf", "skipUnless", "skipif", "expectedFailureIf"):
        yield from (id(a) for a in call.args[1:])  # after the condition
    elif name.startswith(("skip", "Skip", "expectedFailure", "xfail")):
        yield from (id(a) for a in call.args)  # `self.skipTest("cuda")`, `unittest.skip(...)`
    for keyword in call.keywords:
        if keyword.arg in ("msg", "reason", "message"):
            yield id(keyword.value)
    yield from (id(a) for a in asked_device_strings(call))  # which device: asked, not placed


def _on_self(func: ast.expr) -> bool:
    """`self.x` or `cls.x`."""
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("self", "cls")


def _parameters(
    node: ast.ClassDef, classes: dict[str, ast.ClassDef], seen: frozenset[str] = frozenset()
) -> dict[str, list[str]]:
    """The positional parameters of each method the class defines in its
    own body or a base of the same module does (a split's mixin: `self`
    first), by name; a static method's are shifted so that its first
    argument is where a bound call's first one goes."""
    found: dict[str, list[str]] = {}
    seen = seen | {node.name}  # a base named as the class (`class TestA(TestA)`) is another one
    for base in reversed(node.bases):
        if isinstance(base, ast.Name) and base.id in classes and base.id not in seen:
            found.update(_parameters(classes[base.id], classes, seen))
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = statement.args
            names = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
            if any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in statement.decorator_list):
                names.insert(0, "")
            found[statement.name] = names
    return found


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
