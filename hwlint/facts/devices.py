"""PyTorch's device knowledge, in one place: device names (in-tree, the
accelerators hwlint knows, what is no accelerator), the device-type
framework's rules for instantiation, decorators, flags and collective
backends with their devices, and the discovery of devices nobody configured.

Every other module reads these; none keeps a set of device names of its own
(tests/test_devices.py holds them to it).
"""

import ast
import functools
import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, NamedTuple

from hwlint.facts.records import FoundDevice

if TYPE_CHECKING:
    from hwlint.core.config import Config

# Device types that are no accelerator: a test on them runs on any CPU runner.
NOT_ACCELERATORS = frozenset({"cpu", "meta", "lazy", "mkldnn", "ideep"})
# Strings that sit where a device goes but name none (`device="auto"` is
# transformers' placement, `map_location="cpu"` aside).
NOT_DEVICES = frozenset({"auto", "balanced", "sequential", "disk", "default", "gpu", "none", "cpu_ram", "same"})

# The accelerators hwlint knows without configuration: the device names it
# matches (`device="cuda"`, `.to("xpu:1")`, `torch.device("npu")`), the
# tensor methods that move to one (`.cuda()`), the modules whose calls use
# one (`torch.cuda.synchronize()`), and the flags that say one is there.
DEVICES: tuple[str, ...] = ("cuda", "xpu", "mps", "npu", "hpu", "xla", "mtia")
# The devices whose `torch.backends.<device>` PyTorch has itself (or none):
# any other's comes with its backend package.
IN_TREE_BACKENDS = frozenset({"cuda", "xpu", "mps", "hpu", "xla", "mtia", "cpu", "meta"})
METHODS: tuple[str, ...] = ("cuda", "xpu", "npu")
DEVICE_MODULES: tuple[str, ...] = ("torch.cuda", "torch.xpu", "torch.mps", "torch.npu")
FLAGS: tuple[str, ...] = (
    "TEST_CUDA",
    "TEST_XPU",
    "TEST_MPS",
    "TEST_MULTIGPU",
    "TEST_CUDNN",
    "TEST_PRIVATEUSE1",
    "TEST_NPU",
)
# TEST_LINTER's [accelerator_availability] test: a call rooted at `torch`
# with one of these segments, kept exactly so that hwlint reports at least
# what it reports.
SEGMENTS: tuple[str, ...] = ("accelerator", "cuda", "hpu", "ipu", "mps", "mtia", "xla", "xpu")

# The device-type framework (common_device_type.instantiate_device_type_tests):
# the device types it instantiates for by default, those it needs an opt-in
# flag for, the order it lists them in, and the names an `only_for` may
# give that are not PrivateUse1 backends (any other name is mapped to
# "privateuse1" by the framework).
INSTANTIATED_BY_DEFAULT: tuple[str, ...] = ("cpu", "cuda", "hpu", "privateuse1")
OPT_IN: dict[str, str] = {"mps": "allow_mps", "xpu": "allow_xpu"}
FRAMEWORK_ORDER: tuple[str, ...] = ("cpu", "cuda", "mps", "xpu", "hpu", "privateuse1")
FRAMEWORK_DEVICES = frozenset({"cpu", "cuda", "mps", "xpu", "hpu", "lazy", "privateuse1"})
# Device types with test bases outside common_device_type (no call's
# complement lists them).
OUT_OF_TREE_BASES = frozenset({"xla", "mtia", "meta"})
# Device types PyTorch knows by name: any other device a runner names is a
# PrivateUse1 backend's (npu, openreg, ...), which `only_for="privateuse1"` covers.
NATIVE_DEVICES = frozenset({"cpu", "cuda", "meta", "mps", "xpu", "hpu", "lazy", "mtia", "xla"})
# The device types instantiate_device_type_tests can instantiate that are
# not native (common_utils' NATIVE_DEVICES): HPU (in tree) and XLA (out of
# tree, by TORCH_TEST_DEVICES).
NOT_NATIVE: tuple[str, ...] = ("hpu", "xla")
# The accelerators of the default one-device members, whose runners
# `fix --verify-runtime` collects for besides the CPU.
MEMBER_ACCELERATORS: tuple[str, ...] = ("cuda", "xpu", "mps")

# `@onlyCUDA` and its kin: the decorator and the one device it keeps a test on.
ONLY_DECORATORS: dict[str, str] = {"onlyCPU": "cpu", "onlyCUDA": "cuda", "onlyXPU": "xpu", "onlyMPS": "mps"}
# Collective backends of one device family (`backend="nccl"`).
BACKENDS: dict[str, str] = {"nccl": "cuda", "xccl": "xpu", "hccl": "npu"}

