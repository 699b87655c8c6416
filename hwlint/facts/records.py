"""The records a module's facts are made of: plain NamedTuples of str, int,
bool, None and tuples, small and picklable (facts.codec stores them)."""

# No `from __future__ import annotations` here: typing.NamedTuple compiles each
# string annotation into a ForwardRef, a third of this module's import time.

from typing import TYPE_CHECKING, Literal, NamedTuple

from hwlint.facts.read import ReadError

# The closed sets of kinds the records hold, for mypy: a misspelt kind is a
# type error. At run time each alias is `str`: the codec (hwlint.facts.codec)
# derives the compact form, and SCHEMA (part of the facts cache's key), from
# these annotations as run-time types, and a field stays a plain string in
# both, so the stored facts and the cache's key do not change.
if TYPE_CHECKING:
    ValueKind = Literal[
        "member",  # `Enum.MEMBER` (the member's name)
        "string",  # a string literal
        "missing",  # an annotation without a value
        "other",  # any other expression (its source)
        "dotted",  # a dotted name, until the extractor resolves it to "member" or "other"
    ]
    DeclarationWhere = Literal[
        "body",  # in the class's body
        "module",  # `TestFoo.attr = ...` at module level, after the class
    ]
    ProbeKind = Literal[
        "probe",  # asks about the accelerator: `torch.cuda.is_available()`
        "use",  # runs on it: `torch.empty(4).cuda()`, `torch.cuda.synchronize()`
        "flag",  # a flag that says it is there: `TEST_CUDA`
    ]
    DeviceKind = Literal[
        "keyword",  # `device="cuda"`
        "method",  # `.cuda()`
        "torch.device",  # `torch.device("cuda")`
        "to",  # `.to("cuda")`
        "module",  # `torch.cuda.synchronize()`; in `distributed`, `torch.cuda.device_count()`
        "assign",  # `device = "musa"` in a test: no rewrite
        "argument",  # `self._check("cuda")`: to the `device` parameter of the class's own method
        "device-type",  # `device_type="cuda"`, `torch.autocast("cuda")`: a device type, not a device
        "string",  # a device string no other kind accounts for (`check(x, "xpu")`): no rewrite
        "any-gpu",  # `GPU_TYPE`: whichever GPU the machine has; not a hard-coded device
    ]
    DistributedKind = Literal[
        "backend",  # a collective backend of one device family: `init_process_group("nccl")`
        "backend-options",  # the same, with backend-specific `pg_options`
        "decorator",  # a decorator that requires one: `@requires_nccl()`
        "fstring",  # a device string with a computed index: `f"cuda:{rank}"`
        "backend-feature",  # what only one backend has: `ProcessGroupNCCL`, `"NCCL_DEBUG"`
    ]
    RequirementKind = Literal[
        "class",  # a decorator on the class
        "test",  # a decorator on a test method
        "setup",  # a skip in setUp/setUpClass
        "devtype",  # a device from `get_devtype()`
        "body",  # what only runs with an accelerator, naming none, in a test's body: `.pin_memory()`
    ]
    SiteKind = Literal[
        ProbeKind,
        DeviceKind,
        DistributedKind,
        RequirementKind,
        "",  # none given (a Site made by hand)
    ]
    DynamicKind = Literal[
        "call",  # `[Name =] f(...)` at module level, bound to a name or published
        "publish",  # classes put in the module's namespace by globals()/setattr on the module
        "setattr",  # an attribute set on a class: `setattr(C, name, f)`, `C.test_x = f`
        "classification",  # the classification set on a name that is not a class of the module
    ]
else:
    ValueKind = DeclarationWhere = ProbeKind = DeviceKind = DistributedKind = RequirementKind = SiteKind = str
    DynamicKind = str


class Value(NamedTuple):
    """The right-hand side of a classification declaration."""

    kind: ValueKind
    text: str  # the member name, the string, or the expression's source


