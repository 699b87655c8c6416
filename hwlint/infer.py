"""Infer a class's classification from what its module already says.

Used for the suggestion in HWC001 messages, for the `fix` field of
diagnostics, and by `hwlint fix`. Strong evidence gives a `safe` fix, weaker
evidence an `unsafe` one, and no or contradicting evidence no fix at all,
with the reason, so a human knows what to decide.
"""

from __future__ import annotations

from typing import NamedTuple

from hwlint.diagnostics import Fix
from hwlint.resolve import ClassInfo, ModuleContext

_DEVICE_DECORATORS = {
    "onlyCPU": "CPU",
    "onlyCUDA": "CUDA",
    "onlyMPS": "MPS",
    "onlyXPU": "XPU",
}


class Inference(NamedTuple):
    member: str | None
    applicability: str | None  # "safe", "unsafe", or None when there is no fix
    evidence: str

    def as_fix(self) -> Fix | None:
        if self.member is None or self.applicability is None:
            return None
        return Fix(self.applicability, self.member, self.evidence)


def infer(ctx: ModuleContext, info: ClassInfo) -> Inference:
    cls = info.facts
    members = ctx.config.classifications
    calls = [i for i in ctx.facts.instantiations if i.class_name == cls.name]
    takes_device = [m.name for m in cls.methods if {"device", "devices"} & set(m.params)]
    if calls:
        only_fors = {i.only_for for i in calls}
        if only_fors == {None}:
            return _known("ACCELERATOR", "safe", "instantiated by instantiate_device_type_tests without only_for", members)
        if len(only_fors) == 1:
            (devices,) = only_fors
            if devices and len(devices) == 1 and devices[0].upper() in members:
                return _known(devices[0].upper(), "safe", f"instantiated with only_for={devices[0]!r}", members)
        return Inference(None, None, "instantiated with only_for for several or computed devices: choose ACCELERATOR (with except_for) or one device")
    if takes_device:
        return Inference(None, None, f"test methods take a device ({takes_device[0]}) but the class is never instantiated: instantiate it (ACCELERATOR) or drop the parameter (GENERIC)")
    # Weaker evidence: the class only makes sense on one device.
    device_decorators = {_DEVICE_DECORATORS.get(d) for m in cls.methods for d in m.decorators} - {None}
    probe_devices = {_probe_device(p.text) for p in (*cls.probes, *cls.devices)} - {None}
    hints = device_decorators | probe_devices
    if cls.methods and len(hints) == 1:
        (member,) = hints
        assert member is not None
        if member in members:
            return _known(member, "unsafe", f"every accelerator use in the class is {member}", members)
    if cls.probes or cls.devices or device_decorators:
        return Inference(None, None, "the class probes or uses accelerators: decide between GENERIC (drop the probes), ACCELERATOR or a device")
    mentions = ctx.facts.accelerator_lines
    if mentions:
        lines = ", ".join(str(n) for n in mentions[:3]) + (", ..." if len(mentions) > 3 else "")
        return _known("GENERIC", "unsafe", f"no accelerator use in the class, but the module mentions one outside it (line {lines})", members)
    return _known("GENERIC", "safe", "not instantiated per device, no device parameter, no accelerator use", members)


def _known(member: str, applicability: str, evidence: str, members: tuple[str, ...]) -> Inference:
    if member not in members:
        return Inference(None, None, f"{evidence}, but {member} is not a configured classification")
    return Inference(member, applicability, evidence)


def _probe_device(text: str) -> str | None:
    """The one device a probe or hard-coded use names (`torch.cuda...`,
    `TEST_CUDA`, `.cuda()`, `device="cuda"`), if any."""
    lowered = text.lower()
    for device in ("cuda", "xpu", "mps"):
        if (
            f"torch.{device}" in lowered
            or lowered == f"test_{device}"
            or f"backends.{device}" in lowered
            or lowered == f".{device}()"
            or f'"{device}' in lowered
        ):
            return device.upper()
    return None