# Names PyTorch's own tests use for "whichever GPU this machine has"
# (torch.testing._internal.inductor_utils): a device, but no one device.
# `device=GPU_TYPE` is accelerator use whose migration is ACCELERATOR with a
# `device` parameter, never CUDA.
ANY_GPU_NAMES = frozenset({"GPU_TYPE"})
# torch's APIs whose first argument is a device type (`torch.autocast("cuda")`,
# `torch.amp.GradScaler("cuda")`, `init_device_mesh("cuda", (2,))`): a
# device named as plainly as `device="cuda"`.
TAKES_DEVICE_TYPE = frozenset(
    {
        "autocast",
        "GradScaler",
        "DeviceMesh",
        "init_device_mesh",
        "get_autocast_dtype",
        "set_autocast_dtype",
        "is_autocast_enabled",
        "set_autocast_enabled",
        "get_device_module",
    }
)
# Device types c10 has that no CI runner runs tests on (PyTorch's JIT tests
# name them to check type propagation): not reported as devices to configure.
UNRUN = frozenset({"vulkan", "opengl", "opencl", "fpga", "ve", "hip", "maia", "ipu", "privateuseone"})


@functools.lru_cache(maxsize=64)
def device_writes(names: tuple[str, ...], *, modules: bool = False, calls: bool = False) -> re.Pattern[str]:
    """Where a line writes one of `names` as a device: a device string
    (`"openreg"`, `'cuda:0'`), a tensor method (`.cuda()`), with `modules`
    a device module too (`torch.openreg.`), with `calls` a call into one
    that needs the device (`torch.cuda.synchronize()`, not
    `torch.cuda.is_available()` nor `torch.cuda.manual_seed(0)`).
    `written` says which."""
    if not names:
        return re.compile("(?!)")  # no name: nothing is written
    words = "|".join(re.escape(n) for n in names)
    module = rf"|\btorch\.({words})\." if modules else ""
    if calls:
        module += rf"|\btorch\.({words})\.(?!(?:{'|'.join(sorted(RUNS_WITHOUT_DEVICE))})\b)\w+\("
    return re.compile(rf"[\"']({words})(?::\d+)?[\"']|\.({words})\(" + module)


# A device module's calls that run without the device: questions (a
# CPU-only machine answers them: no device, none of them), and what the
# module does only once the device is in use (`torch.cuda.manual_seed(0)`
# is "silently ignored" without CUDA, `empty_cache()` too).
RUNS_WITHOUT_DEVICE = frozenset(
    {
        "is_available",
        "is_built",
        "is_bf16_supported",
        "device_count",
        "is_initialized",
        "manual_seed",
        "manual_seed_all",
        "seed",
        "seed_all",
        "empty_cache",
    }
)


def written(pattern: re.Pattern[str], text: str) -> set[str]:
    """The names a `device_writes` pattern finds written as a device in `text`."""
    return {next(g for g in found.groups() if g) for found in pattern.finditer(text)}


def module_of(name: str) -> str:
    """A device's module (`torch.mlu`): its calls are accelerator use."""
    return f"torch.{name}"


def flag_of(name: str) -> str:
    """A device's probe flag (`TEST_MLU`)."""
    return f"TEST_{name.upper()}"


def accelerator(name: str) -> bool:
    """Whether a device type is an accelerator (`cpu`, `meta` are not)."""
    return name not in NOT_ACCELERATORS


# The device-type framework's own decorators: a test wearing one is a device
# test (it takes `device`), whatever its body names.
DEVICE_TEST_DECORATORS: tuple[str, ...] = (
    "dtypes",
    "ops",
    "modules",
    "deviceCountAtLeast",
    "precisionOverride",
    "largeTensorTest",
    "skipMeta",
    "onlyAccelerator",
    "expectedFailureMeta",
)


def framework_type(device: str) -> str:
    """The device type a name in `only_for` stands for in the framework:
    its own types and the out-of-tree bases by name, any other name a
    PrivateUse1 backend's ("npu", "openreg": filter_desired_device_types
    maps it to "privateuse1")."""
    base = device.partition(":")[0].lower()
    if base in FRAMEWORK_DEVICES or base in OUT_OF_TREE_BASES:
        return base
    return "privateuse1"


