"""Infer a class's classification from what its module already says.

Used for the suggestion in HWC001 messages, for the `fix` field of
diagnostics, and by `hwlint fix`. Strong evidence gives a `safe` fix, weaker
evidence an `unsafe` one, and no or contradicting evidence no fix at all,
with the reason, so a human knows what to decide.
"""

# No `from __future__ import annotations`: typing.NamedTuple would compile
# each string annotation (hwlint.facts.records says why).

from typing import Literal, NamedTuple

from hwlint.core.diagnostics import Fix
from hwlint.facts import DEFAULT_ACCELERATORS, ClassFacts, Site
from hwlint.facts.devices import BACKENDS, MEMBER_ACCELERATORS, ONLY_DECORATORS
from hwlint.facts.requirements import required_tests
from hwlint.facts.resolve import ClassInfo, ModuleContext

_DEVICE_DECORATORS = {decorator: device.upper() for decorator, device in ONLY_DECORATORS.items()}


# Each kind of evidence (or of its absence): the kinds of the fixes and
# NotFixables the classification rules give (HWC001, HWC002).
ReasonKind = Literal[
    "instantiated",
    "only-for",
    "generic",
    "one-device",
    "module-mentions",
    "unreached-mentions",
    "only-for-several",
    "only-for-unconfigured",
    "needs-accelerator",
    "base-probes",
    "some-tests-need-accelerator",
    "asks-accelerator",
    "any-gpu",
    "device-not-instantiated",
    "device-mixin",
    "mixed-accelerator-use",
    "not-configured",
    "string",
    "string-case",
    "invalid-value",
    "declared-twice",
]
Applicability = Literal["safe", "unsafe"]

# How `hwlint fix`'s summary names each kind, counting what it left. Keyed
# by str, not ReasonKind: fix looks its own kinds up here too.
REASONS: dict[str, str] = {
    "instantiated": "instantiated per device",
    "only-for": "instantiated with only_for one device",
    "generic": "no device, no instantiation, no accelerator use",
    "one-device": "every accelerator use in the class is one device (unsafe: --unsafe)",
    "module-mentions": "GENERIC, but the class reaches the module's mention of an accelerator outside it (unsafe: --unsafe)",
    "unreached-mentions": "no accelerator use in the class; the module's mentions never reach it",
    "only-for-several": "instantiated with only_for several or computed devices: ACCELERATOR (with except_for) or one device",
    "only-for-unconfigured": "instantiated with only_for one device that is not a configured classification: add it to `classifications`",
    "needs-accelerator": "its tests run only with an accelerator (a skip, a decorator or a base says so): ACCELERATOR (instantiated) or a device, never GENERIC",
    "base-probes": "GENERIC, but a base class asks about an accelerator (unsafe: --unsafe)",
    "some-tests-need-accelerator": "GENERIC, but some tests run only with an accelerator: move them to an ACCELERATOR class (unsafe: --unsafe)",
    "asks-accelerator": "GENERIC, but it asks whether an accelerator is there and runs without one (unsafe: --unsafe)",
    "any-gpu": "its tests run on whichever GPU the machine has (GPU_TYPE): ACCELERATOR with a device parameter",
    "device-not-instantiated": "tests take a device but the class is never instantiated: instantiate it or drop the parameter",
    "device-mixin": "a mixin whose tests take a device: the classification of the classes that run its tests",
    "mixed-accelerator-use": "the class probes or uses accelerators: GENERIC (drop the probes), ACCELERATOR or a device",
    "not-configured": "the inferred classification is not a configured member",
    # HWC002 (hwlint.rules.invalid_classification)
    "string": "a string declaration naming a member",
    "string-case": "a string declaration naming a member in another case (unsafe: --unsafe)",
    "invalid-value": "an invalid declaration: write the member",
    "declared-twice": "declared twice: keep one",
}


class Inference(NamedTuple):
    """A class's inferred classification, how sure (`applicability`), and the
    evidence; without a member, why there is no fix."""

    member: str | None
    applicability: Applicability | None  # None when there is no fix
    evidence: str
    kind: ReasonKind | Literal[""] = ""
    device: str = ""  # "not-configured": the one member the class is bound to

    def as_fix(self) -> Fix | None:
        if self.member is None or self.applicability is None:
            return None
        return Fix(self.applicability, self.member, self.evidence, kind=self.kind)


