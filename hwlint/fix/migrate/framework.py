"""The device-type framework (torch.testing._internal.common_device_type) as
the migrations write it: the module and the names they import from it, the
flag a device's instantiation needs, the names of the classes it makes, the
device each `@only*` decorator keeps a test on. Which device types a call
instantiates, and the complement of an `only_for`, are hwlint.facts.devices'
(instantiable, complement, framework_type)."""

from __future__ import annotations

from typing import Sequence

from hwlint.facts import devices

DEVICE_TYPE_MODULE = "torch.testing._internal.common_device_type"
INSTANTIATE = "instantiate_device_type_tests"
ONLY_ACCELERATOR = "onlyAccelerator"
# The framework's decorator that keeps a test on one device type, by the type.
ONLY_ON = {"cuda": "onlyCUDA", "xpu": "onlyXPU", "mps": "onlyMPS", "hpu": "onlyHPU", "privateuse1": "onlyPRIVATEUSE1"}
# The class decorator the device-type framework replaces: it expands
# `@parametrize` itself.
PARAMETRIZED = "instantiate_parametrized_tests"

# The device a test's decorator keeps it to; "native" for
# @onlyNativeDeviceTypes, which skips the device types that are not
# PyTorch's own (NATIVE_DEVICES in common_utils).
MOVES_TO = {**devices.ONLY_DECORATORS, "onlyNativeDeviceTypes": "native"}
NATIVE = "native"
# Lazy is added after the filter (include_lazy), so except_for cannot drop it.
NOT_NATIVE = devices.NOT_NATIVE


def opt_in(device: str) -> str:
    """The arguments instantiate_device_type_tests needs to make `device`'s
    classes at all (`, allow_xpu=True`), or ""."""
    return f", {devices.OPT_IN[device]}=True" if device in devices.OPT_IN else ""


def instantiated_names(name: str, devices: Sequence[str]) -> tuple[str, ...]:
    """The classes the framework makes of class `name` for `devices` (`TestFooCUDA`)."""
    return tuple(name + d.upper() for d in devices)