def instantiable(allow_mps: bool, allow_xpu: bool) -> tuple[str, ...]:
    """The device types an instantiate_device_type_tests call with these
    flags can instantiate (where the machine has them), in the framework's
    order."""
    opted = {"mps": allow_mps, "xpu": allow_xpu}
    return tuple(d for d in FRAMEWORK_ORDER if d in INSTANTIATED_BY_DEFAULT or opted.get(d, False))


def complement(named: Iterable[str], allow_mps: bool, allow_xpu: bool) -> tuple[str, ...]:
    """`except_for` for a call with `only_for=named`: the device types it
    could instantiate that `named` does not name."""
    kinds = {framework_type(d) for d in named}
    return tuple(d for d in instantiable(allow_mps, allow_xpu) if d not in kinds)


# Where a device name is written: `.to("x"`, `device="x"` (also
# `device_type=`), `torch.device("x"`, `map_location="x"`, with `:0` or
# `f"x:{...}"`; the name is group 1, a lowercase identifier as device types
# are. One pattern per form, each led by a literal: re then scans for the
# literal at C speed, where one alternation (or a leading \b) made it try
# every position, a third of a cold run's parse time.
_NAME = r"""\s*f?["'](?!(?:{skip})[:"'])([a-z][a-z0-9_]*)(?::[^"'\n]*)?["']"""
# Each form, and whether a name character may end right before it
# (`x.to(` may; `some_device=` is not `device=`).
_FORMS = (
    (r"\.to\(", True),
    (r"device(?:_type)?\s*=", False),
    (r"torch\.device\(", False),
    (r"map_location\s*=", False),
)
_COMPILED: dict[frozenset[str], tuple[tuple[re.Pattern[str], bool], ...]] = {}


def _positions(known: frozenset[str]) -> tuple[tuple[re.Pattern[str], bool], ...]:
    """The forms compiled, skipping inside the regex the names that are no
    device to find (most matches: `.to("cpu")`, `device="cuda"`), so that
    Python sees only the rest: once per set of known names."""
    found = _COMPILED.get(known)
    if found is None:
        skip = "|".join(sorted(re.escape(n) for n in known | NOT_DEVICES | UNRUN | NOT_ACCELERATORS))
        found = _COMPILED[known] = tuple(
            (re.compile(form + _NAME.format(skip=skip)), after_word) for form, after_word in _FORMS
        )
    return found


# A backend registering its name: what PrivateUse1 becomes.
_REGISTERED = re.compile(r"""(?:rename_privateuse1_backend|_register_device_module)\(\s*["']([a-z][a-z0-9_]*)["']""")
# A call into a device module's API (`torch.musa.current_device()`,
# `torch.mlu.synchronize()`): the functions every device module has
# (torch.cuda's, which out-of-tree modules copy), on a name that is no
# torch submodule with functions of those names.
_DEVICE_API = re.compile(
    r"torch\.([a-z][a-z0-9_]*)\.(?:is_available|device_count|current_device|set_device|synchronize|empty_cache"
    r"|memory_allocated|max_memory_allocated|memory_reserved|reset_peak_memory_stats|manual_seed_all"
    r"|current_stream|default_stream|get_device_name|get_device_properties|get_device_capability|Stream|Event)\("
)
NOT_DEVICE_MODULES = frozenset(
    {
        "accelerator",
        "distributed",
        "backends",
        "autograd",
        "profiler",
        "jit",
        "nn",
        "utils",
        "random",
        "compiler",
        "testing",
        "_C",
        "ops",
        "library",
        "export",
    }
)
# A backend package (`import torch_mlu`, `from torch_musa import ...`): its
# name counts once the module also uses it as a device (`torch.mlu.`, `.mlu()`).
_PACKAGES = (re.compile(r"import[ \t]+torch_([a-z][a-z0-9]*)\b"), re.compile(r"from[ \t]+torch_([a-z][a-z0-9]*)\b"))


def _word_before(text: str, at: int) -> bool:
    """Whether a name character ends right before `at` (`some_device=`, `xtorch.`)."""
    return at > 0 and (text[at - 1].isalnum() or text[at - 1] == "_")