def infer(ctx: ModuleContext, info: ClassInfo) -> Inference:
    """What the class's classification should be, from the strongest evidence
    its module and its bases give: its instantiation, its tests' device
    parameter, its accelerator use, what its tests need, and the module's
    accelerator mentions it reaches."""
    cls = info.facts
    members = ctx.config.classifications
    calls = [i for i in ctx.facts.instantiations if i.class_name == cls.name]
    if calls:
        return _from_instantiation({i.only_for for i in calls}, members)
    takes_device = [m.name for m in cls.methods if {"device", "devices"} & set(m.params)]
    if takes_device:
        return _from_device_parameter(cls, takes_device[0])
    devices = _device_names(ctx)
    # Weaker evidence: the class only makes sense on one device.
    device_decorators = {_DEVICE_DECORATORS.get(d) for m in cls.methods for d in m.decorators} - {None}
    probe_devices = {probe_device(p.text, devices) for p in (*cls.probes, *cls.devices)} - {None}
    # What the class's tests need to run at all, and what its bases (in any
    # file) run on: a base that hard-codes `torch.device("npu")` makes every
    # test of the class an NPU test, whatever its own body says.
    needs = _Needs(ctx, info, devices)
    distributed = _distributed_devices(cls, devices)
    hints = device_decorators | probe_devices | needs.devices | distributed
    if len(hints) == 1:
        (member,) = hints
        assert member is not None
        own = member in device_decorators or member in probe_devices or member in distributed
        evidence = (None if own else needs.evidence(member)) or f"every accelerator use in the class is {member}"
        return _one_device(member, evidence, members)
    any_gpu = [s for s in cls.devices if s.kind == "any-gpu"]
    # `GPU_TYPE in ("cuda", torch._C._get_privateuse1_backend_name())`: which GPU it is, asked.
    probes = [p for p in cls.probes if not p.text.startswith(_PRIVATEUSE1_NAME)]
    if any_gpu and not probes and not device_decorators and not hints and len(any_gpu) == len(cls.devices):
        return Inference(
            None,
            None,
            f"its tests run on whichever GPU the machine has ({any_gpu[0].text}, line "
            f"{any_gpu[0].line}): make it ACCELERATOR, its tests taking `device` in place of "
            f'{any_gpu[0].text}, instantiated with except_for="cpu", allow_xpu=True',
            "any-gpu",
        )
    guard = None if device_decorators else _guard_of_several(cls, devices)
    if guard is not None:
        return Inference(
            None,
            None,
            f"its tests run only with one of several accelerators ({guard.text}, line {guard.line}) and use "
            "none of them but through torch.accelerator: make the class ACCELERATOR (instantiated per "
            'device, except_for="cpu")',
            "needs-accelerator",
        )
    if not device_decorators and not hints and _accelerator_api_only(cls) and needs.first is not None:
        # `if torch.accelerator.device_count() < world_size: skip` in a class
        # whose tests need an accelerator (`@skip_if_lt_x_gpu(4)`): the
        # accelerator's generic API, no device's.
        return _from_needs(needs, members) or _from_mentions(ctx, cls, members)
    if cls.probes or cls.devices or device_decorators or len(hints) > 1:
        return Inference(
            None,
            None,
            "the class probes or uses accelerators: decide between GENERIC (drop the probes), ACCELERATOR or a device",
            "mixed-accelerator-use",
        )
    found = _from_needs(needs, members)
    found = found if found is not None else _from_mentions(ctx, cls, members)
    if cls.questions and found.member == "GENERIC" and found.applicability == "safe":
        # `@skipIf(torch.cuda.is_available(), ...)`, `pinned=torch.accelerator.is_available()`:
        # it runs on CPU-only runners, but asks; PyTorch's contributors make such
        # classes GENERIC, yet it is no clear evidence.
        asked = cls.questions[0]
        return _known(
            "GENERIC",
            "unsafe",
            f"no accelerator use in the class, but it asks whether one is there ({asked.text}, line "
            f"{asked.line}) and runs without one",
            members,
            "asks-accelerator",
        )
    return found


def _from_instantiation(only_fors: "set[tuple[str, ...] | None]", members: tuple[str, ...]) -> Inference:
    """A class instantiated per device: ACCELERATOR, or the one device its
    `only_for` names."""
    if only_fors == {None}:
        return _known(
            "ACCELERATOR",
            "safe",
            "instantiated by instantiate_device_type_tests without only_for",
            members,
            "instantiated",
        )
    if len(only_fors) == 1:
        (devices,) = only_fors
        if devices and len(devices) == 1:
            device = devices[0]
            if device.upper() in members:
                return _known(device.upper(), "safe", f"instantiated with only_for={device!r}", members, "only-for")
            # One device, named: not "several", and what to do is to configure it.
            return Inference(
                None,
                None,
                f"instantiated with only_for={device!r} (one device), which is not a "
                f"configured classification: add it to `classifications` (and the enum), or "
                f"instantiate the class for every device (ACCELERATOR, with except_for)",
                "only-for-unconfigured",
            )
    return Inference(
        None,
        None,
        "instantiated with only_for for several or computed devices: choose ACCELERATOR (with except_for) or one device",
        "only-for-several",
    )


