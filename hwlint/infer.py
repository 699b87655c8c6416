"""Infer a class's classification from what its module already says.

Used for the suggestion in HWC001 messages, for the `fix` field of
diagnostics, and by `hwlint fix`. Strong evidence gives a `safe` fix, weaker
evidence an `unsafe` one, and no or contradicting evidence no fix at all,
with the reason, so a human knows what to decide.
"""

# No `from __future__ import annotations`: typing.NamedTuple would compile
# each string annotation (hwlint.facts says why).

from typing import NamedTuple

from hwlint.diagnostics import Fix
from hwlint.resolve import ClassInfo, ModuleContext

_DEVICE_DECORATORS = {
    "onlyCPU": "CPU",
    "onlyCUDA": "CUDA",
    "onlyMPS": "MPS",
    "onlyXPU": "XPU",
}


# Each kind of evidence (or of its absence), as `hwlint fix` counts what it
# left: kind -> how its summary names it.
REASONS = {
    "instantiated": "instantiated per device",
    "only-for": "instantiated with only_for one device",
    "generic": "no device, no instantiation, no accelerator use",
    "one-device": "every accelerator use in the class is one device (unsafe: --unsafe)",
    "module-mentions": "GENERIC, but the module mentions an accelerator outside the class (unsafe: --unsafe)",
    "only-for-several": "instantiated with only_for several or computed devices: ACCELERATOR (with except_for) or one device",
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
    member: str | None
    applicability: str | None  # "safe", "unsafe", or None when there is no fix
    evidence: str
    kind: str = ""  # a key of REASONS

    def as_fix(self) -> Fix | None:
        if self.member is None or self.applicability is None:
            return None
        return Fix(self.applicability, self.member, self.evidence, kind=self.kind)


def infer(ctx: ModuleContext, info: ClassInfo) -> Inference:
    cls = info.facts
    members = ctx.config.classifications
    calls = [i for i in ctx.facts.instantiations if i.class_name == cls.name]
    takes_device = [m.name for m in cls.methods if {"device", "devices"} & set(m.params)]
    if calls:
        only_fors = {i.only_for for i in calls}
        if only_fors == {None}:
            return _known("ACCELERATOR", "safe", "instantiated by instantiate_device_type_tests without only_for", members,
                          "instantiated")
        if len(only_fors) == 1:
            (devices,) = only_fors
            if devices and len(devices) == 1 and devices[0].upper() in members:
                return _known(devices[0].upper(), "safe", f"instantiated with only_for={devices[0]!r}", members,
                              "only-for")
        return Inference(None, None, "instantiated with only_for for several or computed devices: choose ACCELERATOR (with except_for) or one device",
                         "only-for-several")
    if takes_device and all(base == "object" for base in cls.bases) and not cls.name.startswith("Test"):
        # A mixin (PyTorch's `_TorchbindAOTITests`, `*TestsMixin`): its tests
        # run in the classes that inherit or copy them, never in it. (A plain
        # `class TestFoo:` is not one: pytest collects it.)
        return Inference(None, None, f"test methods take a device ({takes_device[0]}) but the class is a mixin, never "
                         "instantiated: give it the classification of the classes that run its tests (ACCELERATOR "
                         "when they are instantiated per device)", "device-mixin")
    if takes_device:
        return Inference(None, None, f"test methods take a device ({takes_device[0]}) but the class is never instantiated: instantiate it (ACCELERATOR) or drop the parameter (GENERIC)",
                         "device-not-instantiated")
    # Weaker evidence: the class only makes sense on one device.
    device_decorators = {_DEVICE_DECORATORS.get(d) for m in cls.methods for d in m.decorators} - {None}
    probe_devices = {_probe_device(p.text) for p in (*cls.probes, *cls.devices)} - {None}
    hints = device_decorators | probe_devices
    if cls.methods and len(hints) == 1:
        (member,) = hints
        assert member is not None
        if member in members:
            return _known(member, "unsafe", f"every accelerator use in the class is {member}", members, "one-device")
    if cls.probes or cls.devices or device_decorators:
        return Inference(None, None, "the class probes or uses accelerators: decide between GENERIC (drop the probes), ACCELERATOR or a device",
                         "mixed-accelerator-use")
    mentions = ctx.facts.accelerator_lines
    if mentions:
        lines = ", ".join(str(n) for n in mentions[:3]) + (", ..." if len(mentions) > 3 else "")
        return _known("GENERIC", "unsafe", f"no accelerator use in the class, but the module mentions one outside it (line {lines})", members,
                      "module-mentions")
    return _known("GENERIC", "safe", "not instantiated per device, no device parameter, no accelerator use", members, "generic")


def _known(member: str, applicability: str, evidence: str, members: tuple[str, ...], kind: str) -> Inference:
    if member not in members:
        return Inference(None, None, f"{evidence}, but {member} is not a configured classification", "not-configured")
    return Inference(member, applicability, evidence, kind)


def _probe_device(text: str) -> str | None:
    """The one device a probe or hard-coded use names (`torch.cuda...()`,
    `TEST_CUDA`, `.cuda()`, `torch.empty(...).cuda()`, `device="cuda"`), if
    any. Probes are calls only: a module patched or named as a type is no
    evidence (hwlint.facts)."""
    lowered = text.lower()
    for device in ("cuda", "xpu", "mps"):
        if (
            f"torch.{device}" in lowered
            or lowered == f"test_{device}"
            or f"backends.{device}" in lowered
            or lowered.endswith(f".{device}()")
            or f'"{device}' in lowered
        ):
            return device.upper()
    return None