def discover(text: str, known: Iterable[str]) -> tuple[FoundDevice, ...]:
    """The accelerator device names `text` uses that are not `known`, each
    where first seen: written where a device goes, called as a device
    module (`torch.mlu.synchronize()`), or its backend package imported and
    the name used as a device module or a tensor method (`torch.mlu.`,
    `.mlu()`). Not in comments, nor a backend the module registers itself.
    A plain function of the text: a module's facts depend on it alone."""
    known = frozenset(known)
    found: dict[str, FoundDevice] = {}
    # A name a test module registers as the PrivateUse1 backend is one it
    # makes itself (PyTorch's test_utils and test_transformers register
    # "foo" from a C++ extension that runs on the CPU): a test of the
    # mechanism, not of a backend. A backend's own suite imports its
    # package, which registers the name.
    registered = (
        frozenset(m.group(1) for m in _REGISTERED.finditer(text))
        if ("_privateuse1_backend" in text or "_register_device_module" in text)
        else frozenset()
    )

    def take(name: str, at: int, end: int) -> None:
        if name in known or name in NOT_DEVICES or name in UNRUN or not accelerator(name):
            return
        start = text.rfind("\n", 0, at) + 1
        if "#" in text[start:at] or name in registered:
            return  # a comment; or a backend the module makes itself (below)
        above = text.rfind("\n", 0, max(start - 1, 0)) + 1
        stop = text.find("\n", at)
        if "Raises" in text[above : stop if stop >= 0 else len(text)]:
            return  # `assertRaises(..., lambda: torch.device("other"))`: a name that is no device, on purpose
        line = text.count("\n", 0, at) + 1
        column = at - start + 1
        written = text[at:end].strip()
        if written.count("(") > written.count(")"):
            written += ")"
        seen = found.get(name)
        if seen is None or (line, column) < (seen.line, seen.column):
            found[name] = FoundDevice(name, line, column, written)

    for pattern, after_word in _positions(known):
        for match in pattern.finditer(text):
            if after_word or not _word_before(text, match.start()):
                take(match.group(1), match.start(), match.end())
    if "torch." in text:
        for match in _DEVICE_API.finditer(text):
            if match.group(1) not in NOT_DEVICE_MODULES and not _word_before(text, match.start()):
                take(match.group(1), match.start(), match.end())
    if "torch_" in text:
        for pattern in _PACKAGES:
            for match in pattern.finditer(text):
                name = match.group(1)
                start = text.rfind("\n", 0, match.start()) + 1
                if text[start : match.start()].strip() or _word_before(text, match.start()):
                    continue  # not a statement of its own: `x = import_torch_...`
                if _package_device(text, name):
                    take(name, match.start(), match.end())
    return tuple(sorted(found.values(), key=lambda f: (f.line, f.column)))


def _package_device(text: str, name: str) -> bool:
    """Whether a module that imports `torch_<name>` also uses the name as a
    device: its device module (`torch.mlu.`, `torch.backends.mlu.`, the
    package's own `torch_dipu.dipu.`), a tensor method (`.mlu()`), or a
    device string (`"dipu"`, `'npu:0'`), as an out-of-tree backend's
    tests do. A package of that prefix that is no backend
    (`torch_geometric`, `torch_tensorrt`) names no such device."""
    return (
        f"torch.{name}." in text
        or f".{name}()" in text
        or f"torch.backends.{name}." in text
        or f"torch_{name}.{name}." in text
        or any(f"{quote}{name}{end}" in text for quote in "\"'" for end in (quote, ":"))
    )


def backend_packages(text: str, names: Iterable[str]) -> tuple[str, ...]:
    """The backend packages (`torch_dipu`) of the device `names` that the
    module imports: their calls (`torch_dipu.native_memory_format_cast(...)`)
    are that device's, as its `torch.<device>` module's are."""
    if "torch_" not in text:
        return ()
    imported = {m.group(1) for pattern in _PACKAGES for m in pattern.finditer(text)}
    return tuple(f"torch_{name}" for name in names if name in imported)


class Coverage(NamedTuple):
    """What covers devices hwlint found in the code: the `[tool.hwlint]`
    settings, whole (each list with what the configuration has already)."""

    classifications: tuple[str, ...]
    extend_devices: tuple[str, ...]
    extend_accelerator_modules: tuple[str, ...]
    extend_accelerator_flags: tuple[str, ...]

    def settings(self) -> dict[str, list[str]]:
        """The keys as `[tool.hwlint]` spells them, and their values."""
        return {key.replace("_", "-"): list(value) for key, value in self._asdict().items()}

    def toml(self) -> str:
        """The lines to put in `[tool.hwlint]` (the table's header first)."""

        def array(values: list[str]) -> str:
            return "[" + ", ".join(f'"{v}"' for v in values) + "]"

        return "[tool.hwlint]\n" + "".join(f"{key} = {array(values)}\n" for key, values in self.settings().items())