def _from_device_parameter(cls: ClassFacts, method: str) -> Inference:
    """A class never instantiated whose test `method` takes a device: no fix,
    and what to decide."""
    if all(base == "object" for base in cls.bases) and not cls.name.startswith("Test"):
        # A mixin (PyTorch's `_TorchbindAOTITests`, `*TestsMixin`): its tests
        # run in the classes that inherit or copy them, never in it. (A plain
        # `class TestFoo:` is not one: pytest collects it.)
        return Inference(
            None,
            None,
            f"test methods take a device ({method}) but the class is a mixin, never "
            "instantiated: give it the classification of the classes that run its tests (ACCELERATOR "
            "when they are instantiated per device)",
            "device-mixin",
        )
    return Inference(
        None,
        None,
        f"test methods take a device ({method}) but the class is never instantiated: instantiate it (ACCELERATOR) or drop the parameter (GENERIC)",
        "device-not-instantiated",
    )


def _from_needs(needs: "_Needs", members: tuple[str, ...]) -> "Inference | None":
    """A class with no accelerator use of its own whose tests, or bases, need
    or ask about an accelerator; None when nothing does."""
    if needs.first is not None:
        return Inference(
            None,
            None,
            f"its tests run only with an accelerator ({needs.where(needs.first)}): GENERIC "
            f"would send them to CPU runners, where they {'fail' if needs.first[2].kind == 'body' else 'skip'}; "
            "make the class ACCELERATOR (instantiated "
            "per device) or classify it as the device its runners have",
            "needs-accelerator",
        )
    if needs.partial is not None:
        return _known(
            "GENERIC",
            "unsafe",
            f"no accelerator use in the class, but some of its tests run only with "
            f"an accelerator ({needs.where(needs.partial)}): on CPU runners they "
            f"{'fail' if needs.partial[2].kind == 'body' else 'skip'}; move them to an "
            "ACCELERATOR class",
            members,
            "some-tests-need-accelerator",
        )
    if needs.asked is not None:
        return _known(
            "GENERIC",
            "unsafe",
            f"no accelerator use in the class, but a base class asks about one ({needs.where(needs.asked)})",
            members,
            "base-probes",
        )
    return None


def _from_mentions(ctx: ModuleContext, cls: ClassFacts, members: tuple[str, ...]) -> Inference:
    """A class with no accelerator use nor need: GENERIC, safe unless it (or
    a subclass that would inherit it) reaches the module's mention of an
    accelerator, or one device when every mention it reaches binds that one."""
    mentions = ctx.facts.accelerator_lines
    if not mentions:
        return _known(
            "GENERIC",
            "safe",
            "not instantiated per device, no device parameter, no accelerator use",
            members,
            "generic",
        )
    reached = _reached(cls, mentions)
    gpu = [b for b in ctx.facts.gpu_bindings if b.line in reached]
    if gpu:
        # `device=TRITON_DEVICE_TYPE` where the module set it to GPU_TYPE:
        # its tests run on the machine's GPU, whatever its own lines name.
        return Inference(
            None,
            None,
            f"its tests use {gpu[0].name}, which the module binds to {gpu[0].device} (line {gpu[0].line}): "
            "they run on whichever GPU the machine has; make it ACCELERATOR, its tests taking `device` in "
            f"place of {gpu[0].name}",
            "any-gpu",
        )
    bindings = ctx.facts.bindings_reached(cls)
    bound = {b.device for b in bindings}
    if len(bound) == 1 and {b.line for b in bindings} == set(reached):
        # Every mention it reaches is `xpu_device = torch.device("xpu")`
        # or the like: its tests are that device's as surely as if they named it.
        (device,) = bound
        names = ", ".join(sorted({b.name for b in bindings}))
        evidence = (
            f"every accelerator use in the class is {device.upper()}: it reaches {names}, bound to "
            f"{device} at module level (line {_lines(reached)})"
        )
        return _one_device(device.upper(), evidence, members)
    if reached:
        return _known(
            "GENERIC",
            "unsafe",
            "no accelerator use in the class, but it reaches the module's mention "
            f"of one outside it (line {_lines(reached)}): a name it uses, or a statement run at import",
            members,
            "module-mentions",
        )
    below = _subclass_reaching(ctx, cls)
    if below is not None:
        return _known(
            "GENERIC",
            "unsafe",
            f"no accelerator use in the class, but its subclass {below[0]} reaches "
            f"the module's mention of one (line {_lines(below[1])}), and would inherit GENERIC",
            members,
            "module-mentions",
        )
    return _known(
        "GENERIC",
        "safe",
        "not instantiated per device, no device parameter, no accelerator use; the "
        f"module's accelerator mentions (line {_lines(mentions)}) are never reached by the class",
        members,
        "unreached-mentions",
    )