class Declaration(NamedTuple):
    line: int
    column: int
    value: Value
    where: DeclarationWhere


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
    # What is there (SiteKind): for probes, what the code does (ProbeKind);
    # for hard-coded devices (HWC201's rewrites), how the device is named
    # (DeviceKind), and `name` is the device string, the method, or the
    # module function's dotted name; ClassFacts.requires and
    # ClassFacts.distributed say what theirs hold.
    kind: SiteKind = ""
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
    """One class of the module: where it is, its bases, its own test methods,
    its declarations and decorators, and its accelerator sites."""

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
    # Hard-coded devices of distributed tests, for HWC201 only (what
    # hwlint.rules.infer weighs stays `devices`): a collective backend of one
    # device family (kind "backend", `init_process_group("nccl")`;
    # "backend-options" when backend-specific pg_options come with it), a
    # decorator that requires one ("decorator", `@requires_nccl()`), a
    # device string with a computed index ("fstring", `f"cuda:{rank}"`),
    # `torch.cuda.device_count()` ("module"), what only one backend has
    # ("backend-feature": `ProcessGroupNCCL`, `"NCCL_DEBUG"`; name: that).
    distributed: tuple[Site, ...] = ()
    # The module-level accelerator mentions (lines of
    # ModuleFacts.accelerator_lines) that the class never reaches: no name
    # it uses leads to them, and they do nothing at import
    # (hwlint.facts.reach). Empty: it may reach them all.
    unreached: tuple[int, ...] = ()
    # The probes whose answer leaves a test running on a CPU-only runner,
    # the same way (hwlint.facts.device_sites: a skip *when* there is an
    # accelerator, an answer handed on, a branch on one): not HWC105's, not
    # what makes a test a device test, but no clear evidence for a safe
    # GENERIC either (hwlint.rules.infer).
    questions: tuple[Site, ...] = ()


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


class DeviceBinding(NamedTuple):
    """A module-level name bound to one accelerator's device (`xpu_device =
    torch.device("xpu")`, `device = "npu:0"`): a class that uses the name
    uses that device, though its own lines never name it."""

    line: int  # where the statement mentions the device (a line of ModuleFacts.accelerator_lines)
    name: str
    device: str  # the device type ("xpu"), without an index


class FoundDevice(NamedTuple):
    """An accelerator device name the module uses that the configuration
    does not name, where it is first used (hwlint.facts.devices.discover)."""

    name: str  # the device type ("mlu")
    line: int
    column: int
    text: str  # how it is written there (`.to("mlu:0")`, `import torch_mlu`)


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
    kind: DynamicKind
    func: str  # the called function's last name; "" when none
    target: str  # the name bound or the class named; "" when not a plain name
    args: tuple[str | None, ...]  # positional arguments: a plain name or a string's value; None otherwise


class ModuleFacts(NamedTuple):
    """What the rules know of one module: its classes, instantiations, imports
    and noqa comments, or why it has none (`error`, `skip_file`)."""

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
    device_bindings: tuple[DeviceBinding, ...] = ()
    # Module-level names bound to GPU_TYPE (`DEVICE = GPU_TYPE`, in any
    # branch): a class that uses one runs on the machine's GPU, not GENERIC.
    gpu_bindings: tuple[DeviceBinding, ...] = ()
    # Accelerator device names the module uses that the configuration does
    # not name (`.to("mlu")` in an out-of-tree backend's tests): matched as
    # devices in this module's facts all the same (hwlint.facts.devices.discover).
    devices_found: tuple[FoundDevice, ...] = ()

    def bindings_reached(self, cls: ClassFacts) -> tuple[DeviceBinding, ...]:
        """The device bindings of the module that `cls` reaches (one of its
        mentions that the class does not leave unreached)."""
        far = set(cls.unreached)
        return tuple(b for b in self.device_bindings if b.line not in far)

    def suppressed(self, line: int, code: str) -> bool:
        """Whether a noqa comment on `line` suppresses `code` (a bare `# noqa`: every code)."""
        if line not in self.noqa:
            return False
        codes = self.noqa[line]
        return codes is None or any(code.startswith(c) for c in codes)
