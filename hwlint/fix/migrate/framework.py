"""The device-type framework's rules (torch.testing._internal.common_device_type),
as the migrations need them: the module and the names they import from it,
the device types an `instantiate_device_type_tests` call instantiates with
its flags, the complement of an `only_for`, the names of the classes it
makes, the device each `@only*` decorator keeps a test on. The device names
themselves are hwlint.facts.devices'."""

from __future__ import annotations

from typing import Sequence

from hwlint.facts import devices

DEVICE_TYPE_MODULE = "torch.testing._internal.common_device_type"
INSTANTIATE = "instantiate_device_type_tests"
ONLY_ACCELERATOR = "onlyAccelerator"

# The device types instantiate_device_type_tests instantiates whatever its
# flags (when the machine has them), in the framework's order, and those a
# flag opts in.
ALWAYS = devices.INSTANTIATED_BY_DEFAULT
OPT_IN = devices.OPT_IN
_ORDER = devices.FRAMEWORK_ORDER
# Types of common_device_type that are not PrivateUse1 backends; any other
# name in only_for is a PrivateUse1 backend's (filter_desired_device_types
# maps it to "privateuse1"), but for the out-of-tree bases, which no call's
# complement lists.
_IN_TREE = devices.FRAMEWORK_DEVICES
OUT_OF_TREE = devices.OUT_OF_TREE_BASES
# Decorators of the device-type framework: a test wearing one is a device test.
DEVICE_TEST_DECORATORS = (
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

# The device a test's decorator keeps it to; "native" for
# @onlyNativeDeviceTypes, which skips the device types that are not
# PyTorch's own (NATIVE_DEVICES in common_utils).
MOVES_TO = {**devices.ONLY_DECORATORS, "onlyNativeDeviceTypes": "native"}
NATIVE = "native"
# Lazy is added after the filter (include_lazy), so except_for cannot drop it.
NOT_NATIVE = devices.NOT_NATIVE


def device_type(device: str, extend: Sequence[str]) -> str:
    """The device type a name in only_for stands for in the framework."""
    base = device.partition(":")[0].lower()
    if base in _IN_TREE or base in OUT_OF_TREE:
        return base
    return "privateuse1"  # a PrivateUse1 backend's name ("npu", "openreg", or one of `extend`)


def opt_in(device: str) -> str:
    """The arguments instantiate_device_type_tests needs to make `device`'s
    classes at all (`, allow_xpu=True`), or ""."""
    return f", {OPT_IN[device]}=True" if device in OPT_IN else ""


def instantiable(allow_mps: bool, allow_xpu: bool) -> tuple[str, ...]:
    """The device types an instantiate_device_type_tests call with these
    flags can instantiate (where the machine has them)."""
    opted = {"mps": allow_mps, "xpu": allow_xpu}
    return tuple(d for d in _ORDER if d in ALWAYS or opted.get(d, False))


def complement(named: Sequence[str], allow_mps: bool, allow_xpu: bool, extend: Sequence[str] = ()) -> tuple[str, ...]:
    """`except_for` for a call with `only_for=named`: the device types it
    could instantiate that `named` does not name."""
    kinds = {device_type(d, extend) for d in named}
    return tuple(d for d in instantiable(allow_mps, allow_xpu) if d not in kinds)


def instantiated_names(name: str, devices: Sequence[str]) -> tuple[str, ...]:
    return tuple(name + d.upper() for d in devices)