def coverage(found: Iterable[str], config: "Config") -> Coverage:
    """The settings that cover the `found` device names, with what the
    configuration has already: a member for each (what `fix` declares its
    classes), the device, its `torch.x` module, its `TEST_X` flag."""

    def add(old: tuple[str, ...], new: Iterable[str]) -> tuple[str, ...]:
        return tuple(dict.fromkeys((*old, *new)))

    names = tuple(dict.fromkeys(found))
    return Coverage(
        add(config.classifications, (n.upper() for n in names)),
        add(config.extend_devices, names),
        add(config.extend_accelerator_modules, map(module_of, names)),
        add(config.extend_accelerator_flags, map(flag_of, names)),
    )


def note(found: Iterable[tuple[str, int]], config: "Config") -> str:
    """What a command says of the devices it found that the configuration
    does not name (`found`: each name and how many files use it): the
    names, and the lines that cover them. "" when there are none."""
    found = tuple(found)
    if not found:
        return ""
    names = ", ".join(f"{name} ({n} file{'s' if n != 1 else ''})" for name, n in found)
    where = config.source.name if config.source is not None else "pyproject.toml"
    one = len(found) == 1
    return (
        f"Found {'a device' if one else f'{len(found)} devices'} the configuration does not name: {names}. "
        f"hwlint takes {'it' if one else 'them'} for {'an accelerator' if one else 'accelerators'}; these lines "
        f"cover {'it' if one else 'them'} (`hwlint devices --write` adds them to {where}):\n"
        + coverage((name for name, _ in found), config).toml()
    )


# What a comparison tells devices apart by: `self.device_type == "xpu"`,
# `torch.device(device).type in ("cuda", "xpu")`, a local `device_type`
# (the facts' comparisons, and the split's, hwlint.fix.migrate.split_members).
DEVICE_TYPE_ATTRIBUTES = frozenset({"device_type", "type"})
DEVICE_TYPE_NAME = "device_type"
# A call that asks whether something is on a device (torchao's
# `_is_device("xpu", w.device)`): a function named as a question, given a
# device (`.device`) or its type; its strings ask, as a comparison's do.
QUESTION_PREFIXES = ("is_", "_is_")
ASKED_OF = DEVICE_TYPE_ATTRIBUTES | {"device"}


def compared_device_types(node: ast.Compare) -> Iterator[ast.Constant]:
    """The strings a comparison of a device type holds: they ask which
    device the test runs on (a device-generic test may), placing nothing."""
    sides = [node.left, *node.comparators]
    if not any(
        (isinstance(side, ast.Attribute) and side.attr in DEVICE_TYPE_ATTRIBUTES)
        or (isinstance(side, ast.Name) and side.id == DEVICE_TYPE_NAME)
        for side in sides
    ):
        return
    for side in sides:
        for node_ in ast.walk(side):
            if isinstance(node_, ast.Constant) and isinstance(node_.value, str):
                yield node_


def asked_device_strings(call: ast.Call) -> Iterator[ast.Constant]:
    """The strings among the arguments of a call that asks which device
    something is on (`_is_device("xpu", w.device)`): asked, placing nothing."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if not name.startswith(QUESTION_PREFIXES):
        return
    values = [*call.args, *(k.value for k in call.keywords)]
    if any(
        (isinstance(v, ast.Attribute) and v.attr in ASKED_OF) or (isinstance(v, ast.Name) and v.id in ASKED_OF)
        for v in values
    ):
        yield from (v for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str))


def asked_spans(node: ast.AST) -> dict[int, list[tuple[int, int]]]:
    """Where, by line, `node` holds strings that only ask which device
    something is on (a comparison's, a question call's): UTF-8 byte spans
    of one line each, so that a line's text can be read without them."""
    spans: dict[int, list[tuple[int, int]]] = {}
    for sub in ast.walk(node):
        if isinstance(sub, ast.Compare):
            asked: Iterable[ast.Constant] = compared_device_types(sub)
        elif isinstance(sub, ast.Call):
            asked = asked_device_strings(sub)
        else:
            continue
        for constant in asked:
            if constant.end_lineno == constant.lineno and constant.end_col_offset is not None:
                spans.setdefault(constant.lineno, []).append((constant.col_offset, constant.end_col_offset))
    return spans


def without_spans(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """`text` with the UTF-8 byte `spans` (asked_spans') blanked."""
    raw = bytearray(text.encode("utf-8"))
    for start, end in spans:
        raw[start:end] = b" " * (end - start)
    return raw.decode("utf-8", errors="replace")