def _accelerator_api_only(cls: ClassFacts) -> bool:
    """Whether the class uses accelerators, and only through torch.accelerator."""
    sites = (*cls.probes, *cls.devices, *cls.distributed)
    return bool(cls.probes or cls.devices) and all(s.text.startswith(_ACCELERATOR_API) for s in sites)


_PRIVATEUSE1_NAME = "torch._C._get_privateuse1_backend_name("
_ACCELERATOR_API = "torch.accelerator."


def _guard_of_several(cls: ClassFacts, devices: tuple[str, ...]) -> Site | None:
    """The first of the class's test guards that name several devices
    (`@skipIf(not TEST_CUDA and not TEST_XPU, ...)`: one of them is
    enough), when every probe or use of the class that names a device sits
    in one, and all it uses besides is torch.accelerator's: its tests need
    an accelerator, no one device. None otherwise."""
    guards = {s.line: s for s in cls.requires if s.kind == "test"}
    named: dict[int, set[str]] = {}
    for site in (*cls.probes, *cls.devices, *cls.distributed):
        device = probe_device(site.text, devices)
        if device is None:
            if not site.text.startswith(_ACCELERATOR_API):
                return None
        elif site.line not in guards:
            return None
        else:
            named.setdefault(site.line, set()).add(device)
    if not named or any(len(found) < 2 for found in named.values()):
        return None
    return guards[min(named)]


def _distributed_devices(cls: ClassFacts, devices: tuple[str, ...]) -> set[str]:
    """The members the class's collective backends and computed device
    strings name: `backend="nccl"` is CUDA's, `f"xpu:{rank}"` XPU's."""
    found = set()
    for site in cls.distributed:
        if site.kind in ("backend", "fstring"):
            device = BACKENDS.get(site.name, site.name)
            if device in devices:
                found.add(device.upper())
    return found


def _lines(lines: "tuple[int, ...] | list[int]") -> str:
    return ", ".join(str(n) for n in lines[:3]) + (", ..." if len(lines) > 3 else "")


def _one_device(member: str, evidence: str, members: tuple[str, ...]) -> Inference:
    """A class whose every accelerator use is `member`'s: that member
    (unsafe); for an out-of-tree device's class (NPU's, in Ascend's tests),
    what to do is to configure it or generalize the class, whatever else it
    probes."""
    if member in members:
        return _known(member, "unsafe", evidence, members, "one-device")
    return Inference(
        None,
        None,
        f"{evidence}, but {member} is not a configured classification: add it to "
        "`classifications`, or make the tests device-generic (ACCELERATOR)",
        "not-configured",
        member,
    )


def _reached(cls: ClassFacts, mentions: tuple[int, ...]) -> list[int]:
    """The module's mentions the class may reach (hwlint.facts.reach)."""
    far = set(cls.unreached)
    return [n for n in mentions if n not in far]


def _subclass_reaching(ctx: ModuleContext, cls: ClassFacts) -> tuple[str, list[int]] | None:
    """A subclass in the module (a base named as the class, at any depth)
    that declares nothing and reaches a mention: declaring the class GENERIC
    would classify it too."""
    names, done = [cls.name], {cls.name}
    while names:
        name = names.pop()
        for other in ctx.facts.classes:
            if (
                other.name in done
                or other.declarations
                or not any(base.rsplit(".", 1)[-1] == name for base in other.bases)
            ):
                continue
            reached = _reached(other, ctx.facts.accelerator_lines)
            if reached:
                return other.name, reached
            done.add(other.name)
            names.append(other.name)
    return None


# (file, class, site): where a need was found.
_Found = tuple[str, ClassFacts, Site]


class _Needs:
    """What a class's tests need beyond its own accelerator use: its skip
    guards and skip-unless decorators, and what its bases (resolved across
    files, as the rules resolve them) hard-code, use, require or ask.

    `first` is what makes every test of the class need an accelerator (a
    decorator on the class or a base, a skip in setUp, a device from
    get_devtype(), a base that uses one, a guard on each test); `devices`
    the members those name. `partial` is a guard on some tests only (the
    others run anywhere: a mixed class), `asked` a base's probe."""

    def __init__(self, ctx: ModuleContext, info: ClassInfo, devices: tuple[str, ...]) -> None:
        self.devices: set[str] = set()
        self.first: _Found | None = None
        self.partial: _Found | None = None
        self.asked: _Found | None = None
        self._named: dict[str, _Found] = {}
        self._path, self._cls = ctx.path, info.facts
        tests: set[str] = set()
        guarded: dict[str, list[_Found]] = {}
        for path, cls in ((ctx.path, info.facts), *info.ancestors):
            tests.update(m.name for m in cls.methods)
            by_line = {m.line: m.name for m in cls.methods}
            for line, sites in required_tests(cls).items():
                guarded.setdefault(by_line[line], []).extend((path, cls, site) for site in sites)
            for site in cls.requires:
                if site.kind not in ("test", "body"):
                    self._need((path, cls, site))
            if cls is info.facts:
                continue
            asks = [s for s in (*cls.probes, *cls.devices) if _asks(s)]
            if asks and self.asked is None:
                self.asked = (path, cls, asks[0])
            if not asks:
                # A base that asks about accelerators before it uses one (a
                # shared TestCase whose assertEqual moves tensors with
                # `.cuda()` when they are on CUDA) runs anywhere; one that
                # uses one without asking needs it.
                for site in (*cls.devices, *cls.probes):
                    self._need((path, cls, site), probe_device(site.text, devices) or "")
            for method in cls.methods:
                for decorator in method.decorators:
                    member = _DEVICE_DECORATORS.get(decorator)
                    if member is not None:
                        site = Site(method.line, method.column, f"@{decorator}", "test", member.lower())
                        guarded.setdefault(method.name, []).append((path, cls, site))
        if guarded and tests <= guarded.keys():
            for found in guarded.values():
                for one in found:
                    self._need(one)
        elif guarded:
            self.partial = min((f for found in guarded.values() for f in found), key=lambda f: f[2].line)

    def _need(self, found: _Found, device: str | None = None) -> None:
        device = (found[2].name if device is None else device).upper()
        if self.first is None:
            self.first = found
        if device:
            self.devices.add(device)
            self._named.setdefault(device, found)

    def where(self, found: _Found) -> str:
        path, cls, site = found
        place = f"line {site.line}" if path == self._path else f"{path}:{site.line}"
        owner = "" if cls is self._cls else f" in {cls.name}"
        return f"{site.text}{owner}, {place}"

    def evidence(self, member: str) -> str | None:
        """Why the class is `member`'s, when its needs or its bases say so."""
        found = self._named.get(member)
        if found is None:
            return None
        return f"its tests need {member}: {self.where(found)}"


def _asks(site: Site) -> bool:
    """A probe that only asks (`torch.cuda.is_available()`, `TEST_CUDA`,
    `torch.xpu.has_xetla()`), not one that takes the device there is
    (`torch.accelerator.current_accelerator()`)."""
    if "current_accelerator" in site.text:
        return False
    if site.kind in ("probe", "flag"):
        return True
    last = site.name.rsplit(".", 1)[-1]
    return site.kind == "module" and last.startswith(("is_", "has_", "get_device_", "device_count"))


def _device_names(ctx: ModuleContext) -> tuple[str, ...]:
    """Device names that name one member: PyTorch's, the project's own, and
    those the module uses that nobody configured (hwlint.facts.devices)."""
    return tuple(
        dict.fromkeys(
            (*DEFAULT_ACCELERATORS.devices, *ctx.config.extend_devices, *(f.name for f in ctx.facts.devices_found))
        )
    )


def _known(
    member: str, applicability: Applicability, evidence: str, members: tuple[str, ...], kind: ReasonKind
) -> Inference:
    if member not in members:
        return Inference(None, None, f"{evidence}, but {member} is not a configured classification", "not-configured")
    return Inference(member, applicability, evidence, kind)


def probe_device(text: str, devices: tuple[str, ...] = MEMBER_ACCELERATORS) -> str | None:
    """The one device a probe or hard-coded use names (`torch.cuda...()`,
    `TEST_CUDA`, `.cuda()`, `torch.empty(...).cuda()`, `device="cuda"`), if
    any. Probes are calls only: a module patched or named as a type is no
    evidence (hwlint.facts)."""
    lowered = text.lower()
    for device in devices:
        if (
            f"torch.{device}" in lowered
            or lowered == f"test_{device}"
            or f"backends.{device}" in lowered
            or f"torch_{device}." in lowered
            or lowered.endswith(f".{device}()")
            or f'"{device}' in lowered
        ):
            return device.upper()
    return None
